#!/usr/bin/env python3
"""The busiest functions of a V8 .cpuprofile (node --cpu-prof, PROFILE_DIR of bench-cpu.sh): self and
inclusive share of the busy samples (idle, program and GC are shown apart), by function and file.

    python3 scripts/profile-top.py FILE.cpuprofile [N] [LAST_SECONDS]

LAST_SECONDS: only the samples of the profile's last seconds (the measured window, not the ramp).
"""
import collections, json, os, sys

prof = json.load(open(sys.argv[1]))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 30
nodes = {n["id"]: n for n in prof["nodes"]}
parent = {}
for n in prof["nodes"]:
    for c in n.get("children", []):
        parent[c] = n["id"]
samples = prof.get("samples", [])
if len(sys.argv) > 3:
    times, t = [], prof["startTime"]
    for d in prof["timeDeltas"]:
        t += d
        times.append(t)
    cut = prof["endTime"] - float(sys.argv[3]) * 1e6
    samples = [s for s, at in zip(samples, times) if at >= cut]
hits = collections.Counter(samples)
name = lambda n: f"{n['callFrame']['functionName'] or '(anon)'} {os.path.basename(n['callFrame']['url'])}:{n['callFrame']['lineNumber'] + 1}"
special = {"(idle)", "(program)", "(garbage collector)"}
total = sum(hits.values())
busy = sum(c for i, c in hits.items() if nodes[i]["callFrame"]["functionName"] not in special)
self_t, incl_t = collections.Counter(), collections.Counter()
for i, c in hits.items():
    n = nodes[i]
    if n["callFrame"]["functionName"] in special:
        continue
    self_t[name(n)] += c
    seen, j = set(), i
    while j is not None:
        k = name(nodes[j])
        if k not in seen:
            incl_t[k] += c
            seen.add(k)
        j = parent.get(j)
for s in special:
    c = sum(v for i, v in hits.items() if nodes[i]["callFrame"]["functionName"] == s)
    print(f"{s:>22}: {100 * c / total:5.1f}% of samples")
print(f"busy: {100 * busy / total:.1f}% of samples\n\nself % of busy")
for k, c in self_t.most_common(top):
    print(f"{100 * c / busy:6.2f}  {k}")
print("\ninclusive % of busy")
for k, c in incl_t.most_common(top):
    print(f"{100 * c / busy:6.2f}  {k}")

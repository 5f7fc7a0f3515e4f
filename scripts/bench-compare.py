#!/usr/bin/env python3
"""Issue 14's A/B table: every bench-results/cpu-*.json (scripts/bench-cpu.sh) and
baseline-*.json (scripts/bench-baseline.sh), one row each, in time order, written to
bench-results/compare-<time>.json and printed as a Markdown table.

CPU per action of the services is read from each service's own /metrics (process_cpu_seconds_total
between the window's edges, the load test's `cost.services`): only the processes of that run. The
/proc figures of postgres and redis-server are the whole machine's (every other suite's queries
and commands too), so they are given but marked as shared. `labels` filters: bench-compare.py A-head B-all
"""
import glob, json, os, sys, time

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench-results")
want = set(sys.argv[1:])
rows = []
for f in sorted(glob.glob(os.path.join(here, "cpu-*.json"))):
    d = json.load(open(f))
    if want and d["label"] not in want:
        continue
    c = d.get("cost") or {}
    svc = {s["name"]: s["cpuMsPerAction"] for s in (c.get("services") or [])}
    procs = {g["group"]: g for g in ((c.get("processes") or {}).get("groups") or [])}
    others = [k for k, g in procs.items() if k != "postgres" and (g["processesAtStart"] != 1 or g["processesAtEnd"] != 1)]
    tool = round(c["tool"]["cpuMs"] / c["actions"], 3) if c.get("tool") and c.get("actions") else None
    rows.append({
        "file": os.path.basename(f), "label": d["label"], "scenario": d["scenario"], "commit": d["commit"],
        "startedAt": d.get("startedAt"), "loadAverage": d["loadAverage"],
        "actionsPerSecond": d["report"]["actionsPerSecond"], "allViewsP99Ms": (d["report"].get("actionToAllViewsMs") or {}).get("p99"),
        "servicesCpuMsPerAction": svc, "servicesTotal": round(sum(svc.values()), 3),
        "postgresShared": procs.get("postgres", {}).get("cpuMsPerAction"),
        "redisShared": procs.get("redis-server", {}).get("cpuMsPerAction"),
        "loadTestTool": tool, "otherServiceProcessesOnMachine": others,
    })
for f in sorted(glob.glob(os.path.join(here, "baseline-*.json"))):
    if want and "baseline" not in want:
        continue
    d = json.load(open(f)); r = d["result"]; c = r["cpu_ms_per_action"]
    rows.append({
        "file": os.path.basename(f), "label": "baseline", "scenario": d["scenario"], "commit": None,
        "startedAt": os.path.basename(f).split("-")[-1][:-5], "loadAverage": d["loadAverage"],
        "actionsPerSecond": r["actions_per_s"], "allViewsP99Ms": r["lat_ms"]["p99"],
        "servicesCpuMsPerAction": {"gateway": c["gateway"], "worker": c["worker"]},
        "servicesTotal": round(c["gateway"] + c["worker"], 3),
        "postgresShared": c["postgres"], "redisShared": c["redis"], "loadTestTool": c.get("loadgen"),
        "otherServiceProcessesOnMachine": [],
    })
rows.sort(key=lambda r: str(r["startedAt"]).replace("-", "").replace(":", "").replace("T", "")[:14])
out = os.path.join(here, "compare-" + time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + ".json")
json.dump(rows, open(out, "w"), indent=1)
print("| run | scenario | commit | load | actions/s | all views p99 ms | services CPU ms/action (own /metrics) | Postgres* | Redis* | load tool |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    s = ", ".join(f"{k} {v:.3f}" for k, v in r["servicesCpuMsPerAction"].items())
    print(f"| {r['label']} | {r['scenario']} | {r['commit'] or '–'} | {r['loadAverage'][0]:.0f}→{r['loadAverage'][1]:.0f} | "
          f"{r['actionsPerSecond']:.0f} | {r['allViewsP99Ms']:.0f} | **{r['servicesTotal']:.2f}** ({s}) | "
          f"{r['postgresShared']} | {r['redisShared']} | {r['loadTestTool']} |")
print(f"\n(* the whole machine's, shared with the other suites) -> {out}")

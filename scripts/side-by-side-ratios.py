#!/usr/bin/env python3
"""Issue 14's goals from one side-by-side run: reads the results.jsonl that
../shared/baseline/side-by-side.sh writes (the baseline's RESULT lines and the project's summary
lines) and prints, per scenario, both sides and the ratios the goals name (throughput, p99, server
CPU per action, the load tool's CPU against the generator's). Writes the same as JSON next to the
input (`<input>.ratios.json`).

    python3 scripts/side-by-side-ratios.py bench-results/sbs-<time>.jsonl
"""
import json, sys

src = sys.argv[1]
base, proj = {}, {}
for line in open(src):
    d = json.loads(line)
    label = d["label"]
    if label.startswith("baseline_"):
        base[label[len("baseline_"):]] = d
    elif label.startswith("project_"):
        proj[label[len("project_"):]] = d["r"]

out = {}
for scenario in sorted(set(base) & set(proj)):
    b, p = base[scenario], proj[scenario]
    bc = b["cpu_ms_per_action"]
    pc = p.get("cpuMsPerAction") or {}
    p_server = sum(v for k, v in pc.items() if k != "loadtest")
    row = {
        "baseline": {"actionsPerSecond": b["actions_per_s"], "p99Ms": b["lat_ms"]["p99"],
                     "serverCpuMsPerAction": bc["server_total"], "generatorCpuMsPerAction": bc["loadgen"],
                     "perProcess": {k: bc[k] for k in ("gateway", "worker", "redis", "postgres")}},
        "project": {"actionsPerSecond": p["actionsPerSecond"], "p99Ms": p["actionToAllViewsMs"]["p99"],
                    "serverCpuMsPerAction": round(p_server, 3), "toolCpuMsPerAction": pc.get("loadtest"),
                    "perProcess": {k: v for k, v in pc.items() if k != "loadtest"}, "errors": p.get("errors")},
    }
    r = lambda a, c: round(a / c, 2) if a and c else None
    row["ratios"] = {
        "throughput": r(p["actionsPerSecond"], b["actions_per_s"]),
        "p99": r(p["actionToAllViewsMs"]["p99"], b["lat_ms"]["p99"]),
        "serverCpu": r(p_server, bc["server_total"]),
        "toolVsGenerator": r(pc.get("loadtest"), bc["loadgen"]),
    }
    out[scenario] = row
    rb, rp, q = row["baseline"], row["project"], row["ratios"]
    print(f"{scenario:>10}: baseline {rb['actionsPerSecond']:7.1f}/s p99 {rb['p99Ms']:6.1f} cpu {rb['serverCpuMsPerAction']:.2f} gen {rb['generatorCpuMsPerAction']:.3f}"
          f" | project {rp['actionsPerSecond']:7.1f}/s p99 {rp['p99Ms']:6.1f} cpu {rp['serverCpuMsPerAction']:.2f} tool {rp['toolCpuMsPerAction']}"
          f" | x throughput {q['throughput']} p99 {q['p99']} cpu {q['serverCpu']} tool {q['toolVsGenerator']}")
    print(f"{'':>12}baseline per process {rb['perProcess']}; project {rp['perProcess']}")
json.dump(out, open(src + ".ratios.json", "w"), indent=1)

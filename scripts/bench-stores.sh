#!/usr/bin/env bash
# Issue 13's comparison, one run after the other on this machine: the same load (default 1,000
# partnership tables, think 1-3 s, 30 s ramp, 60 s window) on one Redis + one Postgres, then on a
# 3-primary Redis Cluster (3 replicas) + Postgres split by shard over two private Postgres clusters.
# Each run is e2e/cluster/measure-commands.ts (the whole system as processes, one replica of each
# service, 16 shards, the load test with --metrics and --local-procs); the summary of both is
# written to bench-results/stores-<time>.json and printed as a Markdown table.
#
#   npm run build && bash scripts/bench-stores.sh [tables] [duration]
set -euo pipefail
cd "$(dirname "$0")/.."
TABLES="${1:-1000}"
DURATION="${2:-60s}"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
OUT="bench-results/stores-$STAMP"
mkdir -p "$OUT"
run() { # name, then measure-commands options
  local name="$1"; shift
  echo "== $name: $TABLES tables, $DURATION window (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  npx tsx e2e/cluster/measure-commands.ts --tables "$TABLES" --ramp 30s --duration "$DURATION" \
    --out "$OUT/$name" "$@" > "$OUT/$name.stdout" 2> "$OUT/$name.stderr" || {
    echo "$name failed; see $OUT/$name.stderr" >&2; tail -20 "$OUT/$name.stderr" >&2; exit 1; }
}
run one-redis-one-postgres --one-redis --databases 1
run cluster-two-postgres --databases 2
python3 - "$OUT" "$STAMP" <<'PY'
import json, os, sys
out, stamp = sys.argv[1], sys.argv[2]
rows = []
for name in ("one-redis-one-postgres", "cluster-two-postgres"):
    report = json.load(open(os.path.join(out, name, "report.json")))
    commands = json.load(open(os.path.join(out, name, "commands.json")))
    cost = report.get("cost") or {}
    services = {s["name"]: s["cpuMsPerAction"] for s in (cost.get("services") or [])}
    groups = {g["group"]: g["cpuMsPerAction"] for g in ((cost.get("processes") or {}).get("groups") or [])}
    lat = report["latencyMs"]["actionToAllViews"]
    rows.append({
        "run": name, "redis": commands["redis"], "databases": commands["databases"],
        "tablesOpened": report["tables"]["opened"], "actionsPerSecond": report["totals"]["actionsPerSecond"],
        "allViewsP50Ms": lat.get("p50"), "allViewsP99Ms": lat.get("p99"),
        "errors": report["errors"], "disconnects": report["disconnects"]["total"],
        "cpuMsPerAction": {**services, **{f"{k} (all local)": v for k, v in groups.items() if k in ("postgres", "redis-server")}},
        "redisCommandsPerActionOnPrimaries": commands["commandsPerActionOnPrimaries"],
        "costPerAction": cost.get("perAction"),
        "postgres": cost.get("postgres"), "postgresDatabases": cost.get("postgresDatabases"),
        "redisNodes": cost.get("redisNodes"),
        "perNode": [{k: n[k] for k in ("port", "role", "perAction")} for n in commands["nodes"]],
        "loadAverage": [report["machine"]["loadAverageStart"], report["machine"]["loadAverageEnd"]],
    })
summary = {"startedAt": stamp, "machine": {"cpus": os.cpu_count()}, "rows": rows}
path = f"bench-results/stores-{stamp}.json"
json.dump(summary, open(path, "w"), indent=2)
print(f"wrote {path}\n")
print("| run | tables | actions/s | all views p50 / p99 | errors | CPU ms/action (services; postgres, redis all local) | Redis commands/action (primaries) |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for r in rows:
    cpu = ", ".join(f"{k} {v}" for k, v in r["cpuMsPerAction"].items())
    print(f"| {r['run']} | {r['tablesOpened']} | {r['actionsPerSecond']} | {r['allViewsP50Ms']} / {r['allViewsP99Ms']} ms | {sum(r['errors'].values()) or 'none'} | {cpu} | {r['redisCommandsPerActionOnPrimaries']} |")
PY

#!/usr/bin/env bash
# The hand-written baseline (../shared/baseline) alone, one scenario, with side-by-side.sh's settings,
# so that an A/B of the project (scripts/bench-cpu.sh) on a busy machine has the baseline measured
# in the same minutes. Writes bench-results/baseline-<scenario>-<time>.json and prints one line.
#
#   scripts/bench-baseline.sh [peak|human1000|human2000] [BASELINE_DIR]
# Uses Postgres database `baseline` and Redis db 9 (flushed), as side-by-side.sh does; port 9680.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
scenario=${1:-peak}
src=${2:-$here/../shared/baseline}
case $scenario in
  peak) tables=200 tmin=0 tmax=0 secs=30 ;;
  human1000) tables=1000 tmin=1000 tmax=3000 secs=60 ;;
  human2000) tables=2000 tmin=1000 tmax=3000 secs=60 ;;
  *) echo "unknown scenario $scenario"; exit 2 ;;
esac
work=${BASELINE_WORK:-/tmp/bench-baseline}
if [ ! -d "$work/node_modules" ]; then
  mkdir -p "$work" && cp "$src"/*.mjs "$src"/run.sh "$src"/schema.sql "$src"/package*.json "$work"/ && chmod -R u+w "$work"
  (cd "$work" && npm ci --silent --no-audit --no-fund >/dev/null 2>&1) || { echo "npm ci of the baseline failed"; exit 1; }
fi
log=$work/$scenario.log
load_before=$(cut -d' ' -f1 /proc/loadavg)
(cd "$work" && PORT=9680 WS_URL=ws://127.0.0.1:9680/ TABLES=$tables THINK_MIN_MS=$tmin THINK_MAX_MS=$tmax BULL=1 \
  TXMODE=multi WARMUP_S=10 DURATION_S=$secs CONNECT_CONC=100 OUT=$work/results.jsonl bash run.sh "baseline_$scenario" >"$log" 2>&1)
load_after=$(cut -d' ' -f1 /proc/loadavg)
outdir=${BENCH_OUT:-$here/bench-results}
mkdir -p "$outdir"
out=$outdir/baseline-$scenario-$(date -u +%Y%m%dT%H%M%S).json
python3 - "$log" "$out" "$scenario" "$load_before" "$load_after" <<'PY'
import json, sys
log, out, scenario, lb, la = sys.argv[1:]
lines = [l for l in open(log) if l.startswith("RESULT ")]
if not lines: print("baseline: the run printed no result (see " + log + ")"); sys.exit(1)
d = json.loads(lines[-1][7:]); c = d["cpu_ms_per_action"]; l = d["lat_ms"]
json.dump({"scenario": scenario, "loadAverage": [float(lb), float(la)], "result": d}, open(out, "w"), indent=1)
print(f"baseline {scenario}: {d['actions_per_s']} actions/s, all views p50 {l['p50']} p99 {l['p99']} ms, "
      f"server CPU {c['server_total']:.2f} ms/action {json.dumps(c)} load {lb}->{la} -> {out}")
PY

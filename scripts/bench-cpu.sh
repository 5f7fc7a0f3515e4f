#!/usr/bin/env bash
# One load-test run of a built project tree, measured as ../shared/baseline/side-by-side.sh measures
# the project (same services, same `npm run loadtest` options, CPU per action from /proc), for A/B
# comparisons of two trees back to back. Writes bench-results/cpu-<label>-<time>.json (the load test's
# report plus the tree's commit and the load average) and prints one summary line.
#
#   scripts/bench-cpu.sh LABEL [PROJECT_DIR] [scenario]   scenario: peak (default), human1000,
#                                                         human2000, idle1000 (TURN_MS=2000,
#                                                         BREAK_MS=100: 500 turn deadlines due per
#                                                         second; with the rules' 30 s break between
#                                                         rounds only ~320 are), idle1000-break30
#                                                         (the same with the 30 s break, as before),
#                                                         memory2000 (2,000 tables' sockets held, then
#                                                         closed: the gateway's bytes per socket, the
#                                                         table-service's per open table, and whether
#                                                         closed tables leave its memory)
#   PROFILE_DIR=/tmp/prof scripts/bench-cpu.sh ...        also writes one .cpuprofile per service
#   LOADTEST_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/p": node flags of the load-test tool alone
#   BENCH_OUT=DIR: where the JSON goes (default bench-results/ of this tree). The load-test tool is
#   this tree's (apps/loadtest/dist) unless LOADTEST_DIR names another built tree (to A/B the tool).
#   BENCH_COMMIT=abc1234: the commit to record for a PROJECT_DIR that is not a git checkout (an
#   exported tree: `git archive`).
# In idle scenarios the JSON also has `timer`: the timer-service's own deadline counters read just
# before it stops (firings, and the lateness at dispatch: BullMQ's part of the lateness).
# Ports 9780-9782, Postgres database dominoes_bench, a fresh Redis prefix.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
label=${1:?usage: bench-cpu.sh LABEL [PROJECT_DIR] [scenario]}
proj=$(cd "${2:-$here}" && pwd)
scenario=${3:-peak}
P=postgresql://postgres@127.0.0.1:5432
case $scenario in
  peak) tables=200 think=0 duration=40s extra=() ;;
  human1000) tables=1000 think=1-3s duration=60s extra=() ;;
  human2000) tables=2000 think=1-3s duration=60s extra=() ;;
  idle1000) tables=1000 think=0 duration=60s extra=(--mode idle) ; export TURN_MS=2000 BREAK_MS=100 ;;
  idle1000-break30) tables=1000 think=0 duration=60s extra=(--mode idle) ; export TURN_MS=2000 ;;
  # Memory: 2,000 tables' sockets opened, joined and held (matches started, nobody acts), then closed;
  # a table with no seat connected is abandoned after 10 s and must leave the table-service's memory.
  # The table-service's young generation at 1 MB here: with 64 MB its used heap swings by tens of MB
  # between samples (garbage not yet scavenged), more than 2,000 tables hold; nobody acts, so nothing is
  # slower. (The gateway's figure comes from the load tool's scrapes, lowest held against lowest after.)
  memory2000) tables=2000 think=0 duration=90s extra=(--sockets-only --settle 90s) ; export ABANDONED_TABLE_MS=10000 \
    TABLE_SERVICE_NODE_ARGS=--max-semi-space-size=1 ;;
  *) echo "unknown scenario $scenario"; exit 2 ;;
esac
work=$(mktemp -d /tmp/bench-cpu.XXXXXX)
pre=bench$RANDOM
log=$work/services.log
psql -h 127.0.0.1 -U postgres -qc "drop database if exists dominoes_bench" >/dev/null 2>&1
node_args="${BENCH_SERVICE_NODE_ARGS:-}"
[ -n "${PROFILE_DIR:-}" ] && { mkdir -p "$PROFILE_DIR"; node_args="$node_args --cpu-prof --cpu-prof-dir=$PROFILE_DIR"; }
(cd "$proj" && DATABASE_URL=$P/dominoes_bench REDIS_PREFIX=$pre PORT=9780 TABLE_SERVICE_PORT=9781 \
  TIMER_SERVICE_PORT=9782 METRICS_PORT=9784 SERVICE_NODE_ARGS="$node_args" \
  setsid bash -c 'echo $$ > '"$work"'/pgid; exec node scripts/start.js' >"$log" 2>&1 &)
sleep 1
for _ in $(seq 90); do
  curl -sf http://127.0.0.1:9780/health/ready >/dev/null && curl -sf http://127.0.0.1:9781/health/ready >/dev/null \
    && curl -sf http://127.0.0.1:9782/health/ready >/dev/null && break
  sleep 1
done
load_before=$(cut -d' ' -f1 /proc/loadavg)
# The table-service's memory and tables held, every 5 s while the load test runs (memory2000's figures).
(while curl -sf http://127.0.0.1:9781/metrics 2>/dev/null | awk -v t="$(date +%s)" \
    '/^process_resident_memory_bytes /{r=$2} /^nodejs_heap_size_used_bytes /{h=$2} /^dominoes_active_tables\{/{a+=$2} END{print t, r, h, a+0}' >>"$work/table-memory"; do
  sleep 5; done) &
sampler=$!
(cd "${LOADTEST_DIR:-$here}" && node --max-semi-space-size=64 ${LOADTEST_NODE_ARGS:-} apps/loadtest/dist/main.js --url http://127.0.0.1:9780 --tables "$tables" --think "$think" \
  --ramp 30s --duration "$duration" "${extra[@]}" --quiet --out "$work/report" --local-procs \
  --metrics gateway=http://127.0.0.1:9784/metrics,table-service=http://127.0.0.1:9781/metrics,timer-service=http://127.0.0.1:9782/metrics \
  2>>"$log" | tail -1 >"$work/result.json")
load_after=$(cut -d' ' -f1 /proc/loadavg)
kill "$sampler" 2>/dev/null
curl -sf http://127.0.0.1:9782/metrics >"$work/timer.metrics" 2>/dev/null
g=$(cat "$work/pgid"); kill -TERM -- -"$g" 2>/dev/null
for _ in $(seq 30); do kill -0 -- -"$g" 2>/dev/null || break; sleep 1; done
kill -KILL -- -"$g" 2>/dev/null
redis-cli --scan --pattern "$pre*" | xargs -r -n 500 redis-cli del >/dev/null
outdir=${BENCH_OUT:-$here/bench-results}
mkdir -p "$outdir"
out=$outdir/cpu-$label-$(date -u +%Y%m%dT%H%M%S).json
commit=${BENCH_COMMIT:-$(git -C "$proj" rev-parse --short HEAD)}
dirty=$( [ -n "${BENCH_COMMIT:-}" ] && echo 0 || git -C "$proj" status --porcelain --untracked-files=no | wc -l)
python3 - "$work/result.json" "$out" "$label" "$scenario" "$commit" "$dirty" "$load_before" "$load_after" "$work/report/report.json" "$work/timer.metrics" "$work/table-memory" <<'PY'
import json, re, sys
src, out, label, scenario, commit, dirty, lb, la, full, timer_metrics, table_memory = sys.argv[1:]
try: r = json.load(open(src))
except Exception: print(f"{label}: the load test printed no result"); sys.exit(1)
try: whole = json.load(open(full))
except Exception: whole = {}
# --local-procs sums every process of a group on the machine: another suite's services (or Redis)
# running meanwhile are counted in. Such a run is marked and should not be compared.
groups = ((whole.get("cost") or {}).get("processes") or {}).get("groups") or []
others = [g["group"] for g in groups if g["group"] != "postgres" and (g["processesAtStart"] != 1 or g["processesAtEnd"] != 1)]
c = r.get("cpuMsPerAction") or {}
server = sum(v for k, v in c.items() if k != "loadtest" and v is not None)
a = r.get("actionToAllViewsMs") or {}
def timer_counters(path):
    # The whole run's firings and two lateness histograms of the timer's /metrics (cumulative
    # buckets, le in seconds): at dispatch (all of BullMQ's part), and how late BullMQ was told to
    # make the job due (a job stored while the table's previous one was active).
    try: text = open(path).read()
    except OSError: return None
    def value(name):
        m = re.search(r"^" + name + r"(?:\{[^}]*\})? ([0-9.e+]+)$", text, re.M)
        return float(m.group(1)) if m else None
    def histogram(name):
        buckets = {m.group(1): float(m.group(2)) for m in
                   re.finditer(r"^" + name + r'_bucket\{[^}]*le="([^"]+)"[^}]*\} ([0-9.e+]+)$', text, re.M)}
        total = buckets.get("+Inf") or 0
        def upper_bound_ms(q):
            for le, n in buckets.items():
                if total and n >= q * total: return None if le == "+Inf" else float(le) * 1000
        return {"bucketsS": buckets, "msUpperBound": {"p50": upper_bound_ms(0.5), "p99": upper_bound_ms(0.99)}}
    return {"fired": value("dominoes_deadlines_fired_total"),
            "latenessAtDispatch": histogram("dominoes_deadline_lateness_seconds"),
            "enqueuedLate": histogram("dominoes_deadline_enqueued_late_seconds")}
doc = {"label": label, "scenario": scenario, "commit": commit, "dirtyFiles": int(dirty),
       "loadAverage": [float(lb), float(la)], "serverCpuMsPerAction": round(server, 3),
       "otherProcessesCounted": others, "startedAt": whole.get("startedAt"), "cost": whole.get("cost"),
       "services": whole.get("services"), "deadlineMovesPerSecond": (whole.get("totals") or {}).get("deadlineMovesPerSecond"),
       "timer": timer_counters(timer_metrics) if scenario.startswith("idle") else None, "report": r}
def table_memory_figures(path):
    # Per open table: the lowest heap (and RSS) with every table held against the lowest once they
    # have all left (0 tables in the cache), both after whatever GC ran: as the gateway's per-socket figure.
    try: rows = [list(map(float, l.split())) for l in open(path) if len(l.split()) == 4]
    except OSError: return None
    if not rows: return None
    most = max(r[3] for r in rows)
    held = [r for r in rows if r[3] == most]
    gone = [r for r in rows if r[3] == 0 and r[0] > held[-1][0]]
    fig = {"samples": rows, "tablesHeld": most, "heldSamples": len(held), "goneSamples": len(gone)}
    if held and gone:
        for i, name in ((1, "rss"), (2, "heap")):
            hm, gm = min(r[i] for r in held), min(r[i] for r in gone)
            fig[name + "HeldMinBytes"], fig[name + "AfterCloseMinBytes"] = hm, gm
            fig[name + "PerTableBytes"] = round((hm - gm) / most) if most else None
    return fig
if scenario.startswith("memory"):
    doc["tableMemory"] = table_memory_figures(table_memory)
    doc["socketsOnly"] = (whole.get("socketsOnly") or (whole.get("totals") or {}).get("socketsOnly"))
json.dump(doc, open(out, "w"), indent=1)
parts = " ".join(f"{k}={v:.2f}" for k, v in c.items() if v is not None)
if scenario.startswith("memory"):
    m, so = doc["tableMemory"] or {}, doc["socketsOnly"] or {}
    print(f"{label} {scenario} {commit}: table-service {m.get('tablesHeld')} tables held, heap {m.get('heapPerTableBytes')} B "
          f"and RSS {m.get('rssPerTableBytes')} B per open table, {m.get('goneSamples')} samples with none left; "
          f"gateway {so.get('bytesPerSocket')} B RSS, {so.get('heapPerSocket')} B heap per socket -> {out}")
    sys.exit(0)
if scenario.startswith("idle"):
    late = r.get("deadlineLatenessMs") or {}
    timer = doc["timer"] or {}
    at_dispatch = (timer.get("latenessAtDispatch") or {}).get("msUpperBound")
    enqueued = (timer.get("enqueuedLate") or {}).get("msUpperBound")
    rate = f"{doc['deadlineMovesPerSecond']} deadline moves/s, lateness p50 {late.get('p50')} p99 {late.get('p99')} max {late.get('max')} ms (timer, whole run, bucket bounds: at dispatch {at_dispatch}, enqueued late {enqueued}), "
else:
    rate = f"{r.get('actionsPerSecond')} actions/s, all views p50 {a.get('p50')} p99 {a.get('p99')} ms, "
print(f"{label} {scenario} {commit}{'+' if int(dirty) else ''}: {rate}server CPU {server:.2f} ms/action [{parts}] "
      f"errors {r.get('errors')} load {lb}->{la}{' OTHER PROCESSES COUNTED: ' + ','.join(others) if others else ''} -> {out}")
PY

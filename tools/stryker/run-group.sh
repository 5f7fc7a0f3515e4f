#!/usr/bin/env bash
# The mutation run one group at a time (docs/testing.md, "The mutation run"): each group mutates the
# files where one part's logic is and runs only the suites that test them, so a group takes minutes,
# not the 19 h of every suite for every mutant. Results go into tools/stryker/incremental.json, so a
# group run again tests only the mutants whose code or tests changed; mutation.json (and the HTML
# report) always holds every file tested so far.
#
#   tools/stryker/run-group.sh <group> [stryker options...]     e.g. run-group.sh table --concurrency 1
#   tools/stryker/run-group.sh list
set -euo pipefail
cd "$(dirname "$0")/../.."

T=apps/table-service
G=apps/gateway
M=apps/timer-service
join() { local IFS=,; echo "$*"; }

case "${1:-}" in
  table) # The table's policy, views, engine and deadline keeper: pure suites, the engine on its
    # in-memory ports, the keeper's jobs on real Redis and Postgres (deadline-keeper-jobs). One group,
    # because the engine's suites kill policy mutants too: a group run without a suite that killed a
    # mutant tests that mutant again (and may lose the kill).
    files=($T/src/table/table-policy.ts $T/src/table/table-state.ts $T/src/table/table-events.ts $T/src/table/table-views.ts
      $T/src/table/table-engine.ts $T/src/deadlines/deadline-keeper.ts)
    suites=($T/test/table-policy.test.ts $T/test/abandoned-tables.test.ts $T/test/policy-match-log.test.ts
      $T/test/policy-seats-presence.test.ts $T/test/views-of-a-table.test.ts $T/test/table-engine.in-memory.test.ts
      $T/test/table-engine.replies.in-memory.test.ts $T/test/deadline-keeper.test.ts
      $T/test/deadline-keeper-jobs.test.ts) ;;
  stores) # The table store and the stale-connection sweep on real Postgres and Redis.
    files=($T/src/table/table-store.ts $T/src/presence/stale-connections.ts)
    suites=($T/test/table-store.test.ts $T/test/table-store-rows.test.ts $T/test/stale-connections.test.ts) ;;
  leases) # Shard leases on real Redis.
    files=($T/src/shards/shard-leases.ts $T/src/shards/owned-shards.ts)
    suites=($T/test/shard-leases.test.ts $T/test/shard-leases-redis.test.ts $T/test/shard-leases-lifecycle.test.ts
      $T/test/shard-leases-edges.unit.test.ts $T/test/owned-shards.unit.test.ts) ;;
  edge) # The gateway's tokens, limits and body parser: unit suites (rate-limiter on real Redis).
    files=($G/src/auth/tokens.ts $G/src/edge/rate-limiter.ts $G/src/http/json-body.ts $G/src/ws/token-bucket.ts
      $G/src/edge/trusted-proxies.ts $G/src/edge/client-address.ts $G/src/edge/origin-policy.ts)
    suites=($G/test/tokens.test.ts $G/test/token-refusals.test.ts $G/test/rate-limiter.test.ts $G/test/json-body.test.ts
      $G/test/token-bucket.test.ts $G/test/edge.test.ts $G/test/trusted-proxies.test.ts) ;;
  timer) # The timer-service on real Redis (BullMQ).
    files=($M/src/deadline-worker.ts)
    suites=($M/test/timer-service.test.ts $M/test/deadline-upsert.test.ts $M/test/telemetry.test.ts
      $M/test/deadline-worker-failures.test.ts $M/test/deadline-worker-errors.unit.test.ts $M/test/enqueued-late.test.ts) ;;
  lobby) # The table-service's lobby feed: the entries and updates of the pure suites, the publisher
    # on real Redis.
    files=($T/src/table/lobby-feed.ts)
    suites=($T/test/lobby-feed.test.ts $T/test/lobby-presence.test.ts $T/test/lobby-publish.test.ts) ;;
  spectators) # Spectators on the table-service: the watcher set, the public view's channel and the
    # stale-watcher sweep on real Redis and Postgres (an engine harness); the registry on real Redis.
    files=($T/src/spectators/one-at-a-time.ts $T/src/spectators/stale-watchers.ts
      $T/src/spectators/table-spectators.ts $T/src/spectators/table-watchers.ts)
    suites=($T/test/spectators.test.ts $T/test/table-watchers.test.ts $T/test/one-at-a-time.test.ts
      $T/test/spectators-sweeper.test.ts $T/test/spectators-edges.test.ts) ;;
  stale) # The stale-connection sweep on real Postgres and Redis (the half of `stores` not run).
    files=($T/src/presence/stale-connections.ts)
    suites=($T/test/stale-connections.test.ts) ;;
  limits) # The gateway's rate limiter on real Redis.
    files=($G/src/edge/rate-limiter.ts)
    suites=($G/test/rate-limiter.test.ts) ;;
  sockets) # The gateway's socket (on a fake ws socket) and its seat router (real Redis pub/sub): unit
    # suites, no gateway started.
    files=($G/src/ws/seat-router.ts $G/src/ws/connection.ts)
    suites=($G/test/seat-router.unit.test.ts $G/test/connection.unit.test.ts) ;;
  chat) # The gateway's chat relay and its per-player rate on real Redis (fake sockets as readers).
    files=($G/src/chat/chat-relay.ts $G/src/chat/chat-rate.ts)
    suites=($G/test/chat-relay.unit.test.ts $G/test/chat-rate.unit.test.ts) ;;
  config) # The gateway's configuration read from an environment (pure).
    files=($G/src/config.ts)
    suites=($G/test/gateway-config.unit.test.ts) ;;
  assets) # The built client's /assets/* from a directory of files (no server started).
    files=($G/src/http/web-assets.ts)
    suites=($G/test/web-assets.unit.test.ts) ;;
  lobbyhub) # The gateway's lobby sockets: the hub on a real seat router (Redis pub/sub).
    files=($G/src/lobby/lobby-hub.ts)
    suites=($G/test/lobby-hub.unit.test.ts) ;;
  intents) # The gateway's intent service on the real sharded-streams client (Redis).
    files=($G/src/intents/intent.service.ts)
    suites=($G/test/intent-service.unit.test.ts) ;;
  watchdog) # The timer-service's stuck-worker watchdog: its choice and timer (pure), oldestDueAt and a
    # wedged worker started again on real Redis (BullMQ).
    files=($M/src/stuck-worker-watchdog.ts)
    suites=($M/test/stuck-worker-watchdog.test.ts $M/test/stuck-worker-watchdog.unit.test.ts) ;;
  archiver) # Retention's archiver on two real Postgres databases (one of them missing for the failures).
    files=($T/src/retention/archiver.ts)
    suites=($T/test/archiver.unit.test.ts) ;;
  configs) # The table-service's and the timer-service's configuration read from an environment (pure).
    files=($T/src/config.ts $M/src/config.ts)
    suites=($T/test/table-service-config.unit.test.ts $M/test/timer-config.unit.test.ts) ;;
  ports) # The engine's ports: the store's errors (pure), the seat publisher on real Redis, the deals' CSPRNG.
    files=($T/src/table/table-ports.ts $T/src/table/seat-publisher.ts $T/src/table/deal-source.ts)
    suites=($T/test/table-ports.unit.test.ts $T/test/seat-publisher.unit.test.ts $T/test/deal-source.unit.test.ts) ;;
  events) # A table event's seat, match and round (pure; also read in views-of-a-table).
    files=($T/src/table/table-events.ts)
    suites=($T/test/table-events.unit.test.ts $T/test/views-of-a-table.test.ts) ;;
  hub) # The gateway's socket hub: frames, hello, limits, intents, watching and closing, on fake ws
    # sockets with real Redis (the seat router, the intent streams, a table-service's answers faked on
    # the stream's far side).
    files=($G/src/ws/socket-hub.ts)
    suites=($G/test/socket-hub.unit.test.ts $G/test/socket-hub-intents.unit.test.ts $G/test/socket-hub-edges.unit.test.ts
      $G/test/socket-hub-trace.unit.test.ts) ;;
  transport) # The table-service's shard transport on real Redis streams, and its wiring (the Nest
    # module, the app, the controllers and filter, the metrics).
    files=($T/src/transport/sharded-streams.server.ts $T/src/table-service.module.ts $T/src/table-app.ts
      $T/src/stores.module.ts $T/src/app.controllers.ts $T/src/intent-errors.filter.ts $T/src/metrics.ts)
    suites=($T/test/sharded-streams-server.unit.test.ts $T/test/intents-through-nest.test.ts
      $T/test/table-service-module.unit.test.ts $T/test/sharded-streams-spans.transport.test.ts
      $T/test/table-service-metrics.unit.test.ts) ;;
  http) # The gateway's HTTP API, history, errors, security headers, limits, health and metrics
    # endpoints (the controllers on a real Nest app, real Redis and Postgres).
    files=($G/src/http/api.controller.ts $G/src/http/history.controller.ts $G/src/http/errors.ts
      $G/src/http/metrics-server.ts $G/src/http/security-headers.ts $G/src/http/api-origin.ts
      $G/src/http/http-limits.ts $G/src/http/health.controller.ts $G/src/auth/bearer.ts $G/src/auth/public-secrets.ts)
    suites=($G/test/http-api.unit.test.ts $G/test/http-helpers.unit.test.ts $G/test/http-limits.unit.test.ts) ;;
  reads) # The gateway's table watching, match history, quick play, table opener and the readers of
    # tables and the lobby (real Postgres and Redis).
    files=($G/src/ws/table-watching.ts $G/src/tables/match-history.ts $G/src/lobby/quick-play.ts
      $G/src/lobby/table-opener.ts $G/src/lobby/lobby-reader.ts $G/src/tables/table-reader.ts
      $G/src/tables/read-only-pool.ts)
    suites=($G/test/table-watching.unit.test.ts $G/test/match-history.unit.test.ts $G/test/quick-play.unit.test.ts $G/test/table-reader.unit.test.ts) ;;
  wiring) # The gateway's and the timer-service's modules, apps, heartbeat, player sockets, ws adapter
    # and metrics (a real Nest app on real Redis and Postgres).
    files=($G/src/gateway.module.ts $G/src/gateway-app.ts $G/src/ws/gateway-heartbeat.ts $G/src/ws/player-sockets.ts
      $G/src/ws/protocol-ws.adapter.ts $G/src/metrics.ts $G/src/ws/sockets.gateway.ts $G/src/di.ts
      $M/src/timer.module.ts $M/src/timer-app.ts $M/src/metrics.ts)
    suites=($G/test/gateway-wiring.unit.test.ts $G/test/gateway-wiring-stores.unit.test.ts
      $G/test/gateway-heartbeat.unit.test.ts $G/test/player-sockets.unit.test.ts $M/test/timer-wiring.unit.test.ts) ;;
  list)
    echo "groups: table stores leases edge timer lobby spectators stale limits sockets chat config assets lobbyhub intents watchdog archiver configs ports events hub transport http reads wiring"
    exit 0 ;;
  *)
    echo "usage: $0 <table|stores|leases|edge|timer|lobby|spectators|stale|limits|sockets|chat|config|assets|lobbyhub|intents|watchdog|archiver|configs|ports|events|hub|transport|http|reads|wiring|list> [stryker options...]" >&2
    exit 2 ;;
esac
shift

export DATABASE_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
MUTATION_TESTS="$(join "${suites[@]}")" exec npx stryker run tools/stryker/stryker.config.json \
  --mutate "$(join "${files[@]}")" "$@"

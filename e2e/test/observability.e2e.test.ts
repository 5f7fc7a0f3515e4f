import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SpanRecord } from '@dominoes/platform';
import type { TableView } from '@dominoes/protocol';
import { seatPlayers, type TestPlayer } from '../src/players';
import { ARTIFACTS, TestSystem, type ServiceName } from '../src/system';
import {
  dashboardQueries,
  exposedMetrics,
  exposes,
  loadDashboard,
  metricNames,
  renderAlertRules,
} from '../../deploy/test/promql';

/*
 * The services run with OTEL_TEST_SPANS_FILE: each appends every span it ends, as a JSON line, to
 * `<base>.<service>.jsonl` (libs/platform/src/telemetry). These tests read those files.
 */

const TURN_MS = 1500;
const SERVICES: ServiceName[] = ['gateway', 'table-service', 'timer-service'];
const PG_SCOPE = '@opentelemetry/instrumentation-pg';
const REDIS_SCOPE = '@opentelemetry/instrumentation-ioredis';

function readSpans(base: string): SpanRecord[] {
  return SERVICES.flatMap((service) => {
    const file = `${base}.${service}.jsonl`;
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as SpanRecord);
  });
}

/** Polls the span files until `find` returns something (spans are written when they end). */
async function waitForSpans<T>(base: string, find: (spans: SpanRecord[]) => T | null, timeoutMs = 10_000) {
  const started = Date.now();
  for (;;) {
    const spans = readSpans(base);
    const found = find(spans);
    if (found !== null) return { spans, found };
    if (Date.now() - started > timeoutMs) {
      const names = [...new Set(spans.map((s) => `${s.service}:${s.name}`))].join(', ');
      throw new Error(`spans not found within ${timeoutMs} ms; have: ${names}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** True when `span` descends (through its parents) from `ancestor`. */
function descendsFrom(span: SpanRecord, ancestor: SpanRecord, byId: Map<string, SpanRecord>): boolean {
  let parent = span.parentSpanId;
  for (let hops = 0; parent !== null && hops < 50; hops++) {
    if (parent === ancestor.spanId) return true;
    parent = byId.get(parent)?.parentSpanId ?? null;
  }
  return false;
}

const turnOf = (v: TableView | null) => (v?.game?.phase === 'playing' ? v.game.turn : null);

async function scrape(system: TestSystem, service: ServiceName): Promise<string> {
  const response = await fetch(system.metricsUrl(service));
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of one sample (`name{labels} value`), or null. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = match[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => have.includes(`${k}="${v}"`))) return Number(match[3]);
  }
  return null;
}

describe('observability: one trace per intent across the services, /metrics on each', () => {
  let system: TestSystem;
  let players: TestPlayer[];
  let spanBase: string;
  /** The table-service span that applied the played tile (set by the first test). */
  let playSpan: SpanRecord | null = null;

  beforeAll(async () => {
    const dir = join(ARTIFACTS, 'spans');
    mkdirSync(dir, { recursive: true });
    spanBase = join(dir, `observability-${Date.now()}`);
    system = await TestSystem.start('observability', {
      turnMs: TURN_MS,
      env: { OTEL_TEST_SPANS_FILE: spanBase },
    });
    ({ players } = await seatPlayers(system, ['Oda', 'Pau', 'Quim', 'Rhea'], { variant: 'partnership' }));
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('a played tile makes one trace: ws.intent play (gateway) → Redis → table.intent play → Postgres → ws.view for every seat', async () => {
    const host = players[0]!;
    await host.client.waitForView((v) => turnOf(v) !== null);
    // The turn is 1.5 s here: if its deadline wins the race, the next player tries.
    let intentId: string | null = null;
    for (let attempt = 0; attempt < 5 && intentId === null; attempt++) {
      const seat = turnOf(await host.client.waitForView((v) => turnOf(v) !== null))!;
      const mover = players.find((p) => p.seat === seat)!;
      const view = await mover.client.waitForView((v) => turnOf(v) === seat);
      const play = view.game!.legal.find((a) => a.type === 'play');
      if (!play || play.type !== 'play') {
        await host.client.waitForView((v) => turnOf(v) !== seat, TURN_MS + 3000);
        continue;
      }
      const ack = await mover.client.play(play.tile, play.end).catch(() => null);
      if (ack) intentId = `${mover.playerId}:${ack.id}`;
    }
    expect(intentId).not.toBeNull();

    const { spans, found } = await waitForSpans(spanBase, (all) => {
      const ws = all.find(
        (s) =>
          s.service === 'gateway' &&
          s.name === 'ws.intent play' &&
          s.attributes['dominoes.intent.id'] === intentId,
      );
      if (!ws) return null;
      const table = all.find(
        (s) => s.service === 'table-service' && s.name === 'table.intent play' && s.traceId === ws.traceId,
      );
      const views = all.filter(
        (s) => s.service === 'gateway' && s.name === 'ws.view' && s.traceId === ws.traceId,
      );
      return table && views.length >= 4 ? { ws, table, views } : null;
    });
    const { ws, table, views } = found;
    const trace = spans.filter((s) => s.traceId === ws.traceId);
    const byId = new Map(trace.map((s) => [s.spanId, s]));

    // The gateway starts the trace; the table-service's span is a child of a gateway span.
    expect(ws.parentSpanId).toBeNull();
    expect(byId.get(table.parentSpanId!)?.service).toBe('gateway');
    expect(table.parentSpanId).toBe(ws.spanId);
    expect(table.attributes['dominoes.intent.outcome']).toBe('applied');
    // Through Redis: the gateway's XADD of the envelope is in the trace, under ws.intent.
    const xadd = trace.find(
      (s) => s.service === 'gateway' && s.scope === REDIS_SCOPE && /^xadd/i.test(s.name),
    );
    expect(xadd).toBeDefined();
    expect(descendsFrom(xadd!, ws, byId)).toBe(true);
    // Into Postgres: the stored change is a pg span under the table-service's span.
    const db = trace.filter((s) => s.service === 'table-service' && s.scope === PG_SCOPE);
    expect(db.length).toBeGreaterThan(0);
    expect(db.every((s) => descendsFrom(s, table, byId))).toBe(true);
    // Back out to the views: one ws.view per seat, each a child of the table-service's span.
    expect(views).toHaveLength(4);
    for (const view of views) expect(view.parentSpanId).toBe(table.spanId);
    // Every span of the trace hangs off the gateway's first span.
    for (const span of trace) if (span !== ws) expect(descendsFrom(span, ws, byId)).toBe(true);
    playSpan = table;
  });

  it('log lines written inside a span carry its trace id', async () => {
    const log = join(ARTIFACTS, 'logs', 'observability', 'gateway.log');
    const traces = new Set(readSpans(spanBase).map((s) => s.traceId));
    const lines = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; trace_id?: string; span_id?: string });
    const bound = lines.filter(
      (l) => l.msg === 'socket bound to seat' && l.trace_id && traces.has(l.trace_id),
    );
    expect(bound.length).toBeGreaterThanOrEqual(4);
    expect(bound[0]!.span_id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('a deadline fired by the timer-service is a trace of its own (deadline.fire → table.intent deadline → ws.view), linked to the change that set it', async () => {
    expect(playSpan).not.toBeNull();
    const setter = playSpan!;
    // Nobody plays now: the turn after the played tile ends by its deadline.
    await players[0]!.client.waitForView(
      (v) => (v.game?.log ?? []).some((e) => e.by === 'deadline') || v.game?.phase !== 'playing',
      TURN_MS + 5000,
    );
    const { spans, found } = await waitForSpans(spanBase, (all) => {
      const fire = all.find(
        (s) =>
          s.service === 'timer-service' &&
          s.name === 'deadline.fire' &&
          s.links.some((l) => l.spanId === setter.spanId && l.traceId === setter.traceId),
      );
      if (!fire) return null;
      const handled = all.find(
        (s) =>
          s.service === 'table-service' &&
          s.name === 'table.intent deadline' &&
          s.parentSpanId === fire.spanId,
      );
      const views = all.filter(
        (s) => s.service === 'gateway' && s.name === 'ws.view' && s.traceId === fire.traceId,
      );
      return handled && views.length > 0 ? { fire, handled, views } : null;
    });
    const { fire, handled, views } = found;
    // A new trace (its root is the timer's span), linked to the play's trace, not part of it.
    expect(fire.parentSpanId).toBeNull();
    expect(fire.traceId).not.toBe(setter.traceId);
    expect(fire.attributes['dominoes.table']).toBe(setter.attributes['dominoes.table']);
    // The deadline intent carried the timer's span to the table-service, which applied it.
    expect(handled.traceId).toBe(fire.traceId);
    expect(handled.attributes['dominoes.intent.outcome']).toBe('applied');
    const trace = spans.filter((s) => s.traceId === fire.traceId);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    expect(
      trace.some(
        (s) => s.service === 'table-service' && s.scope === PG_SCOPE && descendsFrom(s, handled, byId),
      ),
    ).toBe(true);
    for (const view of views) expect(view.parentSpanId).toBe(handled.spanId);
  });

  it('the gateway serves /metrics on METRICS_PORT only: on the players\u2019 port it is 404', async () => {
    const players = await fetch(`${system.httpUrl}/metrics`);
    expect(players.status).toBe(404);
    expect(await players.text()).not.toContain('dominoes_open_sockets');
    const own = await fetch(system.metricsUrl('gateway'));
    expect(own.status).toBe(200);
    expect(new URL(system.metricsUrl('gateway')).port).not.toBe(new URL(system.httpUrl).port);
    expect(await own.text()).toContain('# TYPE dominoes_open_sockets gauge');
  });

  it('/metrics of every service has the metrics the dashboards and alerts use', async () => {
    const [gateway, table, timer] = await Promise.all(SERVICES.map((s) => scrape(system, s)));
    // Gateway: open sockets, intents by outcome, action-to-view latency.
    expect(sample(gateway, 'dominoes_open_sockets')).toBe(4);
    expect(sample(gateway, 'dominoes_intents_total', { type: 'play', outcome: 'ok' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(sample(gateway, 'dominoes_action_to_view_seconds_count')).toBeGreaterThan(0);
    expect(gateway).toContain('# TYPE dominoes_action_to_view_seconds histogram');
    // Table-service: intents by outcome, tables by state.
    expect(
      sample(table, 'dominoes_intents_total', { kind: 'play', outcome: 'applied' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(table, 'dominoes_intents_total', { kind: 'deadline', outcome: 'applied' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(table, 'dominoes_active_tables', { state: 'playing' })).toBe(1);
    // Timer-service: deadline lateness, BullMQ queue depth.
    expect(sample(timer, 'dominoes_deadline_lateness_seconds_count')).toBeGreaterThan(0);
    expect(timer).toContain('# TYPE dominoes_deadline_lateness_seconds histogram');
    for (const state of ['wait', 'delayed', 'active', 'failed'])
      expect(sample(timer, 'dominoes_queue_depth', { queue: 'deadlines', state })).not.toBeNull();
    // Every service: the event-loop delay (prom-client's default metrics) and a help text for ours.
    for (const text of [gateway, table, timer]) {
      expect(sample(text, 'nodejs_eventloop_lag_seconds')).not.toBeNull();
      expect(sample(text, 'nodejs_eventloop_lag_p99_seconds')).not.toBeNull();
      for (const line of text.split('\n').filter((l) => l.startsWith('# HELP dominoes_')))
        expect(line.split(' ').length).toBeGreaterThan(3);
    }
  });

  it('every metric the Grafana dashboard and the chart’s alerts query is on the /metrics of some service', async () => {
    const exposed = (await Promise.all(SERVICES.map((s) => scrape(system, s)))).map(exposedMetrics);
    // deploy/helm/dominoes/dashboards/dominoes.json and templates/prometheusrule.yaml as helm renders it.
    const queries = [
      ...dashboardQueries(loadDashboard()),
      ...renderAlertRules().map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
    ];
    expect(queries.length).toBeGreaterThan(30);
    const PROMETHEUS_OWN = new Set(['up']); // made by Prometheus for every target
    const checked: string[] = [];
    const missing: string[] = [];
    for (const { where, expr } of queries) {
      for (const name of metricNames(expr)) {
        if (PROMETHEUS_OWN.has(name)) continue;
        checked.push(name);
        if (!exposed.some((metrics) => exposes(metrics, name))) missing.push(`${where}: ${name}`);
      }
    }
    expect(new Set(checked).size).toBeGreaterThanOrEqual(15);
    expect(missing).toEqual([]);
  });
});

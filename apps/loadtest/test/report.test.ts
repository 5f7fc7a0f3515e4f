import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from '../src/args';
import {
  REPORT_SCHEMA,
  renderHtml,
  socketsOnlyResult,
  summarizeService,
  writeReports,
  type Report,
} from '../src/report';
import { buildCost, type CostReport } from '../src/cost';
import type { ServiceSeries } from '../src/service-metrics';
import { Recorder } from '../src/stats';

function services(): ServiceSeries[] {
  return [
    {
      name: 'gateway',
      url: 'http://localhost:8080/metrics',
      samples: [
        { t: 0, cpu: null, cpuSeconds: 1, rssBytes: 100 * 2 ** 20, eventLoopP99Ms: 10, openSockets: 0 },
        { t: 5, cpu: 0.2, cpuSeconds: 2, rssBytes: 120 * 2 ** 20, eventLoopP99Ms: 11, openSockets: 400 },
        {
          t: 10,
          cpu: null,
          cpuSeconds: null,
          rssBytes: null,
          eventLoopP99Ms: null,
          openSockets: null,
          error: 'fetch failed',
        },
        { t: 15, cpu: 0.4, cpuSeconds: 6, rssBytes: 140 * 2 ** 20, eventLoopP99Ms: 14, openSockets: 400 },
      ],
    },
    {
      name: 'table-service',
      url: 'http://localhost:8081/metrics',
      samples: [
        { t: 0, cpu: null, cpuSeconds: 3, rssBytes: 90e6, eventLoopP99Ms: 10, openSockets: null },
        { t: 5, cpu: 0.6, cpuSeconds: 6, rssBytes: 95e6, eventLoopP99Ms: 12, openSockets: null },
      ],
    },
  ];
}

/** A cost section with every source: /proc, /metrics, Redis and Postgres (600 actions in 25 s). */
function makeCost(): CostReport {
  const group = (name: string, cpuMs: number, n: number) => ({
    group: name,
    cpuMs,
    cpuMsPerAction: cpuMs / 600,
    cores: cpuMs / 25_000,
    processesAtStart: n,
    processesAtEnd: n,
    started: 0,
    exited: 0,
  });
  return buildCost({
    actions: 600,
    denominator: 'acknowledged moves',
    windowSeconds: 25,
    alsoInWindow: { acknowledgedMoves: 600, hostIntents: 3, deadlineMoves: 1 },
    toolCpuMs: 1200,
    processes: {
      seconds: 25,
      clockTicksPerSecond: 100,
      groups: [
        group('postgres', 900, 12),
        group('redis-server', 600, 1),
        group('gateway', 3000, 1),
        group('table-service', 2400, 1),
        group('timer-service', 0, 0),
        group('loadtest', 1200, 1),
      ],
      note: 'process note',
    },
    services: [
      { name: 'gateway', fromT: 5, toT: 30, cpuMs: 2900, cpuMsPerAction: 4.833, cores: 0.116 },
      { name: 'timer-service', fromT: 5, toT: 30, cpuMs: 300, cpuMsPerAction: 0.5, cores: 0.012 },
    ],
    redis: {
      url: 'redis://127.0.0.1:6379',
      seconds: 25,
      commands: 9000,
      totalCommandsProcessed: 9000,
      netInputBytes: 600_000,
      netOutputBytes: 1_200_000,
      cpuMs: 650,
      cores: 0.026,
      topCommands: [
        { command: 'xadd', calls: 1200, perAction: 2, usecPerCall: 9.5 },
        { command: 'evalsha', calls: 600, perAction: 1, usecPerCall: 40 },
        { command: 'set<script>', calls: 5, perAction: 0.01, usecPerCall: 1 },
      ],
      perAction: {
        commands: 15,
        totalCommandsProcessed: 15,
        netInputBytes: 1000,
        netOutputBytes: 2000,
        cpuMs: 1.083,
      },
      note: 'redis note',
    },
    postgres: {
      database: 'dominoes',
      seconds: 25,
      commits: 1200,
      rollbacks: 0,
      rowsInserted: 600,
      rowsUpdated: 600,
      rowsDeleted: 0,
      rowsWritten: 1200,
      blocksHit: 30_000,
      blocksRead: 0,
      wal: { records: 2400, fpi: 10, bytes: 360_000 },
      walLsnBytes: 361_000,
      perAction: {
        commits: 2,
        rowsWritten: 2,
        rowsInserted: 1,
        rowsUpdated: 1,
        rowsDeleted: 0,
        blocksHit: 50,
        blocksRead: 0,
        walRecords: 4,
        walBytes: 600,
        walLsnBytes: 602,
      },
      note: 'postgres note',
    },
  });
}

/** A report as the run makes it, from a recorder fed by hand. */
function makeReport(overrides: Partial<Report> = {}): Report {
  const rec = new Recorder();
  rec.measuring = true;
  for (let s = 1; s <= 30; s++) {
    for (let i = 0; i < 20; i++) {
      rec.count('actions');
      rec.ownView(2 + (i % 7), true);
      rec.allViews(3 + (i % 11) * 2, true);
    }
    rec.deadlineLateness(5 + (s % 4));
    rec.connect.record(4);
    if (s === 12) rec.error('NOT_YOUR_TURN');
    rec.tick({
      t: s,
      phase: s < 5 ? 'ramp' : 'measure',
      tablesPlaying: 10,
      sockets: 40,
      toolCpu: 0.2,
      toolLagP99: 3,
    });
  }
  const config = parseArgs(['--tables', '10', '--duration', '25s', '--ramp', '5s'])!;
  const series = services();
  return {
    schema: REPORT_SCHEMA,
    startedAt: '2026-11-30T12:00:00.000Z',
    finishedAt: '2026-11-30T12:00:31.000Z',
    config,
    machine: {
      cpus: 2,
      model: 'test cpu',
      node: 'v20',
      platform: 'linux x64',
      totalMemoryBytes: 8e9,
      loadAverageStart: [0.5, 0.4, 0.3],
      loadAverageEnd: [1, 0.8, 0.5],
    },
    phases: { rampSeconds: 5, measureSeconds: 25, totalSeconds: 31 },
    tables: { requested: 10, opened: 10, failed: 0, playingAtEnd: 10 },
    sockets: { opened: 40, connectedAtEnd: 40 },
    totals: { ...rec.window, actionsPerSecond: 24, viewsPerSecond: 96, deadlineMovesPerSecond: 1.2 },
    run: { ...rec.run },
    latencyMs: {
      actionToOwnView: rec.own.summary(),
      actionToAllViews: rec.all.summary(),
      connect: rec.connect.summary(),
      join: rec.join.summary(),
      deadlineLateness: rec.lateness.summary(),
    },
    histograms: {
      actionToOwnView: rec.own.bucketList(),
      actionToAllViews: rec.all.bucketList(),
      connect: rec.connect.bucketList(),
      join: rec.join.bucketList(),
      deadlineLateness: rec.lateness.bucketList(),
    },
    errors: { ...rec.errorsRun },
    errorsInWindow: { ...rec.errorsWindow },
    disconnects: { total: 0, byCloseCode: {} },
    reconnects: 0,
    matchesFinished: 0,
    timeSeries: rec.series,
    services: { summary: series.map(summarizeService), series },
    socketsOnly: null,
    tool: {
      client: 'lean',
      cpuSeconds: 5,
      cpuMeanCores: 0.2,
      maxRssBytes: 80e6,
      eventLoopDelayP99Ms: 3,
      eventLoopDelayMaxMs: 9,
    },
    cost: makeCost(),
    warnings: ['a <warning> & more'],
    ...overrides,
  };
}

describe('report files', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'loadtest-report-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes report.json with every section and sane numbers', () => {
    const files = writeReports(join(dir, 'a'), makeReport());
    const json = JSON.parse(readFileSync(files.json, 'utf8')) as Report;
    expect(json.schema).toBe('dominoes-loadtest/1');
    for (const key of [
      'config',
      'machine',
      'phases',
      'tables',
      'totals',
      'run',
      'latencyMs',
      'histograms',
      'errors',
      'disconnects',
      'reconnects',
      'matchesFinished',
      'timeSeries',
      'services',
      'tool',
      'cost',
      'warnings',
    ])
      expect(json).toHaveProperty(key);
    for (const name of ['actionToOwnView', 'actionToAllViews', 'connect', 'deadlineLateness'] as const) {
      const s = json.latencyMs[name];
      expect(s.count).toBeGreaterThan(0);
      expect(s.p50!).toBeLessThanOrEqual(s.p90!);
      expect(s.p90!).toBeLessThanOrEqual(s.p95!);
      expect(s.p95!).toBeLessThanOrEqual(s.p99!);
      expect(s.p99!).toBeLessThanOrEqual(s.max!);
      expect(json.histograms[name].reduce((sum, b) => sum + b.count, 0)).toBe(s.count);
    }
    expect(json.latencyMs.join).toMatchObject({ count: 0, p99: null });
    expect(json.timeSeries).toHaveLength(30);
    expect(json.timeSeries[0]).toMatchObject({ t: 1, phase: 'ramp', actions: 20 });
    expect(json.errors).toEqual({ NOT_YOUR_TURN: 1 });
    expect(json.config.thinkMs).toEqual([1000, 3000]);
    expect(json.services.summary[0]).toMatchObject({
      name: 'gateway',
      samples: 4,
      failedSamples: 1,
      cpuMeanCores: 0.3,
      cpuMaxCores: 0.4,
      rssMaxBytes: 140 * 2 ** 20,
      eventLoopP99MaxMs: 14,
    });
  });

  it('writes one self-contained report.html with the SVG charts', () => {
    const files = writeReports(join(dir, 'b'), makeReport());
    const html = readFileSync(files.html, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    for (const title of [
      'Action-to-view latency (measure window)',
      'Deadline lateness',
      'Throughput',
      'Latency per second',
      'CPU per service, and of this tool',
      'Resident memory per service',
      'Event-loop delay p99 per service',
    ])
      expect(html).toContain(`aria-label="${title}`);
    expect((html.match(/<svg /g) ?? []).length).toBeGreaterThanOrEqual(7);
    // Histogram bars and time-series lines are drawn.
    expect(html).toMatch(
      /<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="[\d.]+" fill="#1f77b4"><title>own view/,
    );
    expect(html).toMatch(/<path d="M[\d.]+,[\d.]+L/);
    // No external assets, no scripts; text is escaped.
    expect(html).not.toMatch(/<script|<link|src="http|href="http|@import|url\(/);
    expect(html).toContain('a &lt;warning&gt; &amp; more');
  });

  it('without service metrics, says so and draws no empty service charts', () => {
    const html = renderHtml(makeReport({ services: { summary: [], series: [] } }));
    expect(html).toContain('No service metrics were sampled');
    expect(html).not.toContain('Resident memory per service');
    expect(html).toContain('aria-label="CPU of this tool"');
  });

  it('in idle mode, draws no empty action-latency histogram', () => {
    const report = makeReport();
    const idle = { ...report, config: { ...report.config, mode: 'idle' as const } };
    const html = renderHtml({
      ...idle,
      latencyMs: { ...idle.latencyMs, actionToAllViews: { ...idle.latencyMs.actionToAllViews, count: 0 } },
    });
    expect(html).not.toContain('aria-label="Action-to-view latency (measure window)"');
    expect(html).toContain('aria-label="Deadline lateness');
    expect(html).toContain('– (nobody moves)');
  });
});

describe('the cost section', () => {
  it('report.json holds the cost per action, and the HTML a CPU table by process with its source', () => {
    const report = makeReport();
    expect(report.cost.perAction.cpuMs).toEqual({
      postgres: 1.5,
      'redis-server': 1,
      gateway: 5,
      'table-service': 4,
      'timer-service': 0.5,
      loadtest: 2,
    });
    const html = renderHtml(report);
    expect(html).toContain('<h2>Cost per action</h2>');
    expect(html).toContain('600 acknowledged moves in the 25 s window');
    // /proc first, the /metrics figure beside it to compare; /metrics where /proc saw no process.
    expect(html).toContain(
      '<tr><th>gateway</th><td>5.000 (/metrics: 4.833)</td><td>3000</td><td>0.120</td><td>1 → 1</td><td>/proc</td></tr>',
    );
    expect(html).toContain(
      '<tr><th>timer-service</th><td>0.500</td><td>300</td><td>0.012</td><td>0 → 0</td><td>/metrics</td></tr>',
    );
    expect(html).toContain(
      '<tr><th>loadtest</th><td>2.000</td><td>1200</td><td>0.048</td><td>1 → 1</td><td>process.cpuUsage</td></tr>',
    );
    expect(html).toContain('<tr><th>xadd</th><td>1200</td><td>2.00</td><td>9.5</td></tr>');
    expect(html).toContain('set&lt;script&gt;');
    expect(html).toContain(
      '<tr><th>rows written / action</th><td>2.000 (inserted 600, updated 600, deleted 0)</td></tr>',
    );
    expect(html).toContain('redis note');
    expect(html).toContain('postgres note');
  });

  it('with nothing but the tool measured, says which options measure the rest', () => {
    const cost = buildCost({
      actions: 0,
      denominator: 'none',
      windowSeconds: 3,
      alsoInWindow: { acknowledgedMoves: 0, hostIntents: 0, deadlineMoves: 0 },
      toolCpuMs: 30,
      redis: null,
      postgres: null,
      processes: null,
      services: [],
    });
    expect(cost.perAction.cpuMs).toEqual({ loadtest: null });
    const html = renderHtml(makeReport({ cost }));
    expect(html).toContain('No actions to divide by');
    expect(html).toContain('pass <code>--local-procs</code>');
  });
});

describe('sockets only', () => {
  it('divides the gateway RSS growth by the sockets, skipping failed scrapes', () => {
    const result = socketsOnlyResult(services(), 400);
    expect(result).toEqual({
      sockets: 400,
      gateway: 'gateway',
      gatewayRssBeforeBytes: 100 * 2 ** 20,
      gatewayRssAfterBytes: 140 * 2 ** 20,
      gatewayOpenSocketsBefore: 0,
      gatewayOpenSocketsAfter: 400,
      bytesPerSocket: Math.round((40 * 2 ** 20) / 400),
    });
  });

  it('has no figure without a gateway scrape', () => {
    expect(socketsOnlyResult([services()[1]!], 400)).toMatchObject({ gateway: null, bytesPerSocket: null });
  });
});

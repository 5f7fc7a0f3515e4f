import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from '../src/args';
import {
  REPORT_SCHEMA,
  perSocket,
  renderHtml,
  socketsOnlyResult,
  summarizeService,
  writeReports,
  type Report,
} from '../src/report';
import { buildCost, type CostReport } from '../src/cost';
import { mergeReports } from '../src/merge';
import type { ServiceSeries } from '../src/service-metrics';
import { Recorder } from '../src/stats';

function services(): ServiceSeries[] {
  return [
    {
      name: 'gateway',
      url: 'http://localhost:8080/metrics',
      samples: [
        {
          t: 0,
          cpu: null,
          cpuSeconds: 1,
          rssBytes: 100 * 2 ** 20,
          heapUsedBytes: null,
          eventLoopP99Ms: 10,
          openSockets: 0,
        },
        {
          t: 5,
          cpu: 0.2,
          cpuSeconds: 2,
          rssBytes: 120 * 2 ** 20,
          heapUsedBytes: null,
          eventLoopP99Ms: 11,
          openSockets: 400,
        },
        {
          t: 10,
          cpu: null,
          cpuSeconds: null,
          rssBytes: null,
          heapUsedBytes: null,
          eventLoopP99Ms: null,
          openSockets: null,
          error: 'fetch failed',
        },
        {
          t: 15,
          cpu: 0.4,
          cpuSeconds: 6,
          rssBytes: 140 * 2 ** 20,
          heapUsedBytes: null,
          eventLoopP99Ms: 14,
          openSockets: 400,
        },
      ],
    },
    {
      name: 'table-service',
      url: 'http://localhost:8081/metrics',
      samples: [
        {
          t: 0,
          cpu: null,
          cpuSeconds: 3,
          rssBytes: 90e6,
          heapUsedBytes: null,
          eventLoopP99Ms: 10,
          openSockets: null,
        },
        {
          t: 5,
          cpu: 0.6,
          cpuSeconds: 6,
          rssBytes: 95e6,
          heapUsedBytes: null,
          eventLoopP99Ms: 12,
          openSockets: null,
        },
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

  it("a cluster's nodes and several databases: in report.json and report.html, and kept by merge", () => {
    const base = makeCost();
    const node = (address: string, role: 'primary' | 'replica', commands: number) => ({
      ...base.redis!,
      url: address,
      commands,
      perAction: { ...base.redis!.perAction!, commands: commands / 600 },
      id: `id-${address}`,
      address,
      role,
      roleAtEnd: role,
      primaryId: role === 'replica' ? 'id-h:1' : null,
      slots: role === 'primary' ? 16384 : 0,
    });
    const db = (name: string) => ({
      ...base.postgres!,
      database: name,
      url: `postgresql://h/${name}`,
      server: 'system 1',
    });
    const cost: CostReport = {
      ...base,
      redisNodes: [node('h:1', 'primary', 6000), node('h:2', 'replica', 3000)],
      postgresDatabases: [db('a'), db('b')],
    };
    const html = renderHtml(makeReport({ cost }));
    expect(html).toContain('<caption>Redis Cluster nodes</caption>');
    expect(html).toMatch(/<tr><th>h:1<\/th><td>primary<\/td><td>16384<\/td><td>10\.00 \(6000\)<\/td>/);
    expect(html).toMatch(/<tr><th>h:2<\/th><td>replica<\/td><td>0<\/td><td>5\.00 \(3000\)<\/td>/);
    expect(html).toContain('<caption>Postgres databases</caption>');
    expect(html).toContain('<tr><th>postgresql://h/b</th><td>system 1</td>');

    // Two slices of one run (the readings in the first): the sections are kept as they were.
    const config = parseArgs(['--tables', '10', '--duration', '25s', '--ramp', '5s', '--slice', '0/2'])!;
    const a = makeReport({
      cost,
      config: {
        ...config,
        redisClusterNodes: ['h:1'],
        databaseUrls: ['postgresql://h/a', 'postgresql://h/b'],
      },
    });
    const b = makeReport({
      config: { ...config, slice: { index: 1, count: 2 } },
      cost: { ...base, redis: null, postgres: null, processes: null, services: [] },
    });
    const rec = new Recorder();
    const latencyHistograms = {
      actionToOwnView: rec.own.serialized(),
      actionToAllViews: rec.all.serialized(),
      connect: rec.connect.serialized(),
      join: rec.join.serialized(),
      deadlineLateness: rec.lateness.serialized(),
    };
    const merged = mergeReports([
      { file: 'a.json', report: { ...a, latencyHistograms } },
      { file: 'b.json', report: { ...b, latencyHistograms } },
    ]);
    expect(merged.cost.redisNodes).toEqual(cost.redisNodes);
    expect(merged.cost.postgresDatabases).toEqual(cost.postgresDatabases);
    expect(merged.cost.perAction.redisCommands).toBe(base.perAction.redisCommands! / 2);
    expect(merged.config.redisClusterNodes).toEqual(['h:1']);
    expect(merged.config.databaseUrls).toEqual(['postgresql://h/a', 'postgresql://h/b']);
    // A one-Redis, one-database report has neither key.
    expect('redisNodes' in makeCost()).toBe(false);
    expect('postgresDatabases' in makeCost()).toBe(false);
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

/**
 * A measured 4,000-socket run (MB = 2^20 bytes): the gateway's RSS grows with the ramp, holds at
 * 230.2 MB, falls to 126.0 MB at a major GC and creeps back to 127.9; after the sockets close it
 * settles at 108 MB (heap used 30.6 MB). One scrape in the hold failed; the first scrape of the
 * settle still counts 1,200 sockets (the gateway had not seen every close yet).
 */
function measuredRun(): ServiceSeries {
  const MB = 2 ** 20;
  const at = (t: number, openSockets: number, rssMb: number, heapMb: number | null = null) => ({
    t,
    cpu: 0.1,
    cpuSeconds: t / 10,
    rssBytes: Math.round(rssMb * MB),
    heapUsedBytes: heapMb === null ? null : Math.round(heapMb * MB),
    eventLoopP99Ms: 5,
    openSockets,
  });
  return {
    name: 'gateway',
    url: 'http://localhost:8080/metrics',
    samples: [
      // The ramp (0–30 s).
      at(0, 0, 141.9, 60.2),
      at(5, 668, 152.8, 66),
      at(10, 1336, 167.3, 71),
      at(15, 2004, 183.3, 77),
      at(20, 2668, 200.8, 84),
      at(25, 3336, 217.0, 90),
      // The hold (30–90.2 s): 230.2 four times, then a major GC.
      at(30.1, 4000, 230.2, 95),
      at(35, 4000, 230.2, 97),
      at(40, 4000, 230.2, 99),
      at(45, 4000, 230.2, 101),
      at(50, 4000, 126.0, 48.2),
      at(55, 4000, 126.4, 49),
      {
        t: 60,
        cpu: null,
        cpuSeconds: null,
        rssBytes: null,
        heapUsedBytes: null,
        eventLoopP99Ms: null,
        openSockets: null,
        error: 'fetch failed',
      },
      at(65, 4000, 126.9, 50),
      at(70, 4000, 127.3, 51),
      at(75, 4000, 127.6, 52),
      at(80, 4000, 127.8, 53),
      at(85, 4000, 127.9, 54),
      at(90.2, 4000, 127.9, 55),
      // The settle (90.2–150.5 s).
      at(91, 1200, 127.9, 50),
      at(95, 0, 121.3, 40),
      at(100, 0, 112.0, 33),
      ...[105, 110, 115, 120, 125, 130, 135, 140, 145, 150.5].map((t) => at(t, 0, 108.0, 30.6)),
    ],
  };
}

const PHASES = { holdFrom: 30, holdTo: 90.2, settleTo: 150.5 };

describe('sockets only', () => {
  it('is the lowest held RSS minus the lowest RSS after closing, per socket: about 4.6 KB on the measured run', () => {
    const { result, warnings } = socketsOnlyResult([measuredRun()], 4000, PHASES);
    const MB = 2 ** 20;
    // The held minimum is 126.0 MB (just after the GC), not the 127.9 MB the hold ended on.
    expect(result.rssHeldMinBytes).toBe(126 * MB);
    expect(result.rssHeldMaxBytes).toBe(Math.round(230.2 * MB));
    expect(result.rssAfterCloseMinBytes).toBe(108 * MB);
    // (126.0 − 108.0) MB / 4000 = 4718.6 B ≈ 4.6 KB.
    expect(result.bytesPerSocket).toBe(4719);
    expect(result.bytesPerSocket! / 1024).toBeCloseTo(4.61, 2);
    expect(result).toMatchObject({
      sockets: 4000,
      gateway: 'gateway',
      holdFromSeconds: 30,
      holdToSeconds: 90.2,
      settleToSeconds: 150.5,
      // 4000 open from 30.1 s to 90.2 s, the failed scrape left out; the settle's 1,200 left out.
      heldSamples: 12,
      afterCloseSamples: 12,
      heapHeldMinBytes: Math.round(48.2 * MB),
      heapAfterCloseMinBytes: Math.round(30.6 * MB),
      heapPerSocket: Math.round((Math.round(48.2 * MB) - Math.round(30.6 * MB)) / 4000),
      // The old figure's readings, renamed: (127.9 − 141.9) MB / 4000 would be −3.6 KB per socket.
      rssFirstScrapeBytes: Math.round(141.9 * MB),
      openSocketsFirstScrape: 0,
      rssLastHeldScrapeBytes: Math.round(127.9 * MB),
      openSocketsLastHeldScrape: 4000,
    });
    expect(result.heapPerSocket).toBe(4614);
    expect(warnings).toEqual([]);
  });

  it('per socket: null when a side is missing or the difference is negative', () => {
    expect(perSocket(126e6, 108e6, 4000)).toBe(4500);
    expect(perSocket(108e6, 108e6, 4000)).toBe(0);
    expect(perSocket(100e6, 108e6, 4000)).toBeNull();
    expect(perSocket(null, 108e6, 4000)).toBeNull();
    expect(perSocket(126e6, null, 4000)).toBeNull();
    expect(perSocket(126e6, 108e6, 0)).toBeNull();
  });

  it('without a settle, has the held readings but no figure, and says why', () => {
    const { result, warnings } = socketsOnlyResult([measuredRun()], 4000, { ...PHASES, settleTo: null });
    expect(result).toMatchObject({
      rssHeldMinBytes: 126 * 2 ** 20,
      rssAfterCloseMinBytes: null,
      bytesPerSocket: null,
    });
    expect(result.heapPerSocket).toBeNull();
    expect(warnings).toEqual([expect.stringContaining('--settle 0')]);
  });

  it('leaves out scrapes where the gateway counted other sockets, and warns when none is left', () => {
    // Another client held 10 sockets on the gateway the whole time.
    const run = measuredRun();
    const crowded = {
      ...run,
      samples: run.samples.map((s) =>
        s.openSockets === null ? s : { ...s, openSockets: s.openSockets + 10 },
      ),
    };
    const { result, warnings } = socketsOnlyResult([crowded], 4000, PHASES);
    expect(result).toMatchObject({ heldSamples: 0, afterCloseSamples: 0, bytesPerSocket: null });
    expect(warnings).toEqual([
      expect.stringContaining(
        'no gateway scrape during the hold counted all 4000 sockets open (it counted 4010–4010)',
      ),
      expect.stringContaining(
        'no gateway scrape during the settle counted 0 open sockets (it counted 10–1210)',
      ),
    ]);
  });

  it('gives no figure when the held minimum is below the closed one', () => {
    const run = measuredRun();
    const grown = {
      ...run,
      samples: run.samples.map((s) =>
        s.t > PHASES.holdTo && s.rssBytes !== null ? { ...s, rssBytes: s.rssBytes + 30 * 2 ** 20 } : s,
      ),
    };
    const { result, warnings } = socketsOnlyResult([grown], 4000, PHASES);
    expect(result.bytesPerSocket).toBeNull();
    expect(result.rssAfterCloseMinBytes).toBe(138 * 2 ** 20);
    expect(warnings).toEqual([
      expect.stringContaining('126.0 MB) is below its lowest after they closed (138.0 MB)'),
    ]);
  });

  it('warns when RSS never fell in the hold (no major GC: the minimum still holds garbage)', () => {
    const run = measuredRun();
    const noGc = { ...run, samples: run.samples.filter((s) => !(s.t >= 50 && s.t <= 90.2)) };
    const { result, warnings } = socketsOnlyResult([noGc], 4000, PHASES);
    expect(result.rssHeldMinBytes).toBe(Math.round(230.2 * 2 ** 20));
    expect(result.bytesPerSocket).toBeGreaterThan(0);
    expect(warnings).toEqual([expect.stringContaining('never fell during the hold')]);
  });

  it('has no figure without a gateway scrape', () => {
    const { result, warnings } = socketsOnlyResult([services()[1]!], 400, PHASES);
    expect(result).toMatchObject({ gateway: null, bytesPerSocket: null, rssFirstScrapeBytes: null });
    expect(warnings).toEqual([expect.stringContaining('pass --metrics')]);
  });

  it('explains the figure in report.html, and marks the close on the charts', () => {
    const gateway = measuredRun();
    const { result } = socketsOnlyResult([gateway], 4000, PHASES);
    const report = makeReport({
      socketsOnly: result,
      services: { summary: [summarizeService(gateway)], series: [gateway] },
    });
    const html = renderHtml({ ...report, config: { ...report.config, socketsOnly: true } });
    expect(html).toContain('<h2>Memory per socket (sockets only)</h2>');
    expect(html).toContain('<b>4.61 KB</b><span>gateway RSS per socket (held min − closed min)</span>');
    expect(html).toContain('<tr><th>RSS held: min / max</th><td>126.0 MB / 230.2 MB');
    expect(html).toContain(
      '<tr><th>RSS closed: min</th><td>108.0 MB (12 scrapes with 0 sockets open, 60.3 s after closing them)',
    );
    expect(html).toContain('not the figure: first scrape → last held scrape');
    expect(html).toContain('RSS only comes down after a major GC');
    expect(html).toContain('>closed</text>');
  });
});

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
import type { ServiceSeries } from '../src/service-metrics';
import { Recorder } from '../src/stats';

function services(): ServiceSeries[] {
  return [
    {
      name: 'gateway',
      url: 'http://localhost:8080/metrics',
      samples: [
        { t: 0, cpu: null, rssBytes: 100 * 2 ** 20, eventLoopP99Ms: 10, openSockets: 0 },
        { t: 5, cpu: 0.2, rssBytes: 120 * 2 ** 20, eventLoopP99Ms: 11, openSockets: 400 },
        { t: 10, cpu: null, rssBytes: null, eventLoopP99Ms: null, openSockets: null, error: 'fetch failed' },
        { t: 15, cpu: 0.4, rssBytes: 140 * 2 ** 20, eventLoopP99Ms: 14, openSockets: 400 },
      ],
    },
    {
      name: 'table-service',
      url: 'http://localhost:8081/metrics',
      samples: [
        { t: 0, cpu: null, rssBytes: 90e6, eventLoopP99Ms: 10, openSockets: null },
        { t: 5, cpu: 0.6, rssBytes: 95e6, eventLoopP99Ms: 12, openSockets: null },
      ],
    },
  ];
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

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadConfig } from './args';
import { cpuRows, type CostReport } from './cost';
import type { SerializedHistogram } from './hist';
import type { PostgresDatabaseCost } from './postgres-cost';
import type { RedisNodeCost } from './redis-cluster-cost';
import type { ServiceSample, ServiceSeries } from './service-metrics';
import type { Bucket, Counters, LatencySummary, SecondPoint } from './stats';
import { escapeXml, formatMs, formatNumber, histogramChart, lineChart, type LineSeries } from './svg';

export const REPORT_SCHEMA = 'dominoes-loadtest/1';

export interface ServiceSummary {
  readonly name: string;
  readonly url: string;
  readonly samples: number;
  readonly failedSamples: number;
  readonly cpuMeanCores: number | null;
  readonly cpuMaxCores: number | null;
  readonly rssMaxBytes: number | null;
  readonly eventLoopP99MaxMs: number | null;
}

/**
 * The --sockets-only figure. RSS only comes down after a major GC, and a just-started gateway's RSS
 * holds start-up garbage: so the figure is the difference of two minimums of the same process, the
 * lowest RSS with every socket open (during the hold) and the lowest with none (after closing them,
 * during the settle), divided by the sockets: what the open sockets retain.
 */
export interface SocketsOnlyResult {
  readonly sockets: number;
  /** The service whose scrape has dominoes_open_sockets (a gateway), or null when none was sampled. */
  readonly gateway: string | null;
  /** The hold (every socket open) and the settle (after closing them), in seconds since the start. */
  readonly holdFromSeconds: number;
  readonly holdToSeconds: number;
  /** The settle's end; null with --settle 0. It starts at holdToSeconds. */
  readonly settleToSeconds: number | null;
  /** Gateway scrapes in the hold with exactly `sockets` open, and in the settle with 0 open. */
  readonly heldSamples: number;
  readonly afterCloseSamples: number;
  /** The lowest and highest gateway RSS among the held samples (the lowest: after a major GC). */
  readonly rssHeldMinBytes: number | null;
  readonly rssHeldMaxBytes: number | null;
  /** The lowest gateway RSS among the samples with 0 sockets open during the settle. */
  readonly rssAfterCloseMinBytes: number | null;
  /** (rssHeldMinBytes − rssAfterCloseMinBytes) / sockets; null when either is missing or it is negative. */
  readonly bytesPerSocket: number | null;
  /** The same two minimums of nodejs_heap_size_used_bytes, when the gateway has it. */
  readonly heapHeldMinBytes: number | null;
  readonly heapAfterCloseMinBytes: number | null;
  readonly heapPerSocket: number | null;
  /**
   * The first scrape (before the first socket: start-up garbage included) and the last one before the
   * sockets closed. Not the figure: GC moves RSS by tens of MB between any two single scrapes.
   */
  readonly rssFirstScrapeBytes: number | null;
  readonly openSocketsFirstScrape: number | null;
  readonly rssLastHeldScrapeBytes: number | null;
  readonly openSocketsLastHeldScrape: number | null;
}

/** When the run held the sockets and let the gateway settle: seconds on the samples' clock. */
export interface SocketsOnlyPhases {
  /** The hold: from the end of the ramp until the sockets are closed (where the settle starts). */
  readonly holdFrom: number;
  readonly holdTo: number;
  /** The settle's end, or null when there was none (--settle 0). */
  readonly settleTo: number | null;
}

export interface Report {
  readonly schema: typeof REPORT_SCHEMA;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly config: LoadConfig;
  readonly machine: {
    readonly cpus: number;
    readonly model: string;
    readonly node: string;
    readonly platform: string;
    readonly totalMemoryBytes: number;
    readonly loadAverageStart: readonly number[];
    readonly loadAverageEnd: readonly number[];
  };
  readonly phases: {
    readonly rampSeconds: number;
    readonly measureSeconds: number;
    readonly totalSeconds: number;
  };
  readonly tables: {
    readonly requested: number;
    readonly opened: number;
    readonly failed: number;
    readonly playingAtEnd: number;
  };
  readonly sockets: { readonly opened: number; readonly connectedAtEnd: number };
  /** The measure window (after the ramp). */
  readonly totals: Counters & {
    readonly actionsPerSecond: number;
    readonly viewsPerSecond: number;
    readonly deadlineMovesPerSecond: number;
  };
  /** The whole run, ramp included. */
  readonly run: Counters;
  readonly latencyMs: {
    readonly actionToOwnView: LatencySummary;
    readonly actionToAllViews: LatencySummary;
    readonly connect: LatencySummary;
    readonly join: LatencySummary;
    readonly deadlineLateness: LatencySummary;
  };
  readonly histograms: {
    readonly actionToOwnView: Bucket[];
    readonly actionToAllViews: Bucket[];
    readonly connect: Bucket[];
    readonly join: Bucket[];
    readonly deadlineLateness: Bucket[];
  };
  /** Error codes over the whole run, and in the window. */
  readonly errors: Record<string, number>;
  readonly errorsInWindow: Record<string, number>;
  readonly disconnects: { readonly total: number; readonly byCloseCode: Record<string, number> };
  readonly reconnects: number;
  readonly matchesFinished: number;
  readonly timeSeries: SecondPoint[];
  readonly services: { readonly summary: ServiceSummary[]; readonly series: ServiceSeries[] };
  readonly socketsOnly: SocketsOnlyResult | null;
  readonly tool: {
    readonly client: string;
    readonly cpuSeconds: number;
    readonly cpuMeanCores: number;
    readonly maxRssBytes: number;
    readonly eventLoopDelayP99Ms: number | null;
    readonly eventLoopDelayMaxMs: number | null;
  };
  /** The measured cost of one action in each process (--redis-url, --database-url, --local-procs, --metrics). */
  readonly cost: CostReport;
  readonly warnings: string[];
  /**
   * The latencies as mergeable histograms (hist.ts: sparse log-linear buckets of whole µs, 0.05 %):
   * `merge` adds them to compute the merged percentiles. Absent in reports of older versions.
   */
  readonly latencyHistograms?: LatencyHistograms;
  /** The wall clock of `t` = 0 of the time series (ms since the epoch): `merge` aligns series by it. */
  readonly clock?: { readonly t0EpochMs: number };
  /** Set by `merge`: the reports it joined (their directories, slices and counts). */
  readonly merged?: MergedFrom;
}

export interface LatencyHistograms {
  readonly actionToOwnView: SerializedHistogram;
  readonly actionToAllViews: SerializedHistogram;
  readonly connect: SerializedHistogram;
  readonly join: SerializedHistogram;
  readonly deadlineLateness: SerializedHistogram;
}

export interface MergedFrom {
  readonly reports: ReadonlyArray<{
    readonly file: string;
    readonly slice: string | null;
    readonly tablesRequested: number;
    readonly actions: number;
  }>;
}

const numbers = (values: (number | null)[]): number[] =>
  values.filter((v): v is number => v !== null && Number.isFinite(v));

export function summarizeService(series: ServiceSeries): ServiceSummary {
  const cpu = numbers(series.samples.map((s) => s.cpu));
  const rss = numbers(series.samples.map((s) => s.rssBytes));
  const loop = numbers(series.samples.map((s) => s.eventLoopP99Ms));
  return {
    name: series.name,
    url: series.url,
    samples: series.samples.length,
    failedSamples: series.samples.filter((s) => s.error !== undefined).length,
    cpuMeanCores: cpu.length ? Math.round((cpu.reduce((a, b) => a + b, 0) / cpu.length) * 1000) / 1000 : null,
    cpuMaxCores: cpu.length ? Math.max(...cpu) : null,
    rssMaxBytes: rss.length ? Math.max(...rss) : null,
    eventLoopP99MaxMs: loop.length ? Math.max(...loop) : null,
  };
}

const minOf = (values: readonly (number | null)[]): number | null => {
  const v = numbers([...values]);
  return v.length ? Math.min(...v) : null;
};

/** (held − after) / sockets in whole bytes; null when either is missing or the difference is negative. */
export function perSocket(held: number | null, after: number | null, sockets: number): number | null {
  if (held === null || after === null || sockets <= 0 || held < after) return null;
  return Math.round((held - after) / sockets);
}

/**
 * The --sockets-only figure from the gateway's samples: the lowest RSS while all `sockets` were open
 * during the hold minus the lowest with 0 open during the settle, per socket (see SocketsOnlyResult).
 * Scrapes that failed, and scrapes where the gateway counted another number of sockets (still
 * opening or closing, or other clients), are left out. Returns the result and the report's warnings.
 */
export function socketsOnlyResult(
  series: readonly ServiceSeries[],
  sockets: number,
  phases: SocketsOnlyPhases,
): { result: SocketsOnlyResult; warnings: string[] } {
  const gateway = series.find((s) => s.samples.some((x) => x.openSockets !== null)) ?? null;
  const ok = gateway?.samples.filter((s) => s.error === undefined && s.rssBytes !== null) ?? [];
  const inHold = ok.filter((s) => s.t >= phases.holdFrom && s.t <= phases.holdTo);
  const inSettle =
    phases.settleTo === null ? [] : ok.filter((s) => s.t > phases.holdTo && s.t <= phases.settleTo!);
  const held = inHold.filter((s) => s.openSockets === sockets);
  const after = inSettle.filter((s) => s.openSockets === 0);
  const rssHeldMinBytes = minOf(held.map((s) => s.rssBytes));
  const rssHeldMaxBytes = held.length ? Math.max(...held.map((s) => s.rssBytes!)) : null;
  const rssAfterCloseMinBytes = minOf(after.map((s) => s.rssBytes));
  const heapHeldMinBytes = minOf(held.map((s) => s.heapUsedBytes ?? null));
  const heapAfterCloseMinBytes = minOf(after.map((s) => s.heapUsedBytes ?? null));
  const bytesPerSocket = perSocket(rssHeldMinBytes, rssAfterCloseMinBytes, sockets);
  const first = ok[0] ?? null;
  const lastHeld = ok.filter((s) => s.t <= phases.holdTo).at(-1) ?? null;

  const warnings: string[] = [];
  const seen = (list: readonly ServiceSample[]) => {
    const counts = numbers(list.map((s) => s.openSockets));
    return counts.length ? `${Math.min(...counts)}–${Math.max(...counts)}` : 'none';
  };
  if (gateway === null || ok.length === 0)
    warnings.push(
      'Sockets only: no gateway RSS was sampled; pass --metrics <gateway URL>/metrics to get memory per socket.',
    );
  else {
    if (held.length === 0)
      warnings.push(
        `Sockets only: no gateway scrape during the hold counted all ${sockets} sockets open (it counted ${seen(inHold)}): is another client on this gateway, or were sockets lost? No memory per socket.`,
      );
    if (phases.settleTo === null)
      warnings.push(
        'Sockets only: --settle 0, so no reading with the sockets closed and no memory per socket.',
      );
    else if (after.length === 0)
      warnings.push(
        `Sockets only: no gateway scrape during the settle counted 0 open sockets (it counted ${seen(inSettle)}): is another client on this gateway, or was --settle shorter than --metrics-interval? No memory per socket.`,
      );
    if (rssHeldMinBytes !== null && rssAfterCloseMinBytes !== null && bytesPerSocket === null)
      warnings.push(
        `Sockets only: the gateway's lowest RSS with the sockets open (${mb(rssHeldMinBytes)}) is below its lowest after they closed (${mb(rssAfterCloseMinBytes)}): no memory per socket. Use more sockets, and a hold and settle long enough for major GCs.`,
      );
    if (
      bytesPerSocket !== null &&
      held.length >= 2 &&
      held.every((s, i) => i === 0 || s.rssBytes! >= held[i - 1]!.rssBytes!)
    )
      warnings.push(
        "Sockets only: the gateway's RSS never fell during the hold, so perhaps no major GC ran and the held minimum still includes garbage: hold longer.",
      );
  }
  return {
    result: {
      sockets,
      gateway: gateway?.name ?? null,
      holdFromSeconds: phases.holdFrom,
      holdToSeconds: phases.holdTo,
      settleToSeconds: phases.settleTo,
      heldSamples: held.length,
      afterCloseSamples: after.length,
      rssHeldMinBytes,
      rssHeldMaxBytes,
      rssAfterCloseMinBytes,
      bytesPerSocket,
      heapHeldMinBytes,
      heapAfterCloseMinBytes,
      heapPerSocket: perSocket(heapHeldMinBytes, heapAfterCloseMinBytes, sockets),
      rssFirstScrapeBytes: first?.rssBytes ?? null,
      openSocketsFirstScrape: first?.openSockets ?? null,
      rssLastHeldScrapeBytes: lastHeld?.rssBytes ?? null,
      openSocketsLastHeldScrape: lastHeld?.openSockets ?? null,
    },
    warnings,
  };
}

export function writeReports(dir: string, report: Report): { json: string; html: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'report.json');
  const html = join(dir, 'report.html');
  writeFileSync(json, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(html, renderHtml(report));
  return { json, html };
}

/* ------------------------------------------------------------------ */
/* HTML                                                                 */
/* ------------------------------------------------------------------ */

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

const ms = (v: number | null): string => (v === null ? '–' : formatMs(v));
const mb = (bytes: number | null): string => (bytes === null ? '–' : `${(bytes / 1048576).toFixed(1)} MB`);

function latencyRow(name: string, s: LatencySummary): string {
  return `<tr><th>${escapeXml(name)}</th><td>${s.count}</td><td>${ms(s.p50)}</td><td>${ms(s.p90)}</td><td>${ms(s.p95)}</td><td>${ms(s.p99)}</td><td>${ms(s.max)}</td></tr>`;
}

function countsTable(title: string, counts: Record<string, number>): string {
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  if (rows.length === 0) return `<p><b>${escapeXml(title)}:</b> none.</p>`;
  return (
    `<table class="small"><caption>${escapeXml(title)}</caption>` +
    rows.map(([k, v]) => `<tr><th>${escapeXml(k)}</th><td>${v}</td></tr>`).join('') +
    `</table>`
  );
}

const fixed = (v: number | null | undefined, digits: number): string =>
  v === null || v === undefined ? '–' : v.toFixed(digits);
const bytes = (v: number | null | undefined): string =>
  v === null || v === undefined ? '–' : v >= 10_240 ? `${formatNumber(v / 1024)} KB` : `${formatNumber(v)} B`;

/** A Redis Cluster's nodes, one row each: role, slots, commands, bytes and CPU per action, top commands. */
function redisNodesHtml(nodes: readonly RedisNodeCost[]): string {
  const top = (n: RedisNodeCost) =>
    n.topCommands
      .slice(0, 5)
      .map((c) => `${c.command} ${fixed(c.perAction, 2)}`)
      .join(', ');
  return (
    `<table class="small"><caption>Redis Cluster nodes</caption><tr><th>node</th><th>role</th><th>slots</th><th>commands / action</th><th>bytes in / out per action</th><th>CPU ms / action</th><th>top commands per action</th></tr>` +
    nodes
      .map(
        (n) =>
          `<tr><th>${escapeXml(n.address)}</th><td>${n.role}${n.roleAtEnd !== null && n.roleAtEnd !== n.role ? ` → ${n.roleAtEnd}` : ''}</td><td>${n.slots}</td><td>${fixed(n.perAction?.commands, 2)} (${n.commands})</td><td>${bytes(n.perAction?.netInputBytes)} / ${bytes(n.perAction?.netOutputBytes)}</td><td>${fixed(n.perAction?.cpuMs, 3)} (${n.cpuMs} ms)</td><td>${escapeXml(top(n))}</td></tr>`,
      )
      .join('') +
    `</table>`
  );
}

/** Several databases, one row each: commits, rows written, WAL and blocks per action. */
function postgresDatabasesHtml(databases: readonly PostgresDatabaseCost[]): string {
  return (
    `<table class="small"><caption>Postgres databases</caption><tr><th>database</th><th>server</th><th>commits / action</th><th>rows written / action</th><th>WAL bytes / action (server)</th><th>blocks hit / read per action</th></tr>` +
    databases
      .map(
        (d) =>
          `<tr><th>${escapeXml(d.url)}</th><td>${escapeXml(d.server)}</td><td>${fixed(d.perAction?.commits, 3)} (${d.commits})</td><td>${fixed(d.perAction?.rowsWritten, 3)} (${d.rowsWritten})</td><td>${bytes(d.perAction?.walBytes)}</td><td>${fixed(d.perAction?.blocksHit, 2)} / ${fixed(d.perAction?.blocksRead, 2)}</td></tr>`,
      )
      .join('') +
    `</table>`
  );
}

/** The cost section: CPU per action by process, then Redis and Postgres per action. */
export function costHtml(cost: CostReport): string {
  const parts: string[] = [];
  const what =
    cost.denominator === 'none'
      ? 'No actions to divide by (sockets only): totals only.'
      : `${cost.actions} ${cost.denominator} in the ${cost.windowSeconds} s window (also in the window: ${cost.alsoInWindow.hostIntents} host intents, ${cost.alsoInWindow.deadlineMoves} deadline moves${cost.denominator === 'deadline moves' ? '' : ', not counted as actions'}).`;
  parts.push(`<p>${escapeXml(what)}</p>`);

  const rows = cpuRows(cost).map(
    (c) =>
      `<tr><th>${escapeXml(c.group)}</th><td>${fixed(c.cpuMsPerAction, 3)}${c.metricsCpuMsPerAction === null ? '' : ` (/metrics: ${fixed(c.metricsCpuMsPerAction, 3)})`}</td><td>${fixed(c.cpuMs, 0)}</td><td>${fixed(c.cores, 3)}</td><td>${escapeXml(c.processes ?? '–')}</td><td>${escapeXml(c.source)}</td></tr>`,
  );
  parts.push(
    `<table><caption>CPU per action</caption><tr><th>process</th><th>CPU ms / action</th><th>CPU ms (window)</th><th>cores</th><th>processes (start → end)</th><th>source</th></tr>${rows.join('')}</table>`,
  );
  if (cost.processes) parts.push(`<p class="note">${escapeXml(cost.processes.note)}</p>`);

  const rd = cost.redis;
  if (rd) {
    const pa = rd.perAction;
    parts.push(
      `<table class="kv"><caption>Redis (${escapeXml(rd.url)}, ${rd.seconds} s)</caption>` +
        `<tr><th>commands / action</th><td>${fixed(pa?.commands, 2)} (${rd.commands} in the window; total_commands_processed ${rd.totalCommandsProcessed})</td></tr>` +
        `<tr><th>bytes in / out per action</th><td>${bytes(pa?.netInputBytes)} / ${bytes(pa?.netOutputBytes)}</td></tr>` +
        `<tr><th>Redis CPU ms / action</th><td>${fixed(pa?.cpuMs, 3)} (${rd.cpuMs} ms, ${rd.cores} cores)</td></tr></table>`,
      `<table class="small"><caption>Redis commands by count</caption><tr><th>command</th><th>calls</th><th>per action</th><th>µs per call</th></tr>` +
        rd.topCommands
          .slice(0, 15)
          .map(
            (c) =>
              `<tr><th>${escapeXml(c.command)}</th><td>${c.calls}</td><td>${fixed(c.perAction, 2)}</td><td>${fixed(c.usecPerCall, 1)}</td></tr>`,
          )
          .join('') +
        (rd.topCommands.length > 15
          ? `<tr><th>${rd.topCommands.length - 15} more</th><td colspan="3">in report.json</td></tr>`
          : '') +
        `</table>`,
      `<p class="note">${escapeXml(rd.note)}</p>`,
    );
  }
  if (cost.redisNodes) parts.push(redisNodesHtml(cost.redisNodes));
  const pg = cost.postgres;
  if (pg) {
    const pa = pg.perAction;
    parts.push(
      `<table class="kv"><caption>Postgres (database ${escapeXml(pg.database)}, ${pg.seconds} s)</caption>` +
        `<tr><th>commits / action</th><td>${fixed(pa?.commits, 3)} (${pg.commits} in the window, ${pg.rollbacks} rollbacks)</td></tr>` +
        `<tr><th>rows written / action</th><td>${fixed(pa?.rowsWritten, 3)} (inserted ${pg.rowsInserted}, updated ${pg.rowsUpdated}, deleted ${pg.rowsDeleted})</td></tr>` +
        `<tr><th>WAL bytes / action</th><td>${bytes(pa?.walBytes)} (pg_stat_wal: ${pg.wal ? `${pg.wal.bytes} B, ${pg.wal.records} records` : 'not available'}; WAL position: ${pg.walLsnBytes ?? '–'} B)</td></tr>` +
        `<tr><th>blocks hit / read per action</th><td>${fixed(pa?.blocksHit, 2)} / ${fixed(pa?.blocksRead, 2)}</td></tr></table>`,
      `<p class="note">${escapeXml(pg.note)}</p>`,
    );
  }
  if (cost.postgresDatabases) parts.push(postgresDatabasesHtml(cost.postgresDatabases));
  if (!rd && !pg && !cost.processes && cost.services.length === 0)
    parts.push(
      '<p>Only this tool’s CPU was measured: pass <code>--local-procs</code>, <code>--redis-url</code>, <code>--database-url</code> or <code>--metrics</code> for the rest.</p>',
    );
  return parts.join('\n');
}

/** The --sockets-only section: the figure, the readings it comes from, and how it is measured. */
export function socketsOnlyHtml(so: SocketsOnlyResult): string {
  const kb = (v: number | null) => (v === null ? '–' : `${formatNumber(v / 1024)} KB`);
  const settle =
    so.settleToSeconds === null
      ? 'no settle (--settle 0)'
      : `${(so.settleToSeconds - so.holdToSeconds).toFixed(1)} s after closing them`;
  const row = (k: string, v: string) => `<tr><th>${k}</th><td>${escapeXml(v)}</td></tr>`;
  return (
    `<h2>Memory per socket (sockets only)</h2>` +
    `<table class="kv"><caption>Gateway (${escapeXml(so.gateway ?? 'not sampled')}), ${so.sockets} sockets</caption>` +
    row('RSS per socket', `${kb(so.bytesPerSocket)} = (held min − closed min) / ${so.sockets}`) +
    row(
      'RSS held: min / max',
      `${mb(so.rssHeldMinBytes)} / ${mb(so.rssHeldMaxBytes)} (${so.heldSamples} scrapes with all ${so.sockets} sockets open, ${so.holdFromSeconds}–${so.holdToSeconds} s)`,
    ) +
    row(
      'RSS closed: min',
      `${mb(so.rssAfterCloseMinBytes)} (${so.afterCloseSamples} scrapes with 0 sockets open, ${settle})`,
    ) +
    row(
      'heap used per socket',
      `${kb(so.heapPerSocket)} (held min ${mb(so.heapHeldMinBytes)}, closed min ${mb(so.heapAfterCloseMinBytes)})`,
    ) +
    row(
      'not the figure: first scrape → last held scrape',
      `${mb(so.rssFirstScrapeBytes)} (${so.openSocketsFirstScrape ?? '–'} sockets) → ${mb(so.rssLastHeldScrapeBytes)} (${so.openSocketsLastHeldScrape ?? '–'} sockets)`,
    ) +
    `</table>` +
    `<p class="note">${escapeXml(
      'RSS only comes down after a major GC, which moves it by tens of MB, and a just-started gateway holds start-up garbage: a difference of two single scrapes (such as the first and the last) says little. So both sides are minimums of the same process: the lowest RSS while every socket was open (after a GC) and the lowest once they were closed and the gateway settled (after another). Their difference is what the open sockets retain. Hold and settle long enough for major GCs; the held max shows how far garbage took RSS.',
    )}</p>`
  );
}

export function renderHtml(r: Report): string {
  const c = r.config;
  // The drain's last, partial second would read as a drop in throughput: the charts stop at the window's end.
  const ts = r.timeSeries.filter((p) => p.phase !== 'drain');
  const rampEnd = { x: r.phases.rampSeconds, label: 'measuring' };
  const measureEnd = { x: r.phases.rampSeconds + r.phases.measureSeconds, label: 'end' };
  const so = r.socketsOnly;
  const marks =
    so && so.settleToSeconds !== null
      ? [rampEnd, measureEnd, { x: so.holdToSeconds, label: 'closed' }]
      : [rampEnd, measureEnd];
  const line = (name: string, color: string, pick: (p: SecondPoint) => number | null, dashed = false) =>
    ({ name, color, dashed, points: ts.map((p) => [p.t, pick(p)] as const) }) satisfies LineSeries;

  const acting = c.mode === 'play' && !c.socketsOnly;
  const charts: string[] = [];
  if (acting || r.latencyMs.actionToAllViews.count > 0)
    charts.push(
      histogramChart({
        title: 'Action-to-view latency (measure window)',
        series: [
          { name: 'own view', color: COLORS[0]!, buckets: r.histograms.actionToOwnView },
          { name: 'all views', color: COLORS[1]!, buckets: r.histograms.actionToAllViews },
        ],
      }),
    );
  if (r.histograms.deadlineLateness.length > 0)
    charts.push(
      histogramChart({
        title: 'Deadline lateness: the deadline move’s view arrival minus the deadline (measure window)',
        series: [{ name: 'lateness', color: COLORS[3]!, buckets: r.histograms.deadlineLateness }],
      }),
    );
  charts.push(
    lineChart({
      title: 'Throughput',
      xLabel: 'seconds since start',
      yLabel: 'per second',
      marks,
      series: [
        line('actions/s', COLORS[0]!, (p) => p.actions),
        line('deadline moves/s', COLORS[3]!, (p) => p.deadlineMoves),
        line('errors/s', COLORS[1]!, (p) => p.errors),
      ],
    }),
    lineChart({
      title: 'Latency per second',
      xLabel: 'seconds since start',
      yLabel: 'ms',
      marks,
      yFormat: formatNumber,
      series: [
        line('all views p50', COLORS[2]!, (p) => p.allP50),
        line('all views p99', COLORS[1]!, (p) => p.allP99),
        line('own view p99', COLORS[0]!, (p) => p.ownP99, true),
        ...(r.latencyMs.deadlineLateness.count > 0
          ? [line('deadline lateness p99', COLORS[3]!, (p) => p.latenessP99, true)]
          : []),
      ],
    }),
    lineChart({
      title: 'Tables playing and open sockets',
      xLabel: 'seconds since start',
      yLabel: 'count',
      marks,
      series: [
        line('tables playing', COLORS[0]!, (p) => p.tablesPlaying),
        line('sockets', COLORS[4]!, (p) => p.sockets),
      ],
    }),
  );
  const svc = r.services.series;
  const svcLine = (pick: (s: ServiceSeries['samples'][number]) => number | null) =>
    svc.map((s, i) => ({
      name: s.name,
      color: COLORS[i % COLORS.length]!,
      points: s.samples.map((x) => [x.t, pick(x)] as const),
    }));
  charts.push(
    lineChart({
      title: svc.length > 0 ? 'CPU per service, and of this tool' : 'CPU of this tool',
      xLabel: 'seconds since start',
      yLabel: 'cores',
      marks,
      series: [
        ...svcLine((x) => x.cpu),
        { name: 'loadtest', color: '#777', dashed: true, points: ts.map((p) => [p.t, p.toolCpu] as const) },
      ],
    }),
  );
  if (svc.length > 0)
    charts.push(
      lineChart({
        title: 'Resident memory per service',
        xLabel: 'seconds since start',
        yLabel: 'MB',
        marks,
        series: svcLine((x) => (x.rssBytes === null ? null : x.rssBytes / 1048576)),
      }),
      lineChart({
        title: 'Event-loop delay p99 per service',
        xLabel: 'seconds since start',
        yLabel: 'ms',
        marks,
        series: svcLine((x) => x.eventLoopP99Ms),
      }),
    );

  const t = r.totals;
  const lat = r.latencyMs;
  const config = [
    ['url', c.url],
    ['tables', String(c.tables)],
    ['variant', `${c.variant}, ${c.seats} seats, to ${c.target}`],
    ['mode', c.socketsOnly ? 'sockets only' : c.mode],
    [
      'think',
      !acting
        ? '– (nobody moves)'
        : c.thinkMs[1] === 0
          ? 'none'
          : `${formatMs(c.thinkMs[0])} – ${formatMs(c.thinkMs[1])}`,
    ],
    ['ramp / measure', `${r.phases.rampSeconds} s / ${r.phases.measureSeconds} s`],
    ['seed', c.seed],
    [
      'machine',
      `${r.machine.cpus} × ${r.machine.model}, node ${r.machine.node}, load ${r.machine.loadAverageStart.map((l) => l.toFixed(2)).join(' ')} → ${r.machine.loadAverageEnd.map((l) => l.toFixed(2)).join(' ')}`,
    ],
    ['started', r.startedAt],
  ];
  const servicesTable =
    r.services.summary.length === 0
      ? '<p>No service metrics were sampled (pass <code>--metrics</code>).</p>'
      : `<table><tr><th>service</th><th>CPU mean</th><th>CPU max</th><th>RSS max</th><th>event-loop p99 max</th><th>samples (failed)</th></tr>` +
        r.services.summary
          .map(
            (s) =>
              `<tr><th>${escapeXml(s.name)}</th><td>${s.cpuMeanCores ?? '–'}</td><td>${s.cpuMaxCores ?? '–'}</td><td>${mb(s.rssMaxBytes)}</td><td>${ms(s.eventLoopP99MaxMs)}</td><td>${s.samples} (${s.failedSamples})</td></tr>`,
          )
          .join('') +
        `</table>`;

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Load test ${escapeXml(r.startedAt)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1140px}
h1{font-size:22px;margin:0 0 8px}h2{font-size:17px;margin:28px 0 8px}
table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 10px;border-bottom:1px solid #e3e3e3;text-align:right}
th:first-child{text-align:left}caption{text-align:left;font-weight:600;padding:4px 0}
.kv th{font-weight:600}.kv td{text-align:left}.small{display:inline-table;margin-right:32px;vertical-align:top}
.figures{display:flex;gap:14px;flex-wrap:wrap;margin:12px 0}.fig{border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:140px}
.fig b{display:block;font-size:20px}.fig span{color:#666;font-size:12px}
.note{color:#555;font-size:12px;margin:2px 0 12px}.warn{background:#fff4e0;border:1px solid #f0c070;padding:6px 10px;border-radius:4px;margin:6px 0}
svg.chart{display:block;margin:10px 0;border:1px solid #eee}
svg .title{font:600 14px system-ui,sans-serif}svg .legend,svg .tick,svg .label,svg .marklabel,svg .empty{font:11px system-ui,sans-serif;fill:#444}
svg .grid{stroke:#e6e6e6}svg .grid.faint{stroke:#f3f3f3}svg .axis{stroke:#888}svg .mark{stroke:#999;stroke-dasharray:3,3}
</style></head><body>
<h1>Dominoes load test</h1>
${r.merged && r.merged.reports.length > 1 ? `<p class="note">Merged from ${r.merged.reports.length} reports (${r.merged.reports.map((m) => escapeXml(m.slice === null ? m.file : `slice ${m.slice}: ${m.tablesRequested} tables, ${m.actions} actions`)).join('; ')}): counts and rates summed, latency percentiles from the merged histograms; per-second latencies are the highest of the reports'.</p>` : ''}
<table class="kv">${config.map(([k, v]) => `<tr><th>${escapeXml(k!)}</th><td>${escapeXml(v!)}</td></tr>`).join('')}</table>
${r.warnings.map((w) => `<div class="warn">${escapeXml(w)}</div>`).join('\n')}
<div class="figures">
<div class="fig"><b>${r.tables.opened}/${r.tables.requested}</b><span>tables opened (${r.tables.failed} failed)</span></div>
<div class="fig"><b>${formatNumber(t.actionsPerSecond)}</b><span>actions/s (window)</span></div>
<div class="fig"><b>${ms(lat.actionToAllViews.p99)}</b><span>p99 action → all views</span></div>
<div class="fig"><b>${ms(lat.actionToOwnView.p99)}</b><span>p99 action → own view</span></div>
<div class="fig"><b>${ms(lat.deadlineLateness.p99)}</b><span>p99 deadline lateness</span></div>
<div class="fig"><b>${t.errors}</b><span>errors (window; run ${r.run.errors})</span></div>
<div class="fig"><b>${r.disconnects.total}</b><span>disconnects (${r.reconnects} reconnects)</span></div>
<div class="fig"><b>${t.matchesFinished}</b><span>matches finished (window)</span></div>
${so ? `<div class="fig"><b>${so.bytesPerSocket === null ? '–' : `${formatNumber(so.bytesPerSocket / 1024)} KB`}</b><span>gateway RSS per socket (held min − closed min)</span></div>` : ''}
</div>
<h2>Latency</h2>
<table><tr><th></th><th>count</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>max</th></tr>
${latencyRow('action → own view', lat.actionToOwnView)}
${latencyRow('action → all views', lat.actionToAllViews)}
${latencyRow('deadline lateness', lat.deadlineLateness)}
${latencyRow('connect (socket → welcome)', lat.connect)}
${latencyRow('join (join → ack)', lat.join)}
</table>
<h2>Charts</h2>
${charts.join('\n')}
<h2>Counts</h2>
<table><tr><th></th><th>window</th><th>whole run</th></tr>
${(
  [
    'actions',
    'hostIntents',
    'views',
    'viewsRead',
    'deadlineMoves',
    'matchesFinished',
    'errors',
    'disconnects',
    'reconnects',
    'reconnectFailures',
    'unmatched',
  ] as const
)
  .map((k) => `<tr><th>${k}</th><td>${t[k]}</td><td>${r.run[k]}</td></tr>`)
  .join('')}
</table>
${countsTable('Errors by code (whole run)', r.errors)}
${countsTable('Disconnects by close code', r.disconnects.byCloseCode)}
<h2>Services</h2>
${servicesTable}
${so ? socketsOnlyHtml(so) : ''}
<h2>Cost per action</h2>
${costHtml(r.cost)}
<h2>This tool</h2>
<p>${escapeXml(r.tool.client)}; CPU ${r.tool.cpuSeconds.toFixed(1)} s (${r.tool.cpuMeanCores.toFixed(2)} cores on average), RSS max ${mb(r.tool.maxRssBytes)}, event-loop delay p99 ${ms(r.tool.eventLoopDelayP99Ms)} (max ${ms(r.tool.eventLoopDelayMaxMs)}).</p>
</body></html>
`;
}

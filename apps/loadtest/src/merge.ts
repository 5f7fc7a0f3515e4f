/**
 * `npm run loadtest -- merge <report.json>... --out <dir>`: the reports of one run's slices (the
 * processes of --workers, or the pods of an Indexed Job) joined into one report.json and one
 * report.html. Counts and rates are summed; the latency percentiles come from the merged histograms
 * (hist.ts: the buckets' counts added, so they are the percentiles of every sample together); the
 * time series are aligned on the wall clock and summed.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LoadConfig } from './args';
import type { CostReport } from './cost';
import { mergeHistograms, SparseHistogram, type SerializedHistogram } from './hist';
import { REPORT_SCHEMA, type LatencyHistograms, type Report } from './report';
import type { ServiceSeries } from './service-metrics';
import {
  BUCKETS_PER_DECADE,
  bucketFromMs,
  summarizeSparse,
  zeroCounters,
  type Bucket,
  type Counters,
  type SecondPoint,
} from './stats';

export class MergeError extends Error {
  override readonly name = 'MergeError';
}

export interface NamedReport {
  /** Where it was read from (for messages and the merged report's `merged`). */
  readonly file: string;
  readonly report: Report;
}

/** The flags that make a run what it is: reports that differ in any of them are not one run. */
const RUN_KEYS = [
  'url',
  'tables',
  'variant',
  'seats',
  'target',
  'thinkMs',
  'rampMs',
  'durationMs',
  'mode',
  'socketsOnly',
  'settleMs',
  'seed',
  'replyTimeoutMs',
  'seatRate',
] as const satisfies readonly (keyof LoadConfig)[];

const FLAG: Record<(typeof RUN_KEYS)[number], string> = {
  url: '--url',
  tables: '--tables',
  variant: '--variant',
  seats: '--seats',
  target: '--target',
  thinkMs: '--think',
  rampMs: '--ramp',
  durationMs: '--duration',
  mode: '--mode',
  socketsOnly: '--sockets-only',
  settleMs: '--settle',
  seed: '--seed',
  replyTimeoutMs: '--reply-timeout',
  seatRate: '--seat-rate',
};

const LATENCIES = ['actionToOwnView', 'actionToAllViews', 'connect', 'join', 'deadlineLateness'] as const;

/**
 * A report.json, or a pod's log (`kubectl logs`: stderr lines and the one-line report of
 * --print-report): the last line that is a report is taken.
 */
export function readReport(file: string): NamedReport {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new MergeError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parse = (t: string): Report | null => {
    try {
      const value = JSON.parse(t) as unknown;
      return value !== null && typeof value === 'object' && 'schema' in value ? (value as Report) : null;
    } catch {
      return null;
    }
  };
  const report =
    parse(text) ??
    text
      .split('\n')
      .reverse()
      .map((line) => (line.trimStart().startsWith('{"schema"') ? parse(line) : null))
      .find((r) => r !== null);
  if (!report) throw new MergeError(`${file} holds no load-test report (report.json, or a log with one).`);
  return { file: resolve(file), report };
}

const sliceName = (c: LoadConfig): string | null => (c.slice ? `${c.slice.index}/${c.slice.count}` : null);

/** Refuses reports that are not slices of one run, with a sentence naming the report and the flag. */
function check(list: readonly NamedReport[]): void {
  if (list.length === 0) throw new MergeError('merge needs at least one report.json.');
  for (const { file, report } of list) {
    if (report.schema !== REPORT_SCHEMA)
      throw new MergeError(`${file} is not a load-test report (schema "${String(report.schema)}").`);
    if (report.latencyHistograms === undefined)
      throw new MergeError(
        `${file} has no latencyHistograms (an older version wrote it): its percentiles cannot be merged.`,
      );
  }
  const first = list[0]!;
  for (const other of list.slice(1)) {
    for (const key of RUN_KEYS) {
      const a = JSON.stringify(first.report.config[key]);
      const b = JSON.stringify(other.report.config[key]);
      if (a !== b)
        throw new MergeError(
          `${other.file} and ${first.file} are not the same run: ${FLAG[key]} differs (${key} ${b} and ${a}).`,
        );
    }
    const sa = first.report.config.slice?.count ?? null;
    const sb = other.report.config.slice?.count ?? null;
    if (sa !== sb)
      throw new MergeError(
        `${other.file} and ${first.file} are not slices of one run: --slice ${sliceName(other.report.config) ?? 'none'} and ${sliceName(first.report.config) ?? 'none'}.`,
      );
  }
  const seen = new Map<number, string>();
  for (const { file, report } of list) {
    const slice = report.config.slice;
    if (slice === null) continue;
    const before = seen.get(slice.index);
    if (before !== undefined)
      throw new MergeError(`${file} and ${before} are both slice ${slice.index}/${slice.count}.`);
    seen.set(slice.index, file);
  }
}

const sumBy = (records: readonly Record<string, number>[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const r of records) for (const [k, v] of Object.entries(r)) out[k] = (out[k] ?? 0) + v;
  return out;
};

const sumCounters = (list: readonly Counters[]): Counters => {
  const out = zeroCounters();
  for (const c of list) for (const k of Object.keys(out) as (keyof Counters)[]) out[k] += c[k];
  return out;
};

const round = (v: number, digits: number): number => Math.round(v * 10 ** digits) / 10 ** digits;
const maxOrNull = (values: readonly (number | null)[]): number | null => {
  const v = values.filter((x): x is number => x !== null);
  return v.length ? Math.max(...v) : null;
};

/** The log-scale chart buckets, added by bucket (they share one grid), the range's gaps kept. */
export function mergeBuckets(lists: readonly Bucket[][]): Bucket[] {
  const counts = new Map<number, number>();
  for (const list of lists)
    for (const b of list) {
      const i = Math.round(Math.log10(b.fromMs * 1000) * BUCKETS_PER_DECADE);
      counts.set(i, (counts.get(i) ?? 0) + b.count);
    }
  const used = [...counts.entries()].filter(([, n]) => n > 0).map(([i]) => i);
  if (used.length === 0) return [];
  const out: Bucket[] = [];
  for (let i = Math.min(...used); i <= Math.max(...used); i++)
    out.push({
      fromMs: Number(bucketFromMs(i).toPrecision(4)),
      toMs: Number(bucketFromMs(i + 1).toPrecision(4)),
      count: counts.get(i) ?? 0,
    });
  return out;
}

/**
 * The per-second series on one clock: point i of a report whose t = 0 came `d` whole seconds after
 * the earliest report's goes to slot i + d (a run ticks once a second from its t = 0). Counts,
 * tables, sockets and the tool's CPU are summed; the per-second latencies cannot be merged from
 * percentiles, so a slot has the highest of its points' (an upper bound of the merged one).
 */
function mergeSeries(list: readonly NamedReport[], offsets: readonly number[]): SecondPoint[] {
  const slots: { t: number; points: SecondPoint[] }[] = [];
  list.forEach(({ report }, r) => {
    const whole = Math.round(offsets[r]!);
    report.timeSeries.forEach((p, i) => {
      const slot = (slots[i + whole] ??= { t: -Infinity, points: [] });
      slot.t = Math.max(slot.t, round(p.t + offsets[r]!, 1));
      slot.points.push(p);
    });
  });
  const sum = (ps: SecondPoint[], k: keyof SecondPoint) => ps.reduce((s, p) => s + (p[k] as number), 0);
  const max = (ps: SecondPoint[], k: keyof SecondPoint) => maxOrNull(ps.map((p) => p[k] as number | null));
  return slots
    .filter((s) => s !== undefined)
    .map(({ t, points }) =>
      points.length === 1
        ? { ...points[0]!, t }
        : {
            t,
            phase: points[0]!.phase,
            actions: sum(points, 'actions'),
            views: sum(points, 'views'),
            errors: sum(points, 'errors'),
            disconnects: sum(points, 'disconnects'),
            deadlineMoves: sum(points, 'deadlineMoves'),
            tablesPlaying: sum(points, 'tablesPlaying'),
            sockets: sum(points, 'sockets'),
            ownP50: max(points, 'ownP50'),
            ownP99: max(points, 'ownP99'),
            allP50: max(points, 'allP50'),
            allP99: max(points, 'allP99'),
            latenessP99: max(points, 'latenessP99'),
            toolCpu: round(sum(points, 'toolCpu'), 3),
            toolLagP99: max(points, 'toolLagP99'),
          },
    );
}

const hasCostReadings = (c: CostReport): boolean =>
  c.redis !== null || c.postgres !== null || c.processes !== null || c.services.length > 0;

/**
 * The cost section: the Redis, Postgres, /proc and /metrics readings are whole-system counters, so
 * one report's are kept (the first that has any: --workers gives those flags to worker 0 only) and
 * its headline per-action figures are divided by the merged run's actions instead of its own.
 */
function mergeCost(list: readonly NamedReport[], warnings: string[]): CostReport {
  const costs = list.map((n) => n.report.cost);
  const withReadings = list.filter((n) => hasCostReadings(n.report.cost));
  const source = withReadings[0] ?? list[0]!;
  const src = source.report.cost;
  if (list.length === 1) return src;
  const actions = costs.reduce((s, c) => s + c.actions, 0);
  const factor = actions > 0 ? src.actions / actions : 0;
  const scale = (v: number | null): number | null =>
    v === null || actions === 0 ? null : Number((v * factor).toPrecision(6));
  const toolCpuMs = costs.reduce((s, c) => s + c.tool.cpuMs, 0);
  const cpuMs: Record<string, number | null> = {};
  for (const [group, v] of Object.entries(src.perAction.cpuMs)) cpuMs[group] = scale(v);
  cpuMs['loadtest'] = actions > 0 ? round(toolCpuMs / actions, 3) : null;
  if (withReadings.length > 1)
    warnings.push(
      `Cost: ${withReadings.length} reports read the stores and services (whole-system counters); only ${source.file}'s readings are kept.`,
    );
  if (withReadings.length > 0)
    warnings.push(
      `Cost: the readings are ${source.file}'s; the per-action headline (cost.perAction) is divided by the merged ${actions} actions, the sections' own per-action figures by that report's ${src.actions}.`,
    );
  return {
    ...src,
    actions,
    windowSeconds: Math.max(...costs.map((c) => c.windowSeconds)),
    alsoInWindow: {
      acknowledgedMoves: costs.reduce((s, c) => s + c.alsoInWindow.acknowledgedMoves, 0),
      hostIntents: costs.reduce((s, c) => s + c.alsoInWindow.hostIntents, 0),
      deadlineMoves: costs.reduce((s, c) => s + c.alsoInWindow.deadlineMoves, 0),
    },
    perAction: {
      ...src.perAction,
      cpuMs,
      redisCommands: scale(src.perAction.redisCommands),
      redisNetInputBytes: scale(src.perAction.redisNetInputBytes),
      redisNetOutputBytes: scale(src.perAction.redisNetOutputBytes),
      redisCpuMs: scale(src.perAction.redisCpuMs),
      pgCommits: scale(src.perAction.pgCommits),
      pgRowsWritten: scale(src.perAction.pgRowsWritten),
      pgWalBytes: scale(src.perAction.pgWalBytes),
    },
    tool: {
      cpuMs: round(toolCpuMs, 1),
      cores: round(
        costs.reduce((s, c) => s + c.tool.cores, 0),
        3,
      ),
    },
  };
}

/** Joins the reports of one run's slices into one report (a single report comes back as it was). */
export function mergeReports(list: readonly NamedReport[]): Report {
  check(list);
  const reports = list.map((n) => n.report);
  const first = reports[0]!;
  const merged = {
    reports: list.map(({ file, report }) => ({
      file,
      slice: sliceName(report.config),
      tablesRequested: report.tables.requested,
      actions: report.totals.actions,
    })),
  };
  if (list.length === 1) return { ...first, merged };

  const warnings: string[] = [];
  const slices = first.config.slice;
  if (slices !== null && list.length < slices.count) {
    const have = new Set(reports.map((r) => r.config.slice!.index));
    const missing = Array.from({ length: slices.count }, (_, i) => i).filter((i) => !have.has(i));
    warnings.push(
      `Merged ${list.length} of ${slices.count} slices: slices ${missing.join(', ')} are missing.`,
    );
  }
  for (const { file, report } of list)
    for (const w of report.warnings) warnings.push(`[${sliceName(report.config) ?? file}] ${w}`);

  // One clock: every report's time series and service samples, shifted to the earliest t = 0.
  const origins = reports.map((r) => r.clock?.t0EpochMs ?? null);
  const known = origins.filter((o): o is number => o !== null);
  const t0 = known.length ? Math.min(...known) : null;
  const offsets = origins.map((o) => (o === null || t0 === null ? 0 : (o - t0) / 1000));
  if (known.length < origins.length)
    warnings.push('Some reports have no clock (an older version): their time series are not aligned.');

  const histograms = Object.fromEntries(
    LATENCIES.map((k) => [k, mergeHistograms(reports.map((r) => r.latencyHistograms![k]))]),
  ) as unknown as LatencyHistograms;
  const summary = (h: SerializedHistogram) => summarizeSparse(SparseHistogram.from(h));

  const totals = sumCounters(reports.map((r) => r.totals));
  const services: ServiceSeries[] = [];
  const names = new Set<string>();
  list.forEach(({ report }, r) => {
    for (const s of report.services.series) {
      const name = names.has(s.name) ? `${s.name} (${sliceName(report.config) ?? r})` : s.name;
      names.add(name);
      services.push({
        ...s,
        name,
        samples: s.samples.map((x) => ({ ...x, t: round(x.t + offsets[r]!, 1) })),
      });
    }
  });
  const summaries = list.flatMap(({ report }) => report.services.summary);
  if (reports.some((r) => r.socketsOnly !== null))
    warnings.push(
      'Sockets only: the memory per socket is one process’s figure (its sockets against the gateway’s RSS); it is not merged (see each report; measure it with one process).',
    );
  const cost = mergeCost(list, warnings);
  const measureSeconds = Math.max(...reports.map((r) => r.phases.measureSeconds));

  return {
    schema: REPORT_SCHEMA,
    startedAt: reports.map((r) => r.startedAt).sort()[0]!,
    finishedAt: reports
      .map((r) => r.finishedAt)
      .sort()
      .at(-1)!,
    config: {
      ...first.config,
      slice: null,
      workers: Math.max(...reports.map((r) => r.config.workers ?? 1)),
      ...(() => {
        const withReadings = reports.find((r) => hasCostReadings(r.cost)) ?? first;
        const c = withReadings.config;
        return {
          metrics: c.metrics,
          redisUrl: c.redisUrl,
          ...(c.redisClusterNodes ? { redisClusterNodes: c.redisClusterNodes } : {}),
          databaseUrl: c.databaseUrl,
          ...(c.databaseUrls ? { databaseUrls: c.databaseUrls } : {}),
          localProcs: c.localProcs,
        };
      })(),
    },
    machine: first.machine,
    phases: {
      rampSeconds: Math.max(...reports.map((r) => r.phases.rampSeconds)),
      measureSeconds,
      totalSeconds: Math.max(...reports.map((r) => r.phases.totalSeconds)),
    },
    tables: {
      requested: reports.reduce((s, r) => s + r.tables.requested, 0),
      opened: reports.reduce((s, r) => s + r.tables.opened, 0),
      failed: reports.reduce((s, r) => s + r.tables.failed, 0),
      playingAtEnd: reports.reduce((s, r) => s + r.tables.playingAtEnd, 0),
    },
    sockets: {
      opened: reports.reduce((s, r) => s + r.sockets.opened, 0),
      connectedAtEnd: reports.reduce((s, r) => s + r.sockets.connectedAtEnd, 0),
    },
    totals: {
      ...totals,
      actionsPerSecond: round(
        reports.reduce((s, r) => s + r.totals.actionsPerSecond, 0),
        1,
      ),
      viewsPerSecond: round(
        reports.reduce((s, r) => s + r.totals.viewsPerSecond, 0),
        1,
      ),
      deadlineMovesPerSecond: round(
        reports.reduce((s, r) => s + r.totals.deadlineMovesPerSecond, 0),
        1,
      ),
    },
    run: sumCounters(reports.map((r) => r.run)),
    latencyMs: {
      actionToOwnView: summary(histograms.actionToOwnView),
      actionToAllViews: summary(histograms.actionToAllViews),
      connect: summary(histograms.connect),
      join: summary(histograms.join),
      deadlineLateness: summary(histograms.deadlineLateness),
    },
    histograms: {
      actionToOwnView: mergeBuckets(reports.map((r) => r.histograms.actionToOwnView)),
      actionToAllViews: mergeBuckets(reports.map((r) => r.histograms.actionToAllViews)),
      connect: mergeBuckets(reports.map((r) => r.histograms.connect)),
      join: mergeBuckets(reports.map((r) => r.histograms.join)),
      deadlineLateness: mergeBuckets(reports.map((r) => r.histograms.deadlineLateness)),
    },
    errors: sumBy(reports.map((r) => r.errors)),
    errorsInWindow: sumBy(reports.map((r) => r.errorsInWindow)),
    disconnects: {
      total: reports.reduce((s, r) => s + r.disconnects.total, 0),
      byCloseCode: sumBy(reports.map((r) => r.disconnects.byCloseCode)),
    },
    reconnects: reports.reduce((s, r) => s + r.reconnects, 0),
    matchesFinished: reports.reduce((s, r) => s + r.matchesFinished, 0),
    timeSeries: mergeSeries(list, offsets),
    services: {
      summary: summaries.map((s, i) => ({ ...s, name: services[i]?.name ?? s.name })),
      series: services,
    },
    socketsOnly: null,
    tool: {
      client: first.tool.client,
      cpuSeconds: round(
        reports.reduce((s, r) => s + r.tool.cpuSeconds, 0),
        1,
      ),
      cpuMeanCores: round(
        reports.reduce((s, r) => s + r.tool.cpuMeanCores, 0),
        2,
      ),
      maxRssBytes: Math.max(...reports.map((r) => r.tool.maxRssBytes)),
      eventLoopDelayP99Ms: maxOrNull(reports.map((r) => r.tool.eventLoopDelayP99Ms)),
      eventLoopDelayMaxMs: maxOrNull(reports.map((r) => r.tool.eventLoopDelayMaxMs)),
    },
    cost,
    warnings,
    latencyHistograms: histograms,
    ...(t0 === null ? {} : { clock: { t0EpochMs: t0 } }),
    merged,
  };
}

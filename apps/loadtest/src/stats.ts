import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { SparseHistogram, type SerializedHistogram } from './hist';

/** Latencies are recorded in microseconds, from 1 µs to 10 minutes, with 3 significant figures. */
const HIGHEST_US = 600_000_000;

export interface LatencySummary {
  readonly count: number;
  readonly p50: number | null;
  readonly p90: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
  readonly max: number | null;
  readonly mean: number | null;
}

/** One bar of a log-scale histogram: [fromMs, toMs), count. */
export interface Bucket {
  readonly fromMs: number;
  readonly toMs: number;
  readonly count: number;
}

const toUs = (ms: number): number => Math.min(HIGHEST_US, Math.max(1, Math.round(ms * 1000)));
const round3 = (ms: number): number => Math.round(ms * 1000) / 1000;

export const newHistogram = (): RecordableHistogram =>
  createHistogram({ lowest: 1, highest: HIGHEST_US, figures: 3 });

export function recordMs(h: RecordableHistogram, ms: number): void {
  h.record(toUs(ms));
}

/** p50/p90/p95/p99/max/mean of a µs histogram, in ms (null when empty). */
export function summarize(h: RecordableHistogram): LatencySummary {
  return summaryOf(h.count, (p) => h.percentile(p), h.max, h.mean);
}

/** The summary of `count` samples from their percentiles, max and mean in µs (null fields when empty). */
function summaryOf(
  count: number,
  percentileUs: (p: number) => number,
  maxUs: number,
  meanUs: number,
): LatencySummary {
  if (count === 0) return { count: 0, p50: null, p90: null, p95: null, p99: null, max: null, mean: null };
  const ms = (us: number) => round3(us / 1000);
  return {
    count,
    p50: ms(percentileUs(50)),
    p90: ms(percentileUs(90)),
    p95: ms(percentileUs(95)),
    p99: ms(percentileUs(99)),
    max: ms(maxUs),
    mean: ms(meanUs),
  };
}

/**
 * p50/p90/p95/p99/max/mean of a sparse (mergeable) histogram, in ms: the percentiles within 0.05 %
 * (hist.ts), the max and mean exact (of the whole-µs values).
 */
export function summarizeSparse(h: SparseHistogram): LatencySummary {
  const count = h.count;
  return summaryOf(count, (p) => h.percentileUs(p)!, h.maxUs ?? 0, count === 0 ? 0 : h.sumUs / count);
}

/** Log-scale buckets: BUCKETS_PER_DECADE per power of ten of microseconds, 1 µs to 10^9 µs. */
export const BUCKETS_PER_DECADE = 10;
const BUCKET_COUNT = 9 * BUCKETS_PER_DECADE + 1;

export const bucketIndex = (us: number): number =>
  Math.min(
    BUCKET_COUNT - 1,
    Math.max(0, Math.floor(Math.log10(Math.max(1, us)) * BUCKETS_PER_DECADE + 1e-9)),
  );
export const bucketFromMs = (i: number): number => 10 ** (i / BUCKETS_PER_DECADE) / 1000;

/**
 * A latency in ms: a sparse log-linear histogram (hist.ts) for the percentiles, written into the
 * report so reports can be merged; an HDR histogram beside it; log buckets for the chart.
 */
export class LatencyStat {
  readonly histogram = newHistogram();
  readonly fine = new SparseHistogram();
  private readonly buckets = new Float64Array(BUCKET_COUNT);

  record(ms: number): void {
    const us = toUs(ms);
    this.histogram.record(us);
    this.fine.recordUs(us);
    this.buckets[bucketIndex(us)]! += 1;
  }

  /** The mergeable histogram, as report.json's `latencyHistograms` keeps it. */
  serialized(): SerializedHistogram {
    return this.fine.toJSON();
  }

  get count(): number {
    return this.histogram.count;
  }

  summary(): LatencySummary {
    return summarizeSparse(this.fine);
  }

  /** The non-empty range of buckets (empty buckets inside it kept, so the chart has no gaps). */
  bucketList(): Bucket[] {
    let first = -1;
    let last = -1;
    this.buckets.forEach((count, i) => {
      if (count > 0) {
        if (first < 0) first = i;
        last = i;
      }
    });
    if (first < 0) return [];
    const out: Bucket[] = [];
    for (let i = first; i <= last; i++)
      out.push({
        fromMs: Number(bucketFromMs(i).toPrecision(4)),
        toMs: Number(bucketFromMs(i + 1).toPrecision(4)),
        count: this.buckets[i]!,
      });
    return out;
  }
}

/** Nearest-rank percentile of an ascending array (for small arrays and tests). */
export function percentileOf(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** Counters kept twice: for the whole run and for the measure window only. */
export interface Counters {
  actions: number;
  hostIntents: number;
  views: number;
  /** Views the tool parsed to decide or observe (the rest it only timed): its own work, ~1 per action. */
  viewsRead: number;
  errors: number;
  disconnects: number;
  reconnects: number;
  /** Reconnect attempts that found no gateway (refused, closed or timed out before welcome). */
  reconnectFailures: number;
  matchesFinished: number;
  deadlineMoves: number;
  /** Actions whose views did not all arrive within 30 s (a socket was gone, a view was lost). */
  unmatched: number;
}

export const zeroCounters = (): Counters => ({
  actions: 0,
  hostIntents: 0,
  views: 0,
  viewsRead: 0,
  errors: 0,
  disconnects: 0,
  reconnects: 0,
  reconnectFailures: 0,
  matchesFinished: 0,
  deadlineMoves: 0,
  unmatched: 0,
});

/** One second of the run, for the charts. Latencies in ms, null when nothing was measured. */
export interface SecondPoint {
  /** Seconds since the start of the run, at the end of this second. */
  readonly t: number;
  readonly phase: 'ramp' | 'measure' | 'drain' | 'settle';
  readonly actions: number;
  readonly views: number;
  readonly errors: number;
  readonly disconnects: number;
  readonly deadlineMoves: number;
  readonly tablesPlaying: number;
  readonly sockets: number;
  readonly ownP50: number | null;
  readonly ownP99: number | null;
  readonly allP50: number | null;
  readonly allP99: number | null;
  readonly latenessP99: number | null;
  /** The load tool's own CPU (cores) and event-loop delay p99 (ms) in this second. */
  readonly toolCpu: number;
  readonly toolLagP99: number | null;
}

type Countable = keyof Counters;

/** What the run adds to a second's point; the recorder adds its own counts and latencies. */
export type TickInput = Pick<
  SecondPoint,
  't' | 'phase' | 'tablesPlaying' | 'sockets' | 'toolCpu' | 'toolLagP99'
>;

/**
 * Everything measured: counters, latency histograms for the window, and a point per second. The
 * per-second histograms of the last 10 s stay alive for the progress line's p99.
 */
export class Recorder {
  readonly run = zeroCounters();
  readonly window = zeroCounters();
  readonly errorsRun: Record<string, number> = {};
  readonly errorsWindow: Record<string, number> = {};
  readonly disconnectsByCode: Record<string, number> = {};
  readonly own = new LatencyStat();
  readonly all = new LatencyStat();
  readonly connect = new LatencyStat();
  readonly join = new LatencyStat();
  readonly lateness = new LatencyStat();
  readonly series: SecondPoint[] = [];
  measuring = false;

  private second = zeroCounters();
  // Histograms are made once and reset (making one costs about a millisecond).
  private readonly secOwn = newHistogram();
  private readonly secAll = newHistogram();
  private readonly secLate = newHistogram();
  /** The last 10 seconds of all-views and lateness samples, one histogram per second, reused in turn. */
  private readonly recentAll = Array.from({ length: 10 }, newHistogram);
  private readonly recentLate = Array.from({ length: 10 }, newHistogram);
  private readonly merged = newHistogram();
  private recentNext = 0;
  private lastActions = 0;
  private lastDeadlines = 0;

  count(name: Countable, n = 1): void {
    this.run[name] += n;
    this.second[name] += n;
    if (this.measuring) this.window[name] += n;
  }

  error(code: string): void {
    this.count('errors');
    this.errorsRun[code] = (this.errorsRun[code] ?? 0) + 1;
    if (this.measuring) this.errorsWindow[code] = (this.errorsWindow[code] ?? 0) + 1;
  }

  disconnect(closeCode: number): void {
    this.count('disconnects');
    const key = String(closeCode);
    this.disconnectsByCode[key] = (this.disconnectsByCode[key] ?? 0) + 1;
  }

  /** `inWindow`: the action was sent in the measure window (its latency goes into the totals). */
  ownView(ms: number, inWindow: boolean): void {
    recordMs(this.secOwn, ms);
    if (inWindow) this.own.record(ms);
  }

  allViews(ms: number, inWindow: boolean): void {
    recordMs(this.secAll, ms);
    if (inWindow) this.all.record(ms);
  }

  deadlineLateness(ms: number): void {
    this.count('deadlineMoves');
    recordMs(this.secLate, Math.max(0, ms));
    if (this.measuring) this.lateness.record(Math.max(0, ms));
  }

  /** Closes the current second and starts the next one. */
  tick(point: TickInput): SecondPoint {
    const full: SecondPoint = { ...point, ...this.secondFields() };
    this.series.push(full);
    const slot = this.recentNext;
    this.recentNext = (slot + 1) % this.recentAll.length;
    this.recentAll[slot]!.reset();
    this.recentAll[slot]!.add(this.secAll);
    this.recentLate[slot]!.reset();
    this.recentLate[slot]!.add(this.secLate);
    this.lastActions = this.second.actions;
    this.lastDeadlines = this.second.deadlineMoves;
    this.second = zeroCounters();
    this.secOwn.reset();
    this.secAll.reset();
    this.secLate.reset();
    return full;
  }

  private secondFields(): Omit<SecondPoint, keyof TickInput> {
    const own = summarize(this.secOwn);
    const all = summarize(this.secAll);
    return {
      actions: this.second.actions,
      views: this.second.views,
      errors: this.second.errors,
      disconnects: this.second.disconnects,
      deadlineMoves: this.second.deadlineMoves,
      ownP50: own.p50,
      ownP99: own.p99,
      allP50: all.p50,
      allP99: all.p99,
      latenessP99: summarize(this.secLate).p99,
    };
  }

  /** p99 (ms) over the last 10 closed seconds. */
  recentP99(which: 'all' | 'lateness'): number | null {
    this.merged.reset();
    for (const h of which === 'all' ? this.recentAll : this.recentLate) this.merged.add(h);
    return summarize(this.merged).p99;
  }

  /** The count of the last closed second. */
  lastSecond(which: 'actions' | 'deadlineMoves'): number {
    return which === 'actions' ? this.lastActions : this.lastDeadlines;
  }
}

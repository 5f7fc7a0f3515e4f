/**
 * A latency histogram that can be written into a report and merged exactly: sparse counts of
 * log-linear buckets of whole microseconds.
 *
 * Values below 2^(SUB_BITS + 1) µs (2,048 µs) each have a bucket of their own (exact). Above, every
 * power of two is cut into 2^SUB_BITS (1,024) equal buckets, so a bucket is at most 1/1024 of its
 * lowest value wide. A percentile is the midpoint of the bucket holding its rank (clamped to the
 * exact min and max), so it is within 1/2048 (0.05 %) of the sample at that rank, plus the rounding
 * of every sample to a whole microsecond. Merging adds the counts bucket by bucket: the merged
 * histogram is exactly the one a single process holding every sample would have, so its
 * percentiles are those of the whole distribution, not averages of percentiles.
 */

export const SUB_BITS = 10;
/** The name written into each report: histograms of different schemes are not merged. */
export const HISTOGRAM_SCHEME = `log-linear/${SUB_BITS}`;
/** The largest relative error of a percentile against the sample at its rank (µs rounding aside). */
export const RELATIVE_ERROR = 1 / 2 ** (SUB_BITS + 1);

const LINEAR_BELOW = 2 ** (SUB_BITS + 1);
/** Latencies are recorded from 1 µs to 10 minutes. */
export const HIGHEST_US = 600_000_000;

export interface SerializedHistogram {
  readonly scheme: string;
  readonly unit: 'us';
  readonly count: number;
  /** Exact extremes and sum of the recorded (whole-µs) values; null when empty. */
  readonly minUs: number | null;
  readonly maxUs: number | null;
  readonly sumUs: number;
  /** [the bucket's lowest µs value, count], ascending, non-empty buckets only. */
  readonly buckets: ReadonlyArray<readonly [number, number]>;
}

/** A whole number of µs, 1 to HIGHEST_US. */
export const clampUs = (us: number): number => Math.min(HIGHEST_US, Math.max(1, Math.round(us)));

const bitLength = (v: number): number => 32 - Math.clz32(v);

/** The lowest value of the bucket holding `us` (a whole number ≥ 1): the bucket's key. */
export function bucketLow(us: number): number {
  if (us < LINEAR_BELOW) return us;
  const shift = bitLength(us) - (SUB_BITS + 1);
  return Math.floor(us / 2 ** shift) * 2 ** shift;
}

/** How many whole µs values the bucket starting at `low` holds. */
export function bucketWidth(low: number): number {
  if (low < LINEAR_BELOW) return 1;
  return 2 ** (bitLength(low) - (SUB_BITS + 1));
}

export class SparseHistogram {
  private readonly counts = new Map<number, number>();
  count = 0;
  minUs: number | null = null;
  maxUs: number | null = null;
  sumUs = 0;

  /** Records a value in µs (rounded to a whole µs, 1 µs to 10 minutes). */
  recordUs(value: number, times = 1): void {
    const us = clampUs(value);
    const low = bucketLow(us);
    this.counts.set(low, (this.counts.get(low) ?? 0) + times);
    this.count += times;
    this.sumUs += us * times;
    if (this.minUs === null || us < this.minUs) this.minUs = us;
    if (this.maxUs === null || us > this.maxUs) this.maxUs = us;
  }

  recordMs(ms: number): void {
    this.recordUs(ms * 1000);
  }

  /** Adds another histogram's counts into this one. */
  add(other: SparseHistogram | SerializedHistogram): this {
    const serialized = other instanceof SparseHistogram ? other.toJSON() : other;
    assertScheme(serialized);
    for (const [low, n] of serialized.buckets) this.counts.set(low, (this.counts.get(low) ?? 0) + n);
    this.count += serialized.count;
    this.sumUs += serialized.sumUs;
    if (serialized.minUs !== null && (this.minUs === null || serialized.minUs < this.minUs))
      this.minUs = serialized.minUs;
    if (serialized.maxUs !== null && (this.maxUs === null || serialized.maxUs > this.maxUs))
      this.maxUs = serialized.maxUs;
    return this;
  }

  /** Nearest-rank percentile in µs (p in 0–100), or null when empty. */
  percentileUs(p: number): number | null {
    if (this.count === 0) return null;
    if (p >= 100) return this.maxUs;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (const low of [...this.counts.keys()].sort((a, b) => a - b)) {
      seen += this.counts.get(low)!;
      if (seen >= rank) {
        const mid = low + (bucketWidth(low) - 1) / 2;
        return Math.min(this.maxUs!, Math.max(this.minUs!, mid));
      }
    }
    return this.maxUs;
  }

  toJSON(): SerializedHistogram {
    return {
      scheme: HISTOGRAM_SCHEME,
      unit: 'us',
      count: this.count,
      minUs: this.minUs,
      maxUs: this.maxUs,
      sumUs: this.sumUs,
      buckets: [...this.counts.entries()].sort((a, b) => a[0] - b[0]),
    };
  }

  static from(serialized: SerializedHistogram): SparseHistogram {
    return new SparseHistogram().add(serialized);
  }
}

function assertScheme(h: SerializedHistogram): void {
  if (h.scheme !== HISTOGRAM_SCHEME || h.unit !== 'us')
    throw new Error(
      `a histogram of scheme "${h.scheme}" (${h.unit}) cannot be merged with "${HISTOGRAM_SCHEME}" (us)`,
    );
}

/** Merges serialized histograms: the counts added bucket by bucket. */
export const mergeHistograms = (list: readonly SerializedHistogram[]): SerializedHistogram =>
  list.reduce((acc, h) => acc.add(h), new SparseHistogram()).toJSON();

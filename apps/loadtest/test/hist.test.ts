import fc from 'fast-check';
import {
  bucketLow,
  bucketWidth,
  clampUs,
  HIGHEST_US,
  HISTOGRAM_SCHEME,
  mergeHistograms,
  RELATIVE_ERROR,
  SparseHistogram,
  type SerializedHistogram,
} from '../src/hist';
import { percentileOf, summarizeSparse } from '../src/stats';

/** Latencies in µs as a load test sees them: mostly 1 ms–1 s, some tiny, some huge. */
const latencyUs = fc.oneof(
  fc.integer({ min: 1, max: 3000 }),
  fc.integer({ min: 1000, max: 1_000_000 }),
  fc.integer({ min: 1, max: HIGHEST_US }),
  fc.double({ min: 0, max: 2_000_000, noNaN: true }),
);
const samples = fc.array(latencyUs, { minLength: 0, maxLength: 400 });
const percentile = fc.oneof(
  fc.constantFrom(0, 50, 90, 95, 99, 99.9, 100),
  fc.double({ min: 0, max: 100, noNaN: true }),
);

const of = (values: readonly number[]): SparseHistogram => {
  const h = new SparseHistogram();
  for (const v of values) h.recordUs(v);
  return h;
};

describe('the sparse log-linear histogram', () => {
  it('puts every value in a bucket at most 1/1024 of its lowest value wide (exact below 2048 µs)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: HIGHEST_US }), (us) => {
        const low = bucketLow(us);
        const width = bucketWidth(low);
        expect(us).toBeGreaterThanOrEqual(low);
        expect(us).toBeLessThan(low + width);
        expect(bucketLow(low)).toBe(low);
        expect(bucketLow(low + width - 1)).toBe(low);
        if (us < 2048) expect(width).toBe(1);
        else expect(width / low).toBeLessThanOrEqual(1 / 1024);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives each percentile within the stated bound of the sample at its rank', () => {
    fc.assert(
      fc.property(
        samples.filter((s) => s.length > 0),
        percentile,
        (values, p) => {
          const exact = percentileOf(
            values.map(clampUs).sort((a, b) => a - b),
            p,
          )!;
          const got = of(values).percentileUs(p)!;
          expect(Math.abs(got - exact)).toBeLessThanOrEqual(exact * RELATIVE_ERROR);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('merging two histograms gives the percentiles of one histogram holding both samples, and those are within the bound', () => {
    fc.assert(
      fc.property(samples, samples, percentile, (a, b, p) => {
        const merged = SparseHistogram.from(mergeHistograms([of(a).toJSON(), of(b).toJSON()]));
        const both = of([...a, ...b]);
        expect(merged.toJSON()).toEqual(both.toJSON());
        expect(merged.percentileUs(p)).toBe(both.percentileUs(p));
        if (a.length + b.length > 0) {
          const exact = percentileOf(
            [...a, ...b].map(clampUs).sort((x, y) => x - y),
            p,
          )!;
          expect(Math.abs(merged.percentileUs(p)! - exact)).toBeLessThanOrEqual(exact * RELATIVE_ERROR);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('merge is commutative and associative, and a merge of one is the histogram itself', () => {
    fc.assert(
      fc.property(samples, samples, samples, (a, b, c) => {
        const [x, y, z] = [of(a).toJSON(), of(b).toJSON(), of(c).toJSON()];
        expect(mergeHistograms([x, y])).toEqual(mergeHistograms([y, x]));
        expect(mergeHistograms([mergeHistograms([x, y]), z])).toEqual(
          mergeHistograms([x, mergeHistograms([y, z])]),
        );
        expect(mergeHistograms([x])).toEqual(x);
      }),
      { numRuns: 200 },
    );
  });

  it('survives JSON: a serialized histogram read back has the same percentiles, count, min, max and mean', () => {
    fc.assert(
      fc.property(samples, (values) => {
        const h = of(values);
        const back = SparseHistogram.from(JSON.parse(JSON.stringify(h.toJSON())) as SerializedHistogram);
        expect(back.toJSON()).toEqual(h.toJSON());
        expect(summarizeSparse(back)).toEqual(summarizeSparse(h));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps min, max, count and sum exact; an empty one has no percentile', () => {
    const h = of([1500.4, 7, 123_456_789]);
    expect(h.toJSON()).toMatchObject({ scheme: HISTOGRAM_SCHEME, count: 3, minUs: 7, maxUs: 123_456_789 });
    expect(h.sumUs).toBe(1500 + 7 + 123_456_789);
    expect(h.percentileUs(100)).toBe(123_456_789);
    expect(h.percentileUs(0)).toBe(7);
    expect(new SparseHistogram().percentileUs(50)).toBeNull();
    expect(summarizeSparse(new SparseHistogram()).p99).toBeNull();
  });

  it('refuses to merge a histogram of another scheme', () => {
    const other = { ...of([5]).toJSON(), scheme: 'log-linear/7' };
    expect(() => mergeHistograms([of([5]).toJSON(), other])).toThrow(/log-linear\/7/);
  });
});

import { bucketIndex, LatencyStat, percentileOf, Recorder, summarize, newHistogram } from '../src/stats';
import { histogramPercentile } from '../src/service-metrics';
import { niceStep } from '../src/svg';

const tick = (rec: Recorder, t: number) =>
  rec.tick({ t, phase: 'measure', tablesPlaying: 1, sockets: 4, toolCpu: 0.1, toolLagP99: null });

describe('percentiles', () => {
  it('nearest rank on a sorted array', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentileOf(values, 50)).toBe(50);
    expect(percentileOf(values, 99)).toBe(99);
    expect(percentileOf(values, 100)).toBe(100);
    expect(percentileOf([7], 99)).toBe(7);
    expect(percentileOf([], 50)).toBeNull();
  });

  it('the HDR histogram agrees with the exact percentiles within 0.1%', () => {
    const stat = new LatencyStat();
    const values: number[] = [];
    for (let i = 1; i <= 10_000; i++) {
      const ms = ((i * 7919) % 10_007) / 10; // 0.1 ms .. 1 s, scrambled order
      values.push(ms);
      stat.record(ms);
    }
    values.sort((a, b) => a - b);
    const s = stat.summary();
    expect(s.count).toBe(10_000);
    for (const [p, got] of [
      [50, s.p50],
      [90, s.p90],
      [95, s.p95],
      [99, s.p99],
    ] as const) {
      const exact = percentileOf(values, p)!;
      expect(Math.abs(got! - exact) / exact).toBeLessThan(0.001);
    }
    expect(Math.abs(s.max! - values.at(-1)!) / values.at(-1)!).toBeLessThan(0.001);
  });

  it('an empty histogram has nulls, not zeros', () => {
    expect(summarize(newHistogram())).toEqual({
      count: 0,
      p50: null,
      p90: null,
      p95: null,
      p99: null,
      max: null,
      mean: null,
    });
  });

  it('records sub-microsecond and negative values as 1 µs instead of throwing', () => {
    const stat = new LatencyStat();
    stat.record(0);
    stat.record(-5);
    expect(stat.summary().max).toBe(0.001);
  });
});

describe('log buckets', () => {
  it('ten per decade of microseconds', () => {
    expect(bucketIndex(1)).toBe(0);
    expect(bucketIndex(10)).toBe(10);
    expect(bucketIndex(1000)).toBe(30);
    expect(bucketIndex(999)).toBe(29);
    expect(bucketIndex(1e12)).toBe(90);
  });

  it('cover every sample, contiguous and increasing', () => {
    const stat = new LatencyStat();
    for (const ms of [0.5, 1, 2, 3, 10, 10, 250]) stat.record(ms);
    const buckets = stat.bucketList();
    expect(buckets.reduce((s, b) => s + b.count, 0)).toBe(7);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.fromMs).toBe(buckets[i - 1]!.toMs);
    expect(buckets[0]!.fromMs).toBeLessThanOrEqual(0.5);
    expect(buckets.at(-1)!.toMs).toBeGreaterThan(250);
    const ten = buckets.find((b) => b.fromMs <= 10 && b.toMs > 10)!;
    expect(ten.count).toBe(2);
  });
});

describe('Recorder', () => {
  it('counts the whole run and, separately, the measure window', () => {
    const rec = new Recorder();
    rec.count('actions');
    rec.error('NOT_YOUR_TURN');
    rec.measuring = true;
    rec.count('actions', 2);
    rec.error('NOT_YOUR_TURN');
    rec.error('TIMEOUT');
    rec.disconnect(1006);
    rec.measuring = false;
    expect(rec.run.actions).toBe(3);
    expect(rec.window.actions).toBe(2);
    expect(rec.errorsRun).toEqual({ NOT_YOUR_TURN: 2, TIMEOUT: 1 });
    expect(rec.errorsWindow).toEqual({ NOT_YOUR_TURN: 1, TIMEOUT: 1 });
    expect(rec.disconnectsByCode).toEqual({ '1006': 1 });
    expect(rec.window.disconnects).toBe(1);
  });

  it('keeps latencies of window actions only, but every second in the series', () => {
    const rec = new Recorder();
    rec.allViews(100, false);
    rec.allViews(5, true);
    rec.ownView(3, true);
    const point = tick(rec, 1);
    expect(rec.all.count).toBe(1);
    expect(rec.own.count).toBe(1);
    expect(point.allP99).toBeCloseTo(100, 0);
    expect(point.allP50).toBeCloseTo(5, 1);
    expect(point.ownP50).toBeCloseTo(3, 1);
    const empty = tick(rec, 2);
    expect(empty.allP99).toBeNull();
    expect(rec.series.map((p) => p.t)).toEqual([1, 2]);
  });

  it('gives the progress line the p99 of the last 10 seconds only', () => {
    const rec = new Recorder();
    rec.allViews(900, true);
    tick(rec, 1);
    for (let s = 2; s <= 11; s++) {
      rec.count('actions', s);
      for (let i = 0; i < 100; i++) rec.allViews(10, true);
      tick(rec, s);
    }
    expect(rec.recentP99('all')).toBeCloseTo(10, 1);
    expect(rec.lastSecond('actions')).toBe(11);
    expect(rec.all.summary().max).toBeCloseTo(900, 0);
  });

  it('deadline lateness: negative (early) counts as 0, and counts deadline moves', () => {
    const rec = new Recorder();
    rec.measuring = true;
    rec.deadlineLateness(-3);
    rec.deadlineLateness(12);
    expect(rec.window.deadlineMoves).toBe(2);
    expect(rec.lateness.summary().max).toBeCloseTo(12, 1);
    expect(rec.lateness.summary().p50).toBeLessThanOrEqual(0.001);
  });
});

describe('bucket percentiles of a scraped histogram', () => {
  it('takes the upper bound of the bucket holding the percentile', () => {
    const cumulative = new Map([
      [0.01, 50],
      [0.05, 98],
      [0.1, 100],
      [Infinity, 100],
    ]);
    expect(histogramPercentile(cumulative, 50)).toBe(0.01);
    expect(histogramPercentile(cumulative, 99)).toBe(0.1);
    expect(histogramPercentile(new Map([[Infinity, 0]]), 99)).toBeNull();
  });
});

it('chart steps are 1, 2 or 5 times a power of ten', () => {
  expect(niceStep(100)).toBe(20);
  expect(niceStep(7)).toBe(2);
  expect(niceStep(0.3)).toBe(0.1);
  expect(niceStep(0)).toBe(1);
});

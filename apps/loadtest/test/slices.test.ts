import { ArgError, parseArgs, parseSlice, sliceTables } from '../src/args';
import { mergeBuckets } from '../src/merge';
import { LatencyStat } from '../src/stats';
import { workerArgv } from '../src/workers';

describe('slices of the tables', () => {
  it('table g of the run goes to slice g mod N: every table once, none twice', () => {
    expect(sliceTables(7, null)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(sliceTables(7, { index: 0, count: 3 })).toEqual([0, 3, 6]);
    expect(sliceTables(7, { index: 2, count: 3 })).toEqual([2, 5]);
    for (const [tables, n] of [
      [10, 1],
      [10, 4],
      [1000, 7],
      [5, 5],
    ] as const) {
      const all = Array.from({ length: n }, (_, k) => sliceTables(tables, { index: k, count: n })).flat();
      expect(all.sort((a, b) => a - b)).toEqual(Array.from({ length: tables }, (_, i) => i));
    }
  });

  it('--slice K/N, and job/N from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)', () => {
    expect(parseSlice('1/4')).toEqual({ index: 1, count: 4 });
    expect(parseSlice('job/4', { JOB_COMPLETION_INDEX: '3' })).toEqual({ index: 3, count: 4 });
    expect(() => parseSlice('job/4', {})).toThrow(/JOB_COMPLETION_INDEX .*not set/);
    expect(() => parseSlice('job/4', { JOB_COMPLETION_INDEX: '4' })).toThrow(/K must be below N/);
    expect(() => parseSlice('4/4')).toThrow(ArgError);
    expect(() => parseSlice('1-4')).toThrow(/K\/N/);
    expect(
      parseArgs(['--tables', '8', '--slice', 'job/4'], 'linux', { JOB_COMPLETION_INDEX: '2' }),
    ).toMatchObject({
      tables: 8,
      slice: { index: 2, count: 4 },
      workers: 1,
    });
  });

  it('refuses more slices than tables, and --workers with --slice', () => {
    expect(() => parseArgs(['--tables', '2', '--workers', '3'])).toThrow(/3 slices of 2 tables/);
    expect(() => parseArgs(['--tables', '2', '--slice', '0/3'])).toThrow(/3 slices of 2 tables/);
    expect(() => parseArgs(['--workers', '2', '--slice', '0/2'])).toThrow(/do not go together/);
    expect(() => parseArgs(['--workers', '0'])).toThrow(/--workers must be from 1 to 64/);
    expect(parseArgs(['--workers', '4'])).toMatchObject({ workers: 4, slice: null });
  });

  it("gives worker k the parent's flags with its slice and folder; the cost readings to worker 0 only", () => {
    const argv = [
      ...['--url', 'http://x:1', '--tables=6', '--workers', '3', '--out', '/r'],
      ...['--metrics', 'gateway=http://x:9464/metrics', '--redis-url=redis://x', '--local-procs', '--quiet'],
    ];
    expect(workerArgv(argv, 0, 3, '/r')).toEqual([
      ...['--url', 'http://x:1', '--tables=6'],
      ...['--metrics', 'gateway=http://x:9464/metrics', '--redis-url=redis://x', '--local-procs', '--quiet'],
      ...['--slice', '0/3', '--out', '/r/worker-0', '--quiet'],
    ]);
    expect(workerArgv(argv, 2, 3, '/r')).toEqual([
      ...['--url', 'http://x:1', '--tables=6', '--quiet'],
      ...['--slice', '2/3', '--out', '/r/worker-2', '--quiet'],
    ]);
    // What a worker is given parses, as that slice.
    expect(parseArgs(workerArgv(argv, 2, 3, '/r'), 'linux')).toMatchObject({
      slice: { index: 2, count: 3 },
      workers: 1,
      out: '/r/worker-2',
      metrics: [],
      redisUrl: null,
      localProcs: false,
    });
  });
});

it("merges the chart's log buckets into those of one histogram holding every sample", () => {
  const [a, b, both] = [new LatencyStat(), new LatencyStat(), new LatencyStat()];
  const samples = [0.004, 0.9, 1, 3.3, 12, 12.5, 250, 999, 4000, 61_000];
  samples.forEach((ms, i) => {
    (i % 3 === 0 ? a : b).record(ms);
    both.record(ms);
  });
  expect(mergeBuckets([a.bucketList(), b.bucketList()])).toEqual(both.bucketList());
  expect(mergeBuckets([a.bucketList()])).toEqual(a.bucketList());
  expect(mergeBuckets([[], []])).toEqual([]);
});

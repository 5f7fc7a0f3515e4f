import { Worker } from 'bullmq';
import {
  createRedis,
  DEADLINE_LEAD_MS,
  upsertDeadline,
  type DeadlineQueue,
  type Redis,
} from '@dominoes/platform';
import type { DeadlineJob } from '@dominoes/protocol';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { oldestDueAt, StuckWorkerWatchdog, type GroupWorkerProbe } from '../src/stuck-worker-watchdog';
import { tableOfEachGroup, workerOn } from './support';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The watchdog's own timer (how often it looks, never two looks at once, stopped for good, not
 * keeping the process alive) and oldestDueAt's edges on real Redis: the instant a job becomes due,
 * and the first of several due delayed jobs. The choice of group is in stuck-worker-watchdog.test.ts.
 */

/** A probe of one group that counts the watchdog's looks; `due` answers its oldestDueAt. */
function countingProbe(due: () => Promise<number | null> = () => Promise.resolve(null)) {
  const looks = { count: 0 };
  const probe: GroupWorkerProbe = {
    groups: 1,
    lastTakenAt: () => {
      looks.count++;
      return 0;
    },
    oldestDueAt: due,
    restart: () => Promise.resolve(),
  };
  return { probe, looks };
}

const clock = { now: () => 1_000_000 };

describe('StuckWorkerWatchdog: its timer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it.each([
    [1000, 500],
    [100, 100],
    [60_000, 2000],
    [1001, 500],
  ])(
    'with a bound of %i ms it looks every %i ms (half the bound, from 100 ms to 2 s)',
    async (stuckMs, intervalMs) => {
      const { probe, looks } = countingProbe();
      const watchdog = new StuckWorkerWatchdog(probe, clock, recordingLogger().logger, stuckMs);
      watchdog.start();
      try {
        await jest.advanceTimersByTimeAsync(intervalMs - 1);
        expect(looks.count).toBe(0);
        await jest.advanceTimersByTimeAsync(1);
        expect(looks.count).toBe(1);
        await jest.advanceTimersByTimeAsync(intervalMs);
        expect(looks.count).toBe(2);
      } finally {
        watchdog.stop();
      }
    },
  );

  it('starts no second look while one is under way (a slow queue read), and looks again once it has ended', async () => {
    let answer: (due: number | null) => void = () => undefined;
    const { probe, looks } = countingProbe(() => new Promise<number | null>((resolve) => (answer = resolve)));
    const watchdog = new StuckWorkerWatchdog(probe, clock, recordingLogger().logger, 1000);
    watchdog.start(100);
    try {
      await jest.advanceTimersByTimeAsync(100);
      expect(looks.count).toBe(1);
      await jest.advanceTimersByTimeAsync(500);
      expect(looks.count).toBe(1);
      answer(null);
      await jest.advanceTimersByTimeAsync(100);
      expect(looks.count).toBe(2);
    } finally {
      watchdog.stop();
    }
  });

  it('gives up a queue read that does not answer within its bound (a connection left hanging by a failover): the idle group is started again and the next look is not held up', async () => {
    const restarts: number[] = [];
    const { probe, looks } = countingProbe(() => new Promise<number | null>(() => undefined));
    const hanging: GroupWorkerProbe = {
      ...probe,
      restart: (group) => {
        restarts.push(group);
        return Promise.resolve();
      },
    };
    const { logger, lines } = recordingLogger();
    const watchdog = new StuckWorkerWatchdog(hanging, clock, logger, 1000, () => undefined, 300);
    watchdog.start(100);
    try {
      await jest.advanceTimersByTimeAsync(100);
      expect(looks.count).toBe(1);
      await jest.advanceTimersByTimeAsync(299);
      expect(restarts).toEqual([]);
      await jest.advanceTimersByTimeAsync(1);
      expect(restarts).toEqual([0]);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 40,
          group: 0,
          probeTimeoutMs: 300,
          msg: 'deadline queue read did not answer while the worker is idle: starting it again',
        }),
      );
      await jest.advanceTimersByTimeAsync(100);
      expect(looks.count).toBe(2);
    } finally {
      watchdog.stop();
    }
  });

  it('bounds a queue read by 3 s when no bound is given, whatever the stuck bound (a slow read of a short bound is not taken for a hung one)', async () => {
    const restarts: number[] = [];
    const { probe } = countingProbe(() => new Promise<number | null>(() => undefined));
    const hanging: GroupWorkerProbe = { ...probe, restart: (g) => (restarts.push(g), Promise.resolve()) };
    const short = new StuckWorkerWatchdog(hanging, clock, recordingLogger().logger, 200);
    const long = new StuckWorkerWatchdog(hanging, clock, recordingLogger().logger, 60_000);
    const checks = [short.check(), long.check()];
    await jest.advanceTimersByTimeAsync(2999);
    expect(restarts).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(restarts).toEqual([0, 0]);
    await Promise.all(checks);
  });

  it('once stopped it looks no more', async () => {
    const { probe, looks } = countingProbe();
    const watchdog = new StuckWorkerWatchdog(probe, clock, recordingLogger().logger, 1000);
    watchdog.start(100);
    await jest.advanceTimersByTimeAsync(100);
    watchdog.stop();
    await jest.advanceTimersByTimeAsync(1000);
    expect(looks.count).toBe(1);
  });
});

describe('StuckWorkerWatchdog: the process', () => {
  it('its timer does not keep the process alive (a service that stops is not held by it)', () => {
    const watchdog = new StuckWorkerWatchdog(countingProbe().probe, clock, recordingLogger().logger, 1000);
    watchdog.start();
    const timer = (watchdog as unknown as { timer: NodeJS.Timeout }).timer;
    try {
      expect(timer.hasRef()).toBe(false);
    } finally {
      watchdog.stop();
    }
  });
});

describe('oldestDueAt on real Redis (BullMQ): its edges', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = createRedis(REDIS_URL, 'watchdog-unit-test');
  });
  afterAll(async () => {
    await redis.quit();
  });

  /** Runs `body` on the queue of a worker's first group (a key prefix of its own), then removes its keys. */
  async function onQueue(body: (queue: DeadlineQueue, tableId: string) => Promise<void>): Promise<void> {
    const w = workerOn(REDIS_URL);
    const [tableId] = tableOfEachGroup();
    try {
      await body(w.queues.of(tableId!), tableId!);
    } finally {
      await w.queues.close();
      await w.streams.close();
      const keys = await redis.keys(`*${w.config.redisPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  }

  it('a waiting job is due from the instant it was added, not a millisecond before', () =>
    onQueue(async (queue, tableId) => {
      await upsertDeadline(queue, { tableId, key: 'now', dueAt: Date.now() }, 0);
      const [job] = await queue.getJobs(['wait'], 0, 0, true);
      expect(await oldestDueAt(queue, job!.timestamp)).toBe(job!.timestamp);
      expect(await oldestDueAt(queue, job!.timestamp - 1)).toBeNull();
    }));

  it('of two delayed jobs both due, the one due first; a delayed job is due at its add time plus its delay', () =>
    onQueue(async (queue, tableId) => {
      await upsertDeadline(queue, { tableId, key: 'later', dueAt: Date.now() + 60_000 }, 60_000);
      await upsertDeadline(
        queue,
        { tableId: `${tableId}x`, key: 'sooner', dueAt: Date.now() + 30_000 },
        30_000,
      );
      const jobs = await queue.getJobs(['delayed']);
      const sooner = jobs.find((job) => job.opts.delay === 30_000 - DEADLINE_LEAD_MS)!;
      const dueAt = sooner.timestamp + 30_000 - DEADLINE_LEAD_MS;
      expect(await oldestDueAt(queue, dueAt - 1)).toBeNull();
      expect(await oldestDueAt(queue, dueAt)).toBe(dueAt);
      expect(await oldestDueAt(queue, dueAt + 60_000)).toBe(dueAt);
    }));
  it('of a waiting job and a due delayed job, the one due first (the waiting one here)', () =>
    onQueue(async (queue, tableId) => {
      await upsertDeadline(
        queue,
        { tableId: `${tableId}d`, key: 'delayed', dueAt: Date.now() + 30_000 },
        30_000,
      );
      await upsertDeadline(queue, { tableId, key: 'waiting', dueAt: Date.now() }, 0);
      const [waiting] = await queue.getJobs(['wait']);
      const [delayed] = await queue.getJobs(['delayed']);
      expect(await oldestDueAt(queue, delayed!.timestamp + 30_000)).toBe(waiting!.timestamp);
    }));

  it('a job that failed for good is not due (the queue keeps the last 1,000 failed jobs), nor one being processed', () =>
    onQueue(async (queue, tableId) => {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const connection = createRedis(REDIS_URL, 'watchdog-unit-worker');
      const worker = new Worker<DeadlineJob, void, string>(
        queue.name,
        async (job) => {
          if (job.data.key === 'failed') throw new Error('dispatch failed');
          await held;
        },
        { connection, prefix: queue.opts.prefix, concurrency: 2 },
      );
      try {
        await queue.add('deadline', { tableId, key: 'failed', dueAt: Date.now() }, { attempts: 1 });
        await queue.add('deadline', { tableId: `${tableId}a`, key: 'active', dueAt: Date.now() });
        const counts = () => queue.getJobCounts('failed', 'active', 'wait', 'delayed');
        for (let i = 0; i < 100 && (await counts()).failed < 1; i++) await sleep(20);
        for (let i = 0; i < 100 && (await counts()).active < 1; i++) await sleep(20);
        expect(await counts()).toEqual({ failed: 1, active: 1, wait: 0, delayed: 0 });
        expect(await oldestDueAt(queue, Date.now() + 60_000)).toBeNull();
      } finally {
        release();
        await worker.close();
        await connection.quit();
      }
    }));
});

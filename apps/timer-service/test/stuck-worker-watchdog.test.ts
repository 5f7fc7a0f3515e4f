import { createRedis, upsertDeadline, type Redis } from '@dominoes/platform';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { oldestDueAt, StuckWorkerWatchdog, type GroupWorkerProbe } from '../src/stuck-worker-watchdog';
import { cleanPrefix, tableOfEachGroup, withDispatch, workerOn } from './support';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A probe of two groups whose activity and due jobs the test sets; restarts are recorded. */
function probeOf(state: { lastTakenAt: number[]; dueAt: (number | null | Error)[] }) {
  const restarts: number[] = [];
  const probe: GroupWorkerProbe = {
    groups: state.lastTakenAt.length,
    lastTakenAt: (group) => state.lastTakenAt[group]!,
    oldestDueAt: (group) => {
      const due = state.dueAt[group]!;
      return due instanceof Error ? Promise.reject(due) : Promise.resolve(due);
    },
    restart: (group) => {
      restarts.push(group);
      return Promise.resolve();
    },
  };
  return { probe, restarts };
}

describe('StuckWorkerWatchdog: which group it starts again', () => {
  const now = 100_000;
  const clock = { now: () => now };

  it('starts again a group that took nothing for the bound while a job was due for the bound, and only that one', async () => {
    const { probe, restarts } = probeOf({
      lastTakenAt: [now - 10_000, now - 10_000],
      dueAt: [now - 10_000, null],
    });
    const { logger, lines } = recordingLogger();
    const counted: number[] = [];
    const watchdog = new StuckWorkerWatchdog(probe, clock, logger, 10_000, (g) => counted.push(g));
    expect(await watchdog.check()).toEqual([0]);
    expect(restarts).toEqual([0]);
    expect(counted).toEqual([0]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        group: 0,
        idleMs: 10_000,
        dueForMs: 10_000,
        msg: 'deadline worker takes no job while one is due: starting it again',
      }),
    );
  });

  it('leaves alone a worker that is taking jobs, however late they are (a backlog), and one idle with nothing due', async () => {
    const { probe, restarts } = probeOf({
      lastTakenAt: [now - 9_999, now - 60_000],
      dueAt: [now - 60_000, null],
    });
    const watchdog = new StuckWorkerWatchdog(probe, clock, recordingLogger().logger, 10_000);
    expect(await watchdog.check()).toEqual([]);
    expect(restarts).toEqual([]);
  });

  it('leaves alone an idle worker whose job became due less than the bound ago', async () => {
    const { probe, restarts } = probeOf({
      lastTakenAt: [now - 60_000, now - 60_000],
      dueAt: [now - 9_999, now],
    });
    const watchdog = new StuckWorkerWatchdog(probe, clock, recordingLogger().logger, 10_000);
    expect(await watchdog.check()).toEqual([]);
    expect(restarts).toEqual([]);
  });

  it('restarts nothing for a group whose queue cannot be read (Redis away: a new worker would not help), and goes on to the next group', async () => {
    const { probe, restarts } = probeOf({
      lastTakenAt: [now - 60_000, now - 60_000],
      dueAt: [new Error('Connection is closed.'), now - 60_000],
    });
    const watchdog = new StuckWorkerWatchdog(probe, clock, recordingLogger().logger, 10_000);
    expect(await watchdog.check()).toEqual([1]);
    expect(restarts).toEqual([1]);
  });

  it('a restart that fails is logged as an error and the check goes on', async () => {
    const { probe } = probeOf({
      lastTakenAt: [now - 60_000, now - 60_000],
      dueAt: [now - 60_000, now - 60_000],
    });
    let calls = 0;
    const failing: GroupWorkerProbe = {
      ...probe,
      restart: (group) => {
        calls++;
        return group === 0 ? Promise.reject(new Error('no connection')) : Promise.resolve();
      },
    };
    const { logger, lines } = recordingLogger();
    const watchdog = new StuckWorkerWatchdog(failing, clock, logger, 10_000);
    expect(await watchdog.check()).toEqual([1]);
    expect(calls).toBe(2);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 50, group: 0, msg: 'deadline worker could not be started again' }),
    );
  });
});

describe('the watchdog on real Redis (BullMQ)', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = createRedis(REDIS_URL, 'watchdog-test');
  });
  afterAll(async () => {
    await redis.quit();
  });
  const clean = (prefix: string) => cleanPrefix(redis, prefix);

  it('oldestDueAt: nothing on an empty queue or a delayed job not yet due; the oldest waiting job; a delayed job once due', async () => {
    const w = workerOn(REDIS_URL);
    const [tableA, tableB] = tableOfEachGroup();
    const queue = w.queues.all[0]!;
    const other = w.queues.all[1]!;
    try {
      expect(await oldestDueAt(queue, Date.now())).toBeNull();
      await upsertDeadline(
        w.queues.of(tableA!),
        { tableId: tableA!, key: 'later', dueAt: Date.now() + 60_000 },
        60_000,
      );
      expect(await oldestDueAt(w.queues.of(tableA!), Date.now())).toBeNull();
      expect(await oldestDueAt(w.queues.of(tableA!), Date.now() + 61_000)).toBeGreaterThan(
        Date.now() + 59_000,
      );

      const before = Date.now();
      await upsertDeadline(other, { tableId: tableB!, key: 'now-1', dueAt: before }, 0);
      await sleep(20);
      await upsertDeadline(other, { tableId: `${tableB!}x`, key: 'now-2', dueAt: Date.now() }, 0);
      const oldest = await oldestDueAt(other, Date.now());
      expect(oldest).toBeGreaterThanOrEqual(before);
      expect(oldest).toBeLessThan(before + 20);
    } finally {
      await w.queues.close();
      await w.streams.close();
      await clean(w.config.redisPrefix);
    }
  });

  it('a group whose worker takes no job (paused here: a wedged one takes none) is started again within the bound, and its due job fires once', async () => {
    const seed = workerOn(REDIS_URL);
    await seed.queues.close();
    const dispatched: string[] = [];
    const recording = withDispatch(seed.streams, (envelope, dispatch) => {
      dispatched.push(envelope.intentId);
      return dispatch(envelope);
    });
    const w = workerOn(REDIS_URL, recording, { WORKER_STUCK_MS: '600' });
    const tableId = tableOfEachGroup()[1]!;
    try {
      w.worker.start();
      await sleep(200);
      const wedged = w.worker.workerOf(1)!;
      // A paused worker ends its loop after its current blocking read (up to BullMQ's 5 s drainDelay).
      await wedged.pause(true);
      for (let i = 0; i < 140 && wedged.isRunning(); i++) await sleep(50);
      expect(wedged.isRunning()).toBe(false);
      await upsertDeadline(w.queues.of(tableId), { tableId, key: 'kw', dueAt: Date.now() }, 0);
      for (let i = 0; i < 100 && dispatched.length === 0; i++) await sleep(50);
      expect(dispatched).toEqual(['deadline:kw']);
      expect(w.worker.workerOf(1)).not.toBe(wedged);
      expect(w.worker.running).toBe(true);
      expect(w.lines).toContainEqual(
        expect.objectContaining({
          group: 1,
          msg: 'deadline worker takes no job while one is due: starting it again',
        }),
      );
      const restarts = (await w.metrics.workerRestarts.get()).values;
      expect(restarts).toEqual([{ value: 1, labels: { group: '1' } }]);
      // Group 0 had nothing due: its worker is the one started first.
      await sleep(1000);
      expect(dispatched).toEqual(['deadline:kw']);
    } finally {
      await w.worker.close();
      await clean(w.config.redisPrefix);
    }
  }, 20_000);
});

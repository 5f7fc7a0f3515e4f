import { createRedis, upsertDeadline, type DeadlineQueues, type Redis } from '@dominoes/platform';
import { DEADLINE_QUEUE } from '@dominoes/protocol';
import { TestRedisServer } from '../../../e2e/src/redis-server';
import { cleanPrefix, tableOfEachGroup, withDispatch, workerOn } from './support';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** `count` table ids whose deadlines go to the queue of `group`. */
function tablesOfGroup(queues: DeadlineQueues, group: number, count: number): string[] {
  const ids: string[] = [];
  for (let n = 0; ids.length < count; n++) if (queues.of(`G${n}`) === queues.all[group]) ids.push(`G${n}`);
  return ids;
}
const until = async (done: () => boolean, ms = 10_000, what = 'a condition') => {
  for (const end = Date.now() + ms; !done(); await sleep(20))
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
};

/**
 * What the deadline worker says when Redis fails it (deadline-worker.ts): the queue depth it cannot
 * read, its workers' errors (one line per distinct message every 10 s, with how many were left out),
 * a failure BullMQ reports without its job; and, from the same mutation run's survivors, the
 * watchdog's restart of a group's worker, the depth gauge's interval and a job handed in by hand.
 * The mutation run's `timer` group reached the error paths only through redis-restart.test.ts, which
 * it does not run.
 */
describe('deadline worker: errors, restarts and what it counts, on real Redis (BullMQ)', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = createRedis(REDIS_URL, 'worker-errors-test');
  });
  afterAll(async () => {
    await redis.quit();
  });
  it("a worker's errors are logged with their group once per message every 10 s; the next line after that says how many were left out; another message is logged at once", async () => {
    const w = workerOn(REDIS_URL);
    const errors = () => w.lines.filter((l) => l.msg === 'deadline worker error');
    try {
      w.worker.start();
      const [zero, one] = [w.worker.workerOf(0)!, w.worker.workerOf(1)!];
      // Each error at a moment of the test's clock (Date.now, which the handler reads), ms after the first.
      const start = Date.now();
      const at = (ms: number, message: string, worker = zero) => {
        const clock = jest.spyOn(Date, 'now').mockReturnValue(start + ms);
        try {
          worker.emit('error', new Error(message));
        } finally {
          clock.mockRestore();
        }
      };
      at(0, 'A');
      at(1, 'A');
      at(9_999, 'A');
      expect(errors()).toEqual([expect.objectContaining({ level: 50, group: 0, err: 'A' })]);
      expect(errors()[0]).not.toHaveProperty('repeated');
      // 10 s after the line: the same message again, saying how many were left out meanwhile.
      at(10_000, 'A');
      expect(errors()).toHaveLength(2);
      expect(errors()[1]).toEqual(expect.objectContaining({ level: 50, group: 0, err: 'A', repeated: 2 }));
      // Another message is logged at once, and counts nothing left out of the first.
      at(10_001, 'A');
      at(10_002, 'B');
      expect(errors()).toHaveLength(3);
      expect(errors()[2]).toEqual(expect.objectContaining({ group: 0, err: 'B' }));
      expect(errors()[2]).not.toHaveProperty('repeated');
      at(10_003, 'A');
      expect(errors()).toHaveLength(4);
      expect(errors()[3]).not.toHaveProperty('repeated');
      // The other group's worker keeps its own count: its first 'A' is logged.
      at(10_004, 'A', one);
      expect(errors()).toHaveLength(5);
      expect(errors()[4]).toEqual(expect.objectContaining({ group: 1, err: 'A' }));
    } finally {
      await w.worker.close();
      await cleanPrefix(redis, w.config.redisPrefix);
    }
  });

  it('a failure BullMQ reports without its job is logged with its group and error', async () => {
    const w = workerOn(REDIS_URL);
    try {
      w.worker.start();
      w.worker.workerOf(1)!.emit('failed', undefined, new Error('job lost'), 'active');
      expect(w.lines.find((l) => l.msg === 'deadline job failed')).toEqual(
        expect.objectContaining({ level: 40, group: 1, err: 'job lost' }),
      );
    } finally {
      await w.worker.close();
      await cleanPrefix(redis, w.config.redisPrefix);
    }
  });

  it('while its Redis is away the queue depth is not read (a warning saying why, the gauge as it was) and each group logs its connection errors far fewer times than they come; once Redis is back a deadline fires', async () => {
    const server = await TestRedisServer.start('timer-worker-errors');
    const own = createRedis(server.url, 'worker-errors-client-list');
    const dispatched: string[] = [];
    const probe = workerOn(server.url);
    await probe.queues.close();
    const w = workerOn(
      server.url,
      withDispatch(probe.streams, (envelope, dispatch) => {
        dispatched.push(envelope.tableId);
        return dispatch(envelope);
      }),
      { WORKER_STUCK_MS: '2000' },
    );
    try {
      const [tableId] = tableOfEachGroup();
      await upsertDeadline(
        w.queues.of(tableId!),
        { tableId: tableId!, key: 'k', dueAt: Date.now() + 60_000 },
        60_000,
      );
      w.worker.start();
      await until(() => w.worker.running);
      // Each group's worker on a connection of its own, named after its group.
      const names = async () =>
        String(await own.client('LIST'))
          .split('\n')
          .map((line) => / name=(\S*)/.exec(line)?.[1]);
      for (let i = 0; i < 100 && !(await names()).includes('timer-worker:1'); i++) await sleep(20);
      expect(await names()).toEqual(expect.arrayContaining(['timer-worker:0', 'timer-worker:1']));
      await w.worker.refreshDepth();
      const delayed = async () =>
        (await w.metrics.queueDepth.get()).values.find((v) => v.labels.state === 'delayed');
      expect(await delayed()).toEqual({ value: 1, labels: { queue: DEADLINE_QUEUE, state: 'delayed' } });
      const emitted = [0, 0];
      for (const group of [0, 1]) w.worker.workerOf(group)!.on('error', () => emitted[group]!++);

      await server.kill('SIGKILL');
      await expect(w.worker.refreshDepth()).resolves.toBeUndefined();
      const warning = w.lines.find((l) => l.msg === 'queue depth not read');
      expect(warning).toEqual(expect.objectContaining({ level: 40, err: expect.any(String) }));
      expect(warning!.err).not.toBe('');
      expect(await delayed()).toEqual({ value: 1, labels: { queue: DEADLINE_QUEUE, state: 'delayed' } });

      const logged = (group: number) =>
        w.lines.filter((l) => l.msg === 'deadline worker error' && l.group === group).length;
      await until(
        () => emitted.every((n, group) => n > logged(group) + 2 && logged(group) > 0),
        10_000,
        "each group's worker to emit errors more times than it logs",
      );
      for (const group of [0, 1]) expect(logged(group)).toBeLessThanOrEqual(3);

      await server.restart();
      await upsertDeadline(w.queues.of(tableId!), { tableId: tableId!, key: 'k2', dueAt: Date.now() }, 0);
      // Fired by the worker as it reconnects or, if its blocking read never comes back (BullMQ's
      // known wedge), by the new worker the watchdog starts after WORKER_STUCK_MS (2 s here).
      await until(() => dispatched.includes(tableId!), 20_000, 'the deadline to fire after the restart');
    } finally {
      own.disconnect();
      await w.worker.close();
      await server.stop();
    }
  });

  it("runs while every group's worker runs (one stopped: not running); refreshes the queue depth by its interval until closed; never logs its worker stopped", async () => {
    const w = workerOn(REDIS_URL);
    const depthReads = () => w.lines.filter((l) => l.msg === 'queue depth not read').length;
    try {
      const [tableId] = tableOfEachGroup();
      w.worker.start();
      await until(() => w.worker.running);
      // Set after the first read: only the interval (100 ms here) shows it.
      await upsertDeadline(
        w.queues.of(tableId!),
        { tableId: tableId!, key: 'k', dueAt: Date.now() + 60_000 },
        60_000,
      );
      const delayed = async () =>
        (await w.metrics.queueDepth.get()).values.find((v) => v.labels.state === 'delayed')?.value;
      for (let i = 0; i < 100 && (await delayed()) !== 1; i++) await sleep(20);
      expect(await delayed()).toBe(1);
      await w.worker.workerOf(1)!.close();
      expect(w.worker.workerOf(0)!.isRunning()).toBe(true);
      expect(w.worker.running).toBe(false);
    } finally {
      await w.worker.close();
      await cleanPrefix(redis, w.config.redisPrefix);
    }
    // Closed: its queues are closed, and no read of them is tried any more (each would fail).
    await sleep(350);
    expect(depthReads()).toBe(0);
    expect(w.lines.filter((l) => l.msg === 'deadline worker stopped')).toEqual([]);
  });

  it('a group whose worker has taken nothing for the bound while a job is due (its one job held up) gets a new worker, which fires the due job; the restart is counted by group; once closed, no worker is started again', async () => {
    const seed = workerOn(REDIS_URL);
    await seed.queues.close();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const dispatched: string[] = [];
    const holding = withDispatch(seed.streams, async (envelope, dispatch) => {
      dispatched.push(envelope.intentId);
      if (envelope.intentId === 'deadline:held') await held;
      return dispatch(envelope);
    });
    const w = workerOn(REDIS_URL, holding, { WORKER_CONCURRENCY: '1', WORKER_STUCK_MS: '200' });
    const [first, second] = tablesOfGroup(w.queues, 1, 2);
    try {
      w.worker.start();
      await until(() => w.worker.running);
      const wedged = w.worker.workerOf(1)!;
      const untouched = w.worker.workerOf(0)!;
      await upsertDeadline(w.queues.of(first!), { tableId: first!, key: 'held', dueAt: Date.now() }, 0);
      await until(() => dispatched.includes('deadline:held'));
      await upsertDeadline(w.queues.of(second!), { tableId: second!, key: 'next', dueAt: Date.now() }, 0);
      await until(() => w.lines.some((l) => l.msg === 'deadline fired' && l.key === 'next'));
      expect(dispatched).toContain('deadline:next');
      expect(w.worker.workerOf(1)).not.toBe(wedged);
      expect(w.worker.workerOf(0)).toBe(untouched);
      expect(w.lines).toContainEqual(
        expect.objectContaining({
          group: 1,
          msg: 'deadline worker takes no job while one is due: starting it again',
        }),
      );
      expect((await w.metrics.workerRestarts.get()).values).toEqual([{ value: 1, labels: { group: '1' } }]);
      expect(w.lines).toContainEqual(
        expect.objectContaining({
          level: 20,
          msg: 'deadline fired',
          tableId: second,
          key: 'next',
          lateMs: expect.any(Number),
        }),
      );
      await until(() => w.worker.running);
    } finally {
      release();
      await w.worker.close();
      await cleanPrefix(redis, w.config.redisPrefix);
    }
    // A restart that ends after the close starts no worker.
    await w.worker['restartWorker'](0);
    expect(w.worker.workerOf(0)).toBeUndefined();
  });

  it('a job that does not say when it was enqueued (handed in by hand) fires and counts its lateness, and no enqueued lateness', async () => {
    const dispatched: string[] = [];
    const seed = workerOn(REDIS_URL);
    await seed.queues.close();
    const w = workerOn(
      REDIS_URL,
      withDispatch(seed.streams, (envelope, dispatch) => {
        dispatched.push(envelope.intentId);
        return dispatch(envelope);
      }),
    );
    const count = async (histogram: typeof w.metrics.lateness) =>
      (await histogram.get()).values.find((v) => v.metricName?.endsWith('_count'))?.value ?? 0;
    try {
      await w.worker.process({ id: 'by-hand', data: { tableId: 'T1', key: 'T1:turn:1', dueAt: Date.now() } });
      expect(dispatched).toEqual(['deadline:T1:turn:1']);
      expect(await count(w.metrics.lateness)).toBe(1);
      expect(await count(w.metrics.enqueuedLate)).toBe(0);
    } finally {
      await w.worker.close();
      await cleanPrefix(redis, w.config.redisPrefix);
    }
  });
});

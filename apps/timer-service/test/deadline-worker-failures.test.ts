import { createRedis, upsertDeadline, type Redis } from '@dominoes/platform';
import { DEADLINE_QUEUE } from '@dominoes/protocol';
import { cleanPrefix, tableOfEachGroup, withDispatch, workerOn } from './support';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('deadline worker: failures, on real Redis (BullMQ)', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = createRedis(REDIS_URL, 'worker-failures-test');
  });
  afterAll(async () => {
    await redis.quit();
  });
  const clean = (prefix: string) => cleanPrefix(redis, prefix);

  it('runs only once started and until closed', async () => {
    const w = workerOn(REDIS_URL);
    try {
      expect(w.worker.running).toBe(false);
      w.worker.start();
      await sleep(200);
      expect(w.worker.running).toBe(true);
    } finally {
      await w.worker.close();
      await clean(w.config.redisPrefix);
    }
    expect(w.worker.running).toBe(false);
  });

  it("the queue depth gauge sums every group's queue, state by state", async () => {
    const w = workerOn(REDIS_URL);
    try {
      const ids = tableOfEachGroup();
      for (const [i, tableId] of ids.entries()) {
        await upsertDeadline(
          w.queues.of(tableId),
          { tableId, key: `k${i}`, dueAt: Date.now() + 60_000 },
          60_000,
        );
      }
      await w.worker.refreshDepth();
      const values = (await w.metrics.queueDepth.get()).values;
      const delayed = values.find((v) => v.labels.state === 'delayed');
      expect(delayed).toEqual({ value: 2, labels: { queue: DEADLINE_QUEUE, state: 'delayed' } });
      expect(values.find((v) => v.labels.state === 'wait')?.value).toBe(0);
      expect(values.map((v) => v.labels.state).sort()).toEqual(
        ['active', 'delayed', 'failed', 'prioritized', 'wait'].sort(),
      );
    } finally {
      await w.queues.close();
      await w.streams.close();
      await clean(w.config.redisPrefix);
    }
  });

  it('a job whose intent cannot be dispatched is logged as failed with its group, table and attempts, and fires once dispatching works', async () => {
    const real = workerOn(REDIS_URL);
    let down = true;
    const dispatched: string[] = [];
    const flaky = withDispatch(real.streams, (envelope, dispatch) => {
      if (down) return Promise.reject(new Error('stream unreachable'));
      dispatched.push(envelope.tableId);
      return dispatch(envelope);
    });
    await real.queues.close();
    const w = workerOn(REDIS_URL, flaky);
    const ids = tableOfEachGroup();
    const tableId = ids[1]!;
    try {
      w.worker.start();
      await upsertDeadline(w.queues.of(tableId), { tableId, key: 'kf', dueAt: Date.now() }, 0);
      for (let i = 0; i < 100 && !w.lines.some((l) => l.msg === 'deadline job failed'); i++) await sleep(50);
      expect(w.lines.find((l) => l.msg === 'deadline job failed')).toEqual(
        expect.objectContaining({
          level: 40,
          group: 1,
          jobId: expect.any(String),
          tableId,
          attempts: 1,
          err: 'stream unreachable',
        }),
      );
      down = false;
      for (let i = 0; i < 100 && dispatched.length === 0; i++) await sleep(50);
      expect(dispatched).toEqual([tableId]);
    } finally {
      await w.worker.close();
      await clean(w.config.redisPrefix);
    }
  });
});

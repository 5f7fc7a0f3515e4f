import { createRedis, DEADLINE_LEAD_MS, upsertDeadline, type ShardedStreamsClient } from '@dominoes/platform';
import { enqueuedDueAt } from '../src/deadline-worker';
import { tableOfEachGroup, withDispatch, workerOn } from './support';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The histogram's count and sum (seconds), as /metrics shows them. */
async function observed(histogram: { get(): Promise<{ values: { value: number; metricName?: string }[] }> }) {
  const { values } = await histogram.get();
  const of = (suffix: string) => values.find((v) => v.metricName?.endsWith(suffix))?.value ?? 0;
  return { count: of('_count'), sum: of('_sum') };
}

async function clean(prefix: string): Promise<void> {
  const redis = createRedis(REDIS_URL, 'enqueued-late-clean');
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}

describe('enqueuedDueAt: when BullMQ was told to make a job due', () => {
  it('is the moment the job was enqueued plus the delay it was added with', () => {
    expect(enqueuedDueAt({ timestamp: 1_000, opts: { delay: 500 } })).toBe(1_500);
    expect(enqueuedDueAt({ timestamp: 1_000, opts: { delay: 0 } })).toBe(1_000);
  });

  it('is null for a job that does not say (a job handed in by hand)', () => {
    expect(enqueuedDueAt({})).toBeNull();
    expect(enqueuedDueAt({ timestamp: 1_000 })).toBeNull();
    expect(enqueuedDueAt({ timestamp: 1_000, opts: {} })).toBeNull();
    expect(enqueuedDueAt({ opts: { delay: 500 } })).toBeNull();
  });
});

describe('dominoes_deadline_enqueued_late_seconds (real Redis, the real worker)', () => {
  it('a deadline set while nothing of its table is active is enqueued due when it was set for; one set while the table\u2019s previous job is still being dispatched is stored, enqueued once that job ends with its whole delay counted from then, and the metric says how late (keepLastIfActive)', async () => {
    const dispatched: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The real stream client, with the first firing's write held back: its job stays active.
    const holding = (real: ShardedStreamsClient) =>
      withDispatch(real, async (envelope, dispatch) => {
        dispatched.push(envelope.intentId);
        if (envelope.intentId === 'deadline:held') await held;
        return dispatch(envelope);
      });
    const base = workerOn(REDIS_URL);
    await base.queues.close();
    const w = workerOn(REDIS_URL, holding(base.streams), { REDIS_PREFIX: base.config.redisPrefix });
    const [tableId] = tableOfEachGroup();
    const queue = w.queues.of(tableId!);
    try {
      w.worker.start();
      const first = await upsertDeadline(
        queue,
        { tableId: tableId!, key: 'held', dueAt: Date.now() + 50 },
        50,
      );
      for (let i = 0; i < 100 && dispatched.length === 0; i++) await sleep(20);
      expect(dispatched).toEqual(['deadline:held']);
      expect(await queue.getJobState(first.jobId)).toBe('active');
      // Enqueued at its add with its delay (the caller's clock read a moment before BullMQ's).
      expect(await observed(w.metrics.enqueuedLate)).toEqual({ count: 1, sum: expect.any(Number) });
      expect((await observed(w.metrics.enqueuedLate)).sum).toBeLessThan(0.02);

      // The next deadline is set while the first one's firing is still under way.
      const setAt = Date.now();
      const next = await upsertDeadline(queue, { tableId: tableId!, key: 'next', dueAt: setAt + 100 }, 100);
      expect(next.outcome).toBe('after-active');
      await sleep(400);
      const releasedAt = Date.now();
      release();
      for (let i = 0; i < 100 && dispatched.length < 2; i++) await sleep(10);
      expect(dispatched).toEqual(['deadline:held', 'deadline:next']);
      // Due 100 ms (less the lead) after the held job ended, not 100 ms after it was set.
      expect(Date.now() - releasedAt).toBeGreaterThanOrEqual(100 - DEADLINE_LEAD_MS - 10);
      const after = await observed(w.metrics.enqueuedLate);
      expect(after.count).toBe(2);
      // The held job ended ~400 ms after the next one was set: that late, by BullMQ's clock.
      expect(after.sum).toBeGreaterThanOrEqual(0.35);
      expect(after.sum).toBeLessThan(2);
      await sleep(200);
      expect(dispatched).toHaveLength(2);
    } finally {
      release();
      await w.worker.close();
      await clean(w.config.redisPrefix);
    }
  }, 20_000);
});

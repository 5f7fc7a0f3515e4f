import { createRedis, upsertDeadline, type ShardedStreamsClient } from '@dominoes/platform';
import type { IntentEnvelope } from '@dominoes/protocol';
import { enqueuedDueAt } from '../src/deadline-worker';
import { tableOfEachGroup, workerOn } from './support';

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

describe('a firing lets go of its table\u2019s deduplication key (decision 0028; real Redis, the real worker)', () => {
  it('the next deadline, set while the firing job is still active, is an ordinary add due when it was set for: it fires on time while that job is still being dispatched, each key once', async () => {
    const dispatched: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The real stream client, with the first firing's write held back: its job stays active.
    const holding = (real: ShardedStreamsClient) =>
      new Proxy(real, {
        get(target, property, receiver) {
          if (property === 'dispatch')
            return async (envelope: IntentEnvelope) => {
              dispatched.push(envelope.intentId);
              if (envelope.intentId === 'deadline:held') await held;
              return target.dispatch(envelope);
            };
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
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

      // The table-service sets the next deadline while the first one's firing is still under way.
      const setAt = Date.now();
      const next = await upsertDeadline(queue, { tableId: tableId!, key: 'next', dueAt: setAt + 100 }, 100);
      // Held by the firing job, the key would make this 'after-active': enqueued once that job ends.
      expect(next.outcome).toBe('added');
      for (let i = 0; i < 100 && dispatched.length < 2; i++) await sleep(10);
      const firedAt = Date.now();
      expect(dispatched).toEqual(['deadline:held', 'deadline:next']);
      expect(firedAt - setAt).toBeGreaterThanOrEqual(100);
      expect(firedAt - setAt).toBeLessThan(1_000);
      expect(await queue.getJobState(first.jobId)).toBe('active'); // still the held one

      // Both were enqueued due when they were set for.
      const late = await observed(w.metrics.enqueuedLate);
      expect(late.count).toBe(2);
      expect(late.sum).toBeLessThan(0.02);

      release();
      await sleep(300);
      expect(dispatched).toEqual(['deadline:held', 'deadline:next']);
      const counts = await queue.getJobCounts('active', 'wait', 'delayed', 'failed');
      expect(counts).toEqual({ active: 0, wait: 0, delayed: 0, failed: 0 });
    } finally {
      release();
      await w.worker.close();
      await clean(w.config.redisPrefix);
    }
  }, 20_000);
});

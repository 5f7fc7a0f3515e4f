import { randomBytes } from 'node:crypto';
import { Worker, type Job } from 'bullmq';
import { DEADLINE_QUEUE, redisNames, type DeadlineJob } from '@dominoes/protocol';
import {
  createDeadlineQueue,
  createRedis,
  DEADLINE_LEAD_MS,
  upsertDeadline,
  type DeadlineQueue,
} from '@dominoes/platform';

/**
 * Proves the one call the table-service makes on every change of a table's deadline
 * (`upsertDeadline` in libs/platform/src/deadlines.ts) against a real Redis and BullMQ 6.7:
 * one delayed job per table, replaced in place. Each case has a queue (prefix) of its own.
 * Timing bounds are loose on the late side (a loaded 2-core machine), strict on the early side.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const run = randomBytes(4).toString('hex');

interface Fired {
  readonly key: string;
  readonly at: number;
}

let queue: DeadlineQueue;
let prefix: string;
let cases = 0;
const workers: Worker[] = [];
const connections: ReturnType<typeof createRedis>[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startWorker(onJob: (job: Job<DeadlineJob>) => Promise<void>): Worker<DeadlineJob> {
  const connection = createRedis(REDIS_URL, 'test-worker');
  connections.push(connection);
  const worker = new Worker<DeadlineJob>(DEADLINE_QUEUE, onJob, {
    connection,
    prefix: redisNames(prefix).bullPrefix(0),
    concurrency: 5,
  });
  workers.push(worker);
  return worker;
}

async function waitFor(predicate: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(10);
  }
}

const allCounts = async () => {
  const counts = await queue.getJobCounts('wait', 'delayed', 'active', 'prioritized', 'failed');
  return Object.values(counts).reduce((a, b) => a + b, 0);
};

beforeAll(async () => {
  const redis = createRedis(REDIS_URL, 'test-setup');
  await redis.config('SET', 'hz', '100');
  await redis.quit();
});

beforeEach(() => {
  cases += 1;
  prefix = `test_upsert_${run}_${cases}`;
  queue = createDeadlineQueue(REDIS_URL, prefix);
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.close()));
  await Promise.all(connections.splice(0).map((c) => c.quit()));
  await queue.obliterate({ force: true });
  await queue.close();
});

it('(a) re-adding with a new delay replaces the delayed job: only the last fires, at its new time', async () => {
  const fired: Fired[] = [];
  startWorker(async (job) => {
    fired.push({ key: job.data.key, at: Date.now() });
  });
  const t0 = Date.now();
  const first = await upsertDeadline(queue, { tableId: 'TABLEA', key: 'a1', dueAt: t0 + 3000 }, 3000);
  const t1 = Date.now();
  const second = await upsertDeadline(queue, { tableId: 'TABLEA', key: 'a2', dueAt: t1 + 500 }, 500);
  expect(first.outcome).toBe('added');
  expect(second.outcome).toBe('added');
  // One job of the table exists, and it is the new one; the first is gone.
  expect(await queue.getDeduplicationJobId('TABLEA')).toBe(second.jobId);
  expect(await queue.getJobState(first.jobId)).toBe('unknown');
  expect((await queue.getJobCounts('delayed')).delayed).toBe(1);

  await waitFor(() => fired.length > 0, 5000);
  expect(fired.map((f) => f.key)).toEqual(['a2']);
  // Not before its new time (the job is due DEADLINE_LEAD_MS early; the timer waits the rest).
  expect(fired[0]!.at).toBeGreaterThanOrEqual(t1 + 500 - DEADLINE_LEAD_MS - 5);
  expect(fired[0]!.at).toBeLessThan(t1 + 500 + 2000);
  await sleep(100);
  expect(await allCounts()).toBe(0); // nothing else is left to fire
  expect(await queue.getDeduplicationJobId('TABLEA')).toBeNull();
});

it('(a2) a later time replaces an earlier one too', async () => {
  const fired: Fired[] = [];
  startWorker(async (job) => {
    fired.push({ key: job.data.key, at: Date.now() });
  });
  await upsertDeadline(queue, { tableId: 'TABLEA', key: 'e1', dueAt: Date.now() + 300 }, 300);
  const t1 = Date.now();
  await upsertDeadline(queue, { tableId: 'TABLEA', key: 'e2', dueAt: t1 + 800 }, 800);
  await waitFor(() => fired.length > 0, 5000);
  expect(fired.map((f) => f.key)).toEqual(['e2']);
  expect(fired[0]!.at).toBeGreaterThanOrEqual(t1 + 800 - DEADLINE_LEAD_MS - 5);
});

it('(b) adding while the previous job is ACTIVE still fires the new one later (not dropped)', async () => {
  const fired: Fired[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let started = false;
  startWorker(async (job) => {
    fired.push({ key: job.data.key, at: Date.now() });
    if (job.data.key === 'b1') {
      started = true;
      await gate; // the processor is still running when the table moves on
    }
  });
  await upsertDeadline(queue, { tableId: 'TABLEB', key: 'b1', dueAt: Date.now() + 50 }, 50);
  await waitFor(() => started, 5000);

  const second = await upsertDeadline(queue, { tableId: 'TABLEB', key: 'b2', dueAt: Date.now() + 200 }, 200);
  expect(second.outcome).toBe('after-active');
  // A later change while b1 is still active replaces the stored next job: only the last survives.
  const third = await upsertDeadline(queue, { tableId: 'TABLEB', key: 'b3', dueAt: Date.now() + 200 }, 200);
  expect(third.outcome).toBe('after-active');

  await sleep(100);
  const releasedAt = Date.now();
  release();
  await waitFor(() => fired.length >= 2, 5000);
  expect(fired.map((f) => f.key)).toEqual(['b1', 'b3']);
  // The stored job's delay counts from the moment the active one finished.
  const after = fired[1]!.at - releasedAt;
  expect(after).toBeGreaterThanOrEqual(200 - DEADLINE_LEAD_MS - 10);
  expect(after).toBeLessThan(2500);
  await sleep(100);
  expect(await allCounts()).toBe(0);
  expect(fired).toHaveLength(2);
});

it('(c) adding while the previous job is WAITING (due, not picked up yet) replaces it too', async () => {
  // No worker yet: a due job stays in the wait list, as when the timer-service is busy or down.
  await upsertDeadline(queue, { tableId: 'TABLEC', key: 'c1', dueAt: Date.now() }, 0);
  expect((await queue.getJobCounts('wait')).wait).toBe(1);
  const second = await upsertDeadline(queue, { tableId: 'TABLEC', key: 'c2', dueAt: Date.now() + 100 }, 100);
  expect(second.outcome).toBe('added');
  expect((await queue.getJobCounts('wait')).wait).toBe(0);

  const fired: Fired[] = [];
  startWorker(async (job) => {
    fired.push({ key: job.data.key, at: Date.now() });
  });
  await waitFor(() => fired.length > 0, 5000);
  await sleep(100);
  expect(fired.map((f) => f.key)).toEqual(['c2']);
  expect(await allCounts()).toBe(0);
});

it('plain BullMQ dedup (replace only, without keepLastIfActive) DROPS an add made while the job is active', async () => {
  // Why upsertDeadline needs keepLastIfActive: this is the failure it avoids.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const fired: string[] = [];
  startWorker(async (job) => {
    fired.push(job.data.key);
    if (job.data.key === 'd1') await gate;
  });
  const opts = (delay: number) => ({
    delay,
    deduplication: { id: 'TABLED', replace: true, extend: true, ttl: 60_000 },
  });
  await queue.add('deadline', { tableId: 'TABLED', key: 'd1', dueAt: 0 }, opts(20));
  await waitFor(() => fired.length === 1, 5000);
  const second = await queue.add('deadline', { tableId: 'TABLED', key: 'd2', dueAt: 0 }, opts(50));
  release();
  await sleep(300);
  expect(fired).toEqual(['d1']);
  expect(second.data.key).toBe('d2');
  expect(await allCounts()).toBe(0); // d2 exists nowhere
});

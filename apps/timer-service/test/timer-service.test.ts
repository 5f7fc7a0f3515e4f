import { randomBytes } from 'node:crypto';
import {
  INTENT_FIELD,
  IntentEnvelopeSchema,
  redisNames,
  shardOf,
  type IntentEnvelope,
} from '@dominoes/protocol';
import {
  createDeadlineQueue,
  createRedis,
  upsertDeadline,
  type DeadlineQueue,
  type Redis,
} from '@dominoes/platform';
import type { TimerApp } from '../src/timer-app';
import { startTestTimer } from './support';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test_timer_${randomBytes(4).toString('hex')}`;
const names = redisNames(prefix);
const SHARDS = 4;

let timer: TimerApp;
let queue: DeadlineQueue;
let redis: Redis;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function streamEntries(tableId: string): Promise<{ id: string; envelope: IntentEnvelope }[]> {
  const entries = await redis.xrange(names.intentStream(shardOf(tableId, SHARDS)), '-', '+');
  return entries.map(([id, fields]) => ({
    id,
    envelope: IntentEnvelopeSchema.parse(JSON.parse(fields[fields.indexOf(INTENT_FIELD) + 1]!)),
  }));
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${timer.port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : Number.NaN;
}

beforeAll(async () => {
  redis = createRedis(REDIS_URL, 'timer-test');
  await redis.config('SET', 'hz', '100');
  queue = createDeadlineQueue(REDIS_URL, prefix);
  timer = await startTestTimer(REDIS_URL, prefix, 'timer-test', {
    TABLE_SHARDS: String(SHARDS),
    QUEUE_DEPTH_INTERVAL_MS: '100',
  });
}, 30_000);

afterAll(async () => {
  await timer?.shutdown();
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

it('a deadline due in 300 ms becomes a deadline intent on the table\u2019s shard stream, on time', async () => {
  const tableId = 'T7K2MQ';
  const dueAt = Date.now() + 300;
  await upsertDeadline(queue, { tableId, key: 'm1r1t4', dueAt }, 300);
  expect(await streamEntries(tableId)).toEqual([]);

  let entries: { id: string; envelope: IntentEnvelope }[] = [];
  for (let i = 0; i < 200 && entries.length === 0; i++) {
    await sleep(10);
    entries = await streamEntries(tableId);
  }
  const arrived = Date.now();
  expect(entries).toHaveLength(1);
  expect(entries[0]!.envelope).toEqual({
    intentId: 'deadline:m1r1t4',
    tableId,
    player: null,
    connectionId: null,
    replyTo: null,
    sentAt: expect.any(Number),
    intent: { kind: 'deadline', key: 'm1r1t4', dueAt },
  });
  const { sentAt } = entries[0]!.envelope;
  expect(sentAt).toBeGreaterThanOrEqual(dueAt); // never early
  // Typically 5-20 ms late with hz 100; the bound is loose for a loaded 2-core machine.
  expect(sentAt - dueAt).toBeLessThan(1500);
  expect(arrived).toBeGreaterThanOrEqual(sentAt);

  expect(await metric('dominoes_deadlines_fired_total')).toBe(1);
  expect(await metric('dominoes_deadline_lateness_seconds_count')).toBe(1);
  const latenessSum = await metric('dominoes_deadline_lateness_seconds_sum');
  expect(latenessSum).toBeCloseTo((sentAt - dueAt) / 1000, 3);
});

it('a job whose data is not a DeadlineJob is logged and completed, and nothing is dispatched', async () => {
  await queue.add('deadline', { tableId: 42 } as never, { removeOnComplete: true });
  for (let i = 0; i < 200 && (await metric('dominoes_deadline_jobs_invalid_total')) < 1; i++) await sleep(10);
  expect(await metric('dominoes_deadline_jobs_invalid_total')).toBe(1);
  expect(await metric('dominoes_deadlines_fired_total')).toBe(1);
  expect((await queue.getJobCounts('failed')).failed).toBe(0);
});

it('serves /health/live, /health/ready and the queue depth gauge', async () => {
  expect((await fetch(`http://127.0.0.1:${timer.port}/health/live`)).status).toBe(200);
  const ready = await fetch(`http://127.0.0.1:${timer.port}/health/ready`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({ status: 'ok', redis: 'ok', worker: 'running' });
  await upsertDeadline(queue, { tableId: 'LATER1', key: 'k', dueAt: Date.now() + 60_000 }, 60_000);
  await sleep(250);
  const text = await (await fetch(`http://127.0.0.1:${timer.port}/metrics`)).text();
  expect(text).toMatch(/dominoes_queue_depth\{queue="deadlines",state="delayed"\} 1/);
});

import { randomBytes } from 'node:crypto';
import { INTENT_FIELD, redisNames, shardOf } from '@dominoes/protocol';
import { upsertDeadline } from '@dominoes/platform';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { expectLiveAndReady, wiringSteps } from '../../../e2e/src/wiring-test';
import { readTimerConfig, type TimerConfig } from '../src/config';
import { startTimerService, type TimerApp } from '../src/timer-app';
import { redisOfTimer, tableOfEachGroup } from './support';

/**
 * The timer-service as TimerModule and startTimerService wire it, started once on real Redis with a
 * prefix of its own (4 shards, 2 deadline groups): health, metrics, every group's deadlines worked,
 * and shutdown.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test_timer_wiring_${randomBytes(4).toString('hex')}`;
const names = redisNames(prefix, 4);
let timer: TimerApp;
let suite: ReturnType<typeof redisOfTimer>;
let base: string;
let config: TimerConfig;
const { logger, lines } = recordingLogger();

beforeAll(async () => {
  config = readTimerConfig({
    REDIS_URL,
    REDIS_PREFIX: prefix,
    PORT: '0',
    HOST: '127.0.0.1',
    TABLE_SHARDS: '4',
    DEADLINE_GROUPS: '2',
    WORKER_CONCURRENCY: '7',
  });
  suite = redisOfTimer(config, 'timer-wiring-test');
}, 30_000);

afterAll(async () => {
  await timer?.shutdown();
  await suite?.dispose();
});

async function tablesOnShard(shard: number): Promise<string[]> {
  const entries = await suite.redis.xrange(names.intentStream(shard), '-', '+');
  return entries.map(
    ([, fields]) => (JSON.parse(fields[fields.indexOf(INTENT_FIELD) + 1]!) as { tableId: string }).tableId,
  );
}

describe('the timer-service as its module wires it (real Redis)', () => {
  // One test: it starts the app, then runs the steps, each named for what it proves (why: wiringSteps).
  const { step, test } = wiringSteps();

  step('is live, and ready once Redis answers and the worker runs', async () => {
    await expectLiveAndReady(base, { status: 'ok', redis: 'ok', worker: 'running' });
    expect(timer.worker.running).toBe(true);
  });

  step('logs that it runs, with its port, concurrency, prefix and shards', () => {
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 30,
        msg: `timer-service running; health and metrics on :${timer.port}`,
        port: timer.port,
        concurrency: 7,
        prefix,
        shards: 4,
      }),
    );
  });

  step('holds its Redis connections under its name', async () => {
    const list = (await suite.redis.client('LIST')) as string;
    expect(list).toMatch(/\bname=timer-service\S*/);
  });

  step(
    'works every deadline group: a deadline of each becomes an intent on its table’s shard stream',
    async () => {
      const tables = tableOfEachGroup();
      for (const [group, tableId] of tables.entries())
        await upsertDeadline(suite.queues.all[group]!, { tableId, key: `k${group}`, dueAt: Date.now() }, 0);
      for (const tableId of tables) {
        const shard = shardOf(tableId, 4);
        for (let i = 0; i < 300 && !(await tablesOnShard(shard)).includes(tableId); i++)
          await new Promise((resolve) => setTimeout(resolve, 10));
        expect(await tablesOnShard(shard)).toContain(tableId);
      }
    },
  );

  step('serves its metrics, by name, on its port', async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text.split('\n').filter((l) => l.startsWith('# HELP'))).toEqual([
      '# HELP dominoes_deadline_lateness_seconds How late a deadline was dispatched: dispatch time minus the job\u2019s dueAt',
      '# HELP dominoes_deadline_enqueued_late_seconds How much later than its dueAt BullMQ was told to make a job due (enqueued at + delay - dueAt); above 0 when the job was stored while the table\u2019s previous one was active and enqueued once that one finished (keepLastIfActive)',
      '# HELP dominoes_deadlines_fired_total Deadline intents dispatched to the table shards',
      '# HELP dominoes_deadline_jobs_invalid_total Deadline jobs whose data failed DeadlineJobSchema (completed without dispatch)',
      '# HELP dominoes_deadline_worker_restarts_total Deadline workers started again because they took no job while one was due (StuckWorkerWatchdog)',
      '# HELP dominoes_queue_depth Jobs in a BullMQ queue by state',
    ]);
    const buckets = (name: string) =>
      [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\}`, 'gm'))].map((m) => m[1]);
    expect(buckets('dominoes_deadline_lateness_seconds')).toEqual(
      '0.005 0.01 0.02 0.035 0.05 0.1 0.25 0.5 1 2.5 5 10 30 +Inf'.split(' '),
    );
    expect(buckets('dominoes_deadline_enqueued_late_seconds')).toEqual(
      '0.001 0.005 0.01 0.02 0.035 0.05 0.1 0.25 0.5 1 2.5 5 +Inf'.split(' '),
    );
    expect(text).toMatch(/^dominoes_deadlines_fired_total 2$/m);
    expect(text).toMatch(/^dominoes_deadline_jobs_invalid_total 0$/m);
    expect(text).toMatch(/^# TYPE dominoes_queue_depth gauge$/m);
    expect(text).toMatch(/^# TYPE dominoes_deadline_worker_restarts_total counter$/m);
  });

  step('shutdown stops the worker and closes its port; a second shutdown is the same one', async () => {
    const shutdown = timer.shutdown();
    expect(timer.shutdown()).toBe(shutdown);
    await shutdown;
    expect(timer.worker.running).toBe(false);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 20, msg: 'timer-service connections closed' }),
    );
    await expect(fetch(`${base}/health/live`)).rejects.toThrow();
  });

  test(async () => {
    timer = await startTimerService(config, { logger, defaultMetrics: false });
    base = `http://127.0.0.1:${timer.port}`;
  });
});

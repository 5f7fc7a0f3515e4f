import { randomBytes } from 'node:crypto';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import {
  createDeadlineQueues,
  createLogger,
  createRedis,
  ShardedStreamsClient,
  systemClock,
  type DeadlineQueues,
  type Redis,
} from '@dominoes/platform';
import { deadlineGroupOf, shardOf, type IntentEnvelope } from '@dominoes/protocol';
import { readTimerConfig, type TimerConfig } from '../src/config';
import { DeadlineWorker } from '../src/deadline-worker';
import { TimerMetrics } from '../src/metrics';
import { startTimerService, type TimerApp } from '../src/timer-app';

/** A timer-service on a free port, quiet unless TEST_LOG_LEVEL is set, for the suites here. */
export function startTestTimer(
  redisUrl: string,
  prefix: string,
  label: string,
  env: Record<string, string> = {},
): Promise<TimerApp> {
  const config = readTimerConfig({
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    PORT: '0',
    HOST: '127.0.0.1',
    ...env,
  });
  return startTimerService(config, {
    logger: createLogger(label, process.env.TEST_LOG_LEVEL ?? 'silent'),
    defaultMetrics: false,
  });
}

const WORKER_SHARDS = 4;
const WORKER_GROUPS = 2;

/**
 * The timer-service's worker as its module wires it, on `redisUrl`, with a key prefix of its own
 * (4 shards, 2 deadline groups); `env` adds to or overrides its configuration.
 */
export function workerOn(redisUrl: string, client?: ShardedStreamsClient, env: Record<string, string> = {}) {
  const config: TimerConfig = readTimerConfig({
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `test_worker_${randomBytes(4).toString('hex')}`,
    TABLE_SHARDS: String(WORKER_SHARDS),
    DEADLINE_GROUPS: String(WORKER_GROUPS),
    QUEUE_DEPTH_INTERVAL_MS: '100',
    ...env,
  });
  const streams =
    client ??
    new ShardedStreamsClient({
      redisUrl: config.redisUrl,
      prefix: config.redisPrefix,
      shards: config.tableShards,
      replyChannel: null,
      connectionName: 'worker-test',
    });
  const queues: DeadlineQueues = createDeadlineQueues(config);
  const metrics = new TimerMetrics(false);
  const { logger, lines } = recordingLogger();
  const worker = new DeadlineWorker(config, streams, queues, systemClock, metrics, logger);
  return { config, streams, queues, metrics, worker, lines };
}

/** A table id of each deadline group of `workerOn`'s worker, in group order. */
export function tableOfEachGroup(): string[] {
  const ids: string[] = [];
  for (let n = 0; ids.filter(Boolean).length < WORKER_GROUPS; n++) {
    const id = `W${String(n).padStart(5, '0')}`;
    ids[deadlineGroupOf(shardOf(id, WORKER_SHARDS), WORKER_GROUPS)] ??= id;
  }
  return ids;
}

/**
 * The real stream client, its `dispatch` replaced by `dispatch(envelope, real)` (to record, hold back
 * or fail a firing's write); everything else is the client's own.
 */
export function withDispatch(
  client: ShardedStreamsClient,
  dispatch: (
    envelope: IntentEnvelope,
    real: (envelope: IntentEnvelope) => Promise<string>,
  ) => Promise<string>,
): ShardedStreamsClient {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'dispatch')
        return (envelope: IntentEnvelope) => dispatch(envelope, (e) => target.dispatch(e));
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Removes every key of a test's prefix. */
export async function cleanPrefix(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`*${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
}

/**
 * A suite's own hold on the Redis of a timer-service of `config`: a client named `label` and the
 * deadline queues of the configuration's groups (as the table-service adds to them); `dispose()`
 * empties and closes the queues, removes every key of the prefix (cleanPrefix) and quits the client.
 */
export function redisOfTimer(
  config: TimerConfig,
  label: string,
): { redis: Redis; queues: DeadlineQueues; dispose(): Promise<void> } {
  const redis = createRedis(config.redisUrl, label);
  const queues = createDeadlineQueues(config);
  return {
    redis,
    queues,
    async dispose() {
      for (const queue of queues.all) await queue.obliterate({ force: true }).catch(() => undefined);
      await queues.close();
      await cleanPrefix(redis, config.redisPrefix);
      await redis.quit();
    },
  };
}

import { intFromEnv, readBaseConfig, type BaseConfig } from '@dominoes/platform';

export interface TimerConfig extends BaseConfig {
  readonly port: number;
  readonly host: string;
  /** Deadline jobs processed at once by this replica. */
  readonly concurrency: number;
  /** How often the queue depth gauge is refreshed. */
  readonly queueDepthIntervalMs: number;
  readonly shutdownGraceMs: number;
}

export function readTimerConfig(env: NodeJS.ProcessEnv = process.env): TimerConfig {
  return {
    ...readBaseConfig(env),
    port: intFromEnv(env, 'PORT', 8082, 0, 65535),
    host: env.HOST && env.HOST !== '' ? env.HOST : '0.0.0.0',
    concurrency: intFromEnv(env, 'WORKER_CONCURRENCY', 50, 1, 1000),
    queueDepthIntervalMs: intFromEnv(env, 'QUEUE_DEPTH_INTERVAL_MS', 5000, 100, 600_000),
    shutdownGraceMs: intFromEnv(env, 'SHUTDOWN_GRACE_MS', 10_000, 100, 120_000),
  };
}

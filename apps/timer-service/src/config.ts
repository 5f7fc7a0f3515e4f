import { envInt, envString, serviceConfig } from '@dominoes/platform';

export const readTimerConfig = serviceConfig(
  {
    PORT: envInt(8082, 0, 65535),
    HOST: envString('0.0.0.0'),
    WORKER_CONCURRENCY: envInt(50, 1, 1000),
    QUEUE_DEPTH_INTERVAL_MS: envInt(5000, 100, 600_000),
    WORKER_STUCK_MS: envInt(10_000, 200, 600_000),
  },
  (env) => ({
    port: env.PORT,
    host: env.HOST,
    /** Deadline jobs processed at once by this replica. */
    concurrency: env.WORKER_CONCURRENCY,
    /** How often the queue depth gauge is refreshed. */
    queueDepthIntervalMs: env.QUEUE_DEPTH_INTERVAL_MS,
    /**
     * A group's worker that took no job for this long while a job was due this long is started
     * again (StuckWorkerWatchdog): a worker wedged after a Redis Cluster failover.
     */
    workerStuckMs: env.WORKER_STUCK_MS,
  }),
);

export type TimerConfig = ReturnType<typeof readTimerConfig>;

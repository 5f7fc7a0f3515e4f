import Redis, { type RedisOptions } from 'ioredis';

export { Redis };

/**
 * A Redis connection. `blocking` connections (stream reads, BullMQ workers, subscribers) must
 * not fail commands after a few retries: `maxRetriesPerRequest: null`.
 */
export function createRedis(url: string, name: string, options: RedisOptions = {}): Redis {
  return new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times) => Math.min(times * 100, 2000),
    ...options,
  });
}

import Redis, { type RedisOptions } from 'ioredis';

export { Redis };

/** Where a connection reports that it lost Redis and got it back (a service's logger fits). */
export interface RedisConnectionReporter {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

/** A JSON line on stderr, shaped like the services' pino lines: for connections given no logger. */
const line =
  (level: number) =>
  (fields: Record<string, unknown>, message: string): void =>
    void process.stderr.write(
      `${JSON.stringify({ level, time: new Date().toISOString(), ...fields, msg: message })}\n`,
    );
const stderrReporter: RedisConnectionReporter = { warn: line(40), info: line(30) };

/**
 * A Redis connection. ioredis reconnects by itself (every 100 ms, 200 ms, ... at most every 2 s),
 * re-subscribes a subscriber's channels and resends the commands that were under way.
 *
 * - `maxRetriesPerRequest: null` (the default here): a command issued while Redis is away waits for
 *   it to come back. Right for blocking readers (stream reads, BullMQ workers, subscribers) and for
 *   the table-service, whose work cannot go on without Redis anyway.
 * - A caller that must answer someone soon (the gateway's intent writer, the deadline producer)
 *   passes a small number: its commands then fail after that many reconnect attempts.
 *
 * An `error` listener is always attached: without one ioredis prints every failed reconnect attempt
 * with its stack. Instead one line says Redis is unreachable, and one that it is back.
 */
export function createRedis(
  url: string,
  name: string,
  options: RedisOptions = {},
  reporter: RedisConnectionReporter = stderrReporter,
): Redis {
  const redis = new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times) => Math.min(times * 100, 2000),
    ...options,
  });
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    reporter.warn({ redis: name, err: error.message }, 'redis connection lost; reconnecting');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    reporter.info({ redis: name }, 'redis connection back');
  });
  return redis;
}

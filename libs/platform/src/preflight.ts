import { Client } from 'pg';
import Redis from 'ioredis';
import type { RedisTarget } from './redis';

/** A URL as it may be shown or logged: its password replaced by `***`. */
export const redact = (url: string): string => url.replace(/\/\/([^:@/]+):([^@/]+)@/, '//$1:***@');

/** Says plainly what is missing and how to start it, instead of a stack trace. */
export async function checkPostgres(databaseUrl: string): Promise<string | null> {
  const target = new URL(databaseUrl);
  target.pathname = '/postgres';
  const client = new Client({ connectionString: target.toString(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    return (
      `Cannot reach Postgres at ${redact(databaseUrl)} (${(error as Error).message}).\n` +
      `  Start it, e.g.: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start\n` +
      `  or: docker compose up -d postgres   (then set DATABASE_URL)`
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** One Redis (a URL), or a cluster: one of its listed nodes answering is enough (the client finds the rest). */
export async function checkRedis(target: RedisTarget): Promise<string | null> {
  const nodes = typeof target === 'string' ? [] : (target.redisClusterNodes ?? []);
  if (nodes.length === 0) return checkOneRedis(typeof target === 'string' ? target : target.redisUrl);
  const problems: string[] = [];
  for (const node of nodes) {
    const problem = await checkOneRedis(node.includes('://') ? node : `redis://${node}`);
    if (problem === null) return null;
    problems.push(problem);
  }
  return `No node of REDIS_CLUSTER_NODES answers:\n${problems.join('\n')}`;
}

async function checkOneRedis(redisUrl: string): Promise<string | null> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 3000,
  });
  // The failure is reported below; without a listener ioredis also prints "Unhandled error event".
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (error) {
    return (
      `Cannot reach Redis at ${redact(redisUrl)} (${(error as Error).message}).\n` +
      `  Start it, e.g.: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --hz 100 --maxmemory-policy noeviction\n` +
      `  or: docker compose up -d redis   (then set REDIS_URL)`
    );
  } finally {
    redis.disconnect();
  }
}

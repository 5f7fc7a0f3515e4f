import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { runMigrations } from './migrations';
import { checkPostgres, checkRedis } from './preflight';

/**
 * Real Postgres and Redis for integration tests: DATABASE_URL / REDIS_URL when set (CI and these
 * machines); when unset, a Postgres and Redis already answering on localhost; otherwise (or with
 * TEST_STORES=containers) containers started with testcontainers (a laptop with Docker and nothing
 * local; CI runs the store and engine suites that way too). Each suite
 * gets its own database and its own Redis key prefix, so suites can run in parallel.
 */
export interface TestStores {
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly redisPrefix: string;
  dispose(): Promise<void>;
}

const LOCAL_POSTGRES = 'postgresql://postgres@127.0.0.1:5432/postgres';
const LOCAL_REDIS = 'redis://127.0.0.1:6379';

async function serverUrls(): Promise<{ postgres: string; redis: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL && process.env.REDIS_URL) {
    return { postgres: process.env.DATABASE_URL, redis: process.env.REDIS_URL, stop: async () => undefined };
  }
  // Unset, but a developer's own Postgres and Redis answer on localhost: use them (no Docker needed),
  // unless TEST_STORES=containers asks for testcontainers anyway (CI runs the laptop's path that way).
  const containersOnly = process.env.TEST_STORES === 'containers';
  const [pgDown, redisDown] = containersOnly
    ? ['TEST_STORES=containers', 'TEST_STORES=containers']
    : await Promise.all([
        process.env.DATABASE_URL ? null : checkPostgres(LOCAL_POSTGRES),
        process.env.REDIS_URL ? null : checkRedis(LOCAL_REDIS),
      ]);
  if (pgDown === null && redisDown === null) {
    return {
      postgres: process.env.DATABASE_URL ?? LOCAL_POSTGRES,
      redis: process.env.REDIS_URL ?? LOCAL_REDIS,
      stop: async () => undefined,
    };
  }
  // Loaded only here: a laptop with Docker and no URLs set.
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const { RedisContainer } = await import('@testcontainers/redis');
  const [pg, redis] = await Promise.all([
    process.env.DATABASE_URL ? null : new PostgreSqlContainer('postgres:15').start(),
    process.env.REDIS_URL
      ? null
      : new RedisContainer('redis:7').withCommand(['redis-server', '--hz', '100']).start(),
  ]);
  return {
    postgres: process.env.DATABASE_URL ?? pg!.getConnectionUri(),
    redis: process.env.REDIS_URL ?? redis!.getConnectionUrl(),
    stop: async () => {
      await Promise.all([pg?.stop(), redis?.stop()]);
    },
  };
}

export async function createTestStores(label: string): Promise<TestStores> {
  const server = await serverUrls();
  const suffix = `${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const url = new URL(server.postgres);
  url.pathname = `/dominoes_test_${suffix}`;
  const databaseUrl = url.toString();
  await runMigrations(databaseUrl);
  return {
    databaseUrl,
    redisUrl: server.redis,
    redisPrefix: `test_${suffix}`,
    async dispose() {
      const admin = new URL(server.postgres);
      admin.pathname = '/postgres';
      const client = new Client({ connectionString: admin.toString() });
      await client.connect();
      await client
        .query(`drop database if exists "dominoes_test_${suffix}" with (force)`)
        .catch(() => undefined);
      await client.end();
      await server.stop();
    },
  };
}

/**
 * The laptop's path of the integration tests: no DATABASE_URL/REDIS_URL, Docker running, so createTestStores
 * starts postgres:15 and redis:7 with testcontainers. CI runs this file with the store and engine suites under
 * TEST_STORES=containers (and TESTCONTAINERS_RYUK_DISABLED=true: Ryuk's image cannot be pulled here; .ci/run
 * removes the containers by their testcontainers label instead). Any other run skips it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import Redis from 'ioredis';
import { Client } from 'pg';
import { createTestStores } from '../src/test-stores';

const viaContainers =
  process.env.TEST_STORES === 'containers' && !process.env.DATABASE_URL && !process.env.REDIS_URL;
const maybe = viaContainers ? it : it.skip;
const DOCKER = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';
const docker = (args: string[]) => spawnSync(DOCKER, args, { encoding: 'utf8' }).stdout.trim();

maybe(
  `without DATABASE_URL and REDIS_URL, createTestStores starts postgres:15 and redis:7 with testcontainers, migrated, and stops them on dispose${
    viaContainers ? '' : ' (skipped: runs only with TEST_STORES=containers and both variables unset)'
  }`,
  async () => {
    const stores = await createTestStores('containers');
    const db = new URL(stores.databaseUrl);
    const redisUrl = new URL(stores.redisUrl);
    // Published container ports, not this machine's own Postgres and Redis.
    expect(db.port).not.toBe('5432');
    expect(redisUrl.port).not.toBe('6379');

    const running = docker(['ps', '--filter', 'label=org.testcontainers=true', '--format', '{{.Image}}']);
    expect(running.split('\n').sort()).toEqual(expect.arrayContaining(['postgres:15', 'redis:7']));

    const pg = new Client({ connectionString: stores.databaseUrl });
    await pg.connect();
    const version = await pg.query<{ server_version: string }>('show server_version');
    const migrated = await pg.query<{ n: string }>(
      'select count(*) as n from "_prisma_migrations" where finished_at is not null',
    );
    await pg.end();
    expect(version.rows[0]!.server_version).toMatch(/^15\./);
    expect(Number(migrated.rows[0]!.n)).toBeGreaterThan(0);

    const redis = new Redis(stores.redisUrl);
    const info = await redis.info('server');
    const hz = await redis.config('GET', 'hz');
    redis.disconnect();
    expect(info).toMatch(/redis_version:7\./);
    expect(hz).toEqual(['hz', '100']);

    await stores.dispose();
    const after = docker(['ps', '--filter', 'label=org.testcontainers=true', '--format', '{{.ID}}']);
    expect(after.split('\n').filter(Boolean).length).toBeLessThan(running.split('\n').filter(Boolean).length);
  },
  120_000,
);

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { Client } from 'pg';
import { PostgresSampler, postgresCost, type PgSnapshot } from '../src/postgres-cost';
import { clockTicksPerSecond, groupTicks, readProcSnapshot } from '../src/proc-cost';
import { RedisSampler, redisCost } from '../src/redis-cost';

/**
 * The samplers against the real local Redis, Postgres and /proc (REDIS_URL / DATABASE_URL when
 * set): a reading, some known work, another reading. Redis is shared with whatever else runs on
 * this machine, so its figures are at least the work done here.
 */
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const ADMIN_URL = process.env['DATABASE_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

describe('Redis INFO sampler', () => {
  it('counts the commands, bytes and CPU of the work done between two readings', async () => {
    const sampler = await RedisSampler.connect(REDIS_URL);
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    const prefix = `loadtest-cost-test:${randomBytes(4).toString('hex')}`;
    try {
      await redis.ping();
      const a = await sampler.snapshot();
      for (let i = 0; i < 7; i++) await redis.set(`${prefix}:k${i}`, 'x'.repeat(100));
      for (let i = 0; i < 3; i++) await redis.xadd(`${prefix}:s`, '*', 'f', String(i));
      for (let i = 0; i < 2; i++) await redis.publish(`${prefix}:c`, 'hello');
      await redis.del(`${prefix}:s`, ...Array.from({ length: 7 }, (_, i) => `${prefix}:k${i}`));
      const b = await sampler.snapshot();

      const { cost, warnings } = redisCost(a, b, 4, REDIS_URL);
      expect(warnings).toEqual([]);
      const calls = (name: string) => cost.topCommands.find((c) => c.command === name)?.calls ?? 0;
      expect(calls('set')).toBeGreaterThanOrEqual(7);
      expect(calls('xadd')).toBeGreaterThanOrEqual(3);
      expect(calls('publish')).toBeGreaterThanOrEqual(2);
      expect(calls('del')).toBeGreaterThanOrEqual(1);
      expect(cost.commands).toBeGreaterThanOrEqual(13);
      expect(cost.totalCommandsProcessed).toBeGreaterThanOrEqual(13);
      // 7 SETs of 100 bytes went in.
      expect(cost.netInputBytes).toBeGreaterThan(700);
      expect(cost.netOutputBytes).toBeGreaterThan(0);
      expect(cost.cpuMs).toBeGreaterThanOrEqual(0);
      expect(cost.perAction!.commands).toBeGreaterThanOrEqual(13 / 4);
      expect(cost.seconds).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
      sampler.close();
    }
  });

  it('fails fast when no Redis answers', async () => {
    await expect(RedisSampler.connect('redis://127.0.0.1:1', 1000)).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('Postgres statistics sampler', () => {
  const database = `loadtest_cost_${randomBytes(4).toString('hex')}`;
  let url: string;

  beforeAll(async () => {
    const admin = new Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${database}`);
    await admin.end();
    const u = new URL(ADMIN_URL);
    u.pathname = `/${database}`;
    url = u.toString();
  });

  afterAll(async () => {
    const admin = new Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
  });

  it('counts the commits, rows written and WAL of writes in its own database', async () => {
    const writer = new Client({ connectionString: url });
    await writer.connect();
    await writer.query('create table t (id int primary key, v text)');
    const sampler = await PostgresSampler.connect(url);
    try {
      const a = await sampler.snapshot();
      await writer.query(`insert into t select g, 'row' from generate_series(1, 10) g`);
      await writer.query(`update t set v = 'changed' where id <= 4`);
      await writer.query('delete from t where id > 7');
      // A backend publishes its counters at most once a second, and always when it ends.
      await writer.end();

      let b: PgSnapshot = await sampler.snapshot();
      for (let i = 0; i < 50 && b.tupInserted - a.tupInserted < 10; i++) {
        await new Promise((r) => setTimeout(r, 100));
        b = await sampler.snapshot();
      }
      const { cost } = postgresCost(a, b, 2);
      expect(cost.database).toBe(database);
      expect(cost.rowsInserted).toBeGreaterThanOrEqual(10);
      expect(cost.rowsUpdated).toBeGreaterThanOrEqual(4);
      expect(cost.rowsDeleted).toBeGreaterThanOrEqual(3);
      expect(cost.rowsWritten).toBe(cost.rowsInserted + cost.rowsUpdated + cost.rowsDeleted);
      expect(cost.commits).toBeGreaterThanOrEqual(3);
      expect(cost.walLsnBytes).toBeGreaterThan(0);
      expect(cost.wal).not.toBeNull(); // Postgres 14+ has pg_stat_wal
      expect(cost.perAction!.rowsWritten).toBeGreaterThanOrEqual(17 / 2);
      expect(cost.perAction!.walBytes).toBeGreaterThan(0);
    } finally {
      await writer.end().catch(() => undefined);
      await sampler.close();
    }
  });
});

describe('/proc sampler', () => {
  it('finds the local postgres and redis-server, and counts a service-named process’s CPU', async () => {
    const clk = clockTicksPerSecond();
    expect(clk).toBeGreaterThan(0);
    const a = readProcSnapshot(clk);
    const groupsAtStart = new Set([...a.processes.values()].map((p) => p.group));
    expect(groupsAtStart.has('postgres')).toBe(true);
    expect(groupsAtStart.has('redis-server')).toBe(true);

    // A node process whose command line names the timer service: it burns 300 ms of CPU time
    // (its own process.cpuUsage(), whatever the machine's load), then waits.
    const child = spawn(
      process.execPath,
      [
        '-e',
        'const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };' +
          'const end = cpu() + 300; while (cpu() < end); console.log("done"); setInterval(() => {}, 1000);',
        'apps/timer-service/dist/main.js',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('done') && resolve());
        child.once('exit', (code) => reject(new Error(`the child exited with ${code}`)));
      });
      const b = readProcSnapshot(clk);
      const timer = groupTicks(a, b).get('timer-service');
      expect(timer?.started).toBeGreaterThanOrEqual(1);
      // At least the 300 ms it burnt (tick resolution: allow one tick less).
      expect((timer!.ticks * 1000) / clk).toBeGreaterThanOrEqual(300 - 1000 / clk);
      expect(b.toolCpuUs).toBeGreaterThan(a.toolCpuUs);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill();
      await exited;
    }
  });
});

import { randomBytes } from 'node:crypto';
import Redis, { Cluster } from 'ioredis';
import { Client } from 'pg';
import { TestRedisCluster } from '../../../libs/platform/src/test-redis-cluster';
import { parseArgs } from '../src/args';
import { buildCost, CostMeter } from '../src/cost';

/**
 * The cost readings against a real 6-node Redis Cluster of the test's own (3 primaries, 3
 * replicas: TestRedisCluster) and two real databases on the local Postgres: the meter finds every
 * node from one seed, reads each at the window's edges, and gives each node's and each database's
 * figures and their sums.
 */
const ADMIN_URL = process.env['DATABASE_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const tag = randomBytes(4).toString('hex');
const databases = [`loadtest_cluster_a_${tag}`, `loadtest_cluster_b_${tag}`];
const urlOf = (database: string) => {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${database}`;
  return u.toString();
};

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Inserts `rows` rows into a table of its own in `url`, then ends (a backend publishes its counters when it ends). */
async function writeRows(url: string, rows: number): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`insert into t select g, 'row' from generate_series(1, ${rows}) g`);
  } finally {
    await client.end();
  }
}

/** Resolves once the replica on `port` has its primary link up (INFO replication). */
async function linkUp(port: number, timeoutMs = 30_000): Promise<void> {
  const redis = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  try {
    for (const end = Date.now() + timeoutMs; Date.now() < end;) {
      if ((await redis.info('replication')).includes('master_link_status:up')) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`the replica on ${port} has no primary link after ${timeoutMs} ms`);
  } finally {
    redis.disconnect();
  }
}

describe('cost readings of a Redis Cluster and two databases', () => {
  let cluster: TestRedisCluster;

  beforeAll(async () => {
    cluster = await TestRedisCluster.start('loadtest-cost');
    for (const database of databases) {
      await admin(`create database ${database}`);
      const client = new Client({ connectionString: urlOf(database) });
      await client.connect();
      await client.query('create table t (id int primary key, v text)');
      await client.end();
    }
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
    for (const database of databases) await admin(`drop database if exists ${database} with (force)`);
  });

  it('finds every primary and replica from one seed; per node and summed; per database and summed, WAL once', async () => {
    const seed = cluster.nodes.split(',')[0]!;
    const config = parseArgs([
      ...['--redis-cluster-nodes', seed],
      ...['--database-url', urlOf(databases[0]!), '--database-url', urlOf(databases[1]!)],
    ])!;
    const client = new Cluster([{ host: '127.0.0.1', port: Number(seed.split(':')[1]) }], {
      redisOptions: { maxRetriesPerRequest: 1 },
    });
    const meter = await CostMeter.open(config);
    try {
      expect(meter.warnings).toEqual([]);
      // Which primary each key goes to, asked before the window (CLUSTER KEYSLOT is a command too).
      const keys = Array.from({ length: 30 }, (_, i) => `loadtest-cost:{k${i}}`);
      const slots = await Promise.all(
        keys.map(async (k) => Number(await client.call('cluster', 'keyslot', k))),
      );
      const primaries = await cluster.primaryPorts();
      const ranges = new Map(
        await Promise.all(primaries.map(async (p) => [p, await cluster.slotsOf(p)] as const)),
      );
      const expected = new Map<number, number>(primaries.map((p) => [p, 0]));
      for (const slot of slots) {
        const port = primaries.find((p) => ranges.get(p)!.some(([a, b]) => slot >= a && slot <= b))!;
        expected.set(port, expected.get(port)! + 1);
      }

      // A new replica's first sync waits out repl-diskless-sync-delay (5 s): until its link is up it applies nothing.
      for (const port of cluster.ports.filter((p) => !primaries.includes(p))) await linkUp(port);

      await meter.start();
      for (const k of keys) await client.set(k, 'x'.repeat(100));
      await writeRows(urlOf(databases[0]!), 10);
      await writeRows(urlOf(databases[1]!), 5);
      // Every replica has applied its primary's writes (WAIT on each primary; one command there).
      for (const port of primaries) {
        const primary = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
        await primary.call('wait', '1', '2000').finally(() => primary.disconnect());
      }
      await meter.end();
      const sections = meter.sections(10);
      expect(meter.warnings).toEqual([]);

      const nodes = sections.redisNodes!;
      expect(nodes.map((n) => n.role).sort()).toEqual([
        'primary',
        'primary',
        'primary',
        'replica',
        'replica',
        'replica',
      ]);
      expect(nodes.filter((n) => n.role === 'primary').reduce((s, n) => s + n.slots, 0)).toBe(16384);
      expect(new Set(nodes.map((n) => n.address))).toEqual(new Set(cluster.nodes.split(',')));
      const setCalls = (n: { topCommands: readonly { command: string; calls: number }[] }) =>
        n.topCommands.find((c) => c.command === 'set')?.calls ?? 0;
      for (const n of nodes.filter((n) => n.role === 'primary')) {
        const port = Number(n.address.split(':')[1]);
        expect([n.address, setCalls(n)]).toEqual([n.address, expected.get(port)]);
        expect(n.perAction!.commands).toBeGreaterThanOrEqual(expected.get(port)! / 10);
        expect(n.roleAtEnd).toBe('primary');
      }
      // A replica applies its primary's SETs from the replication stream: they count there too.
      for (const n of nodes.filter((n) => n.role === 'replica')) {
        const primary = nodes.find((p) => p.id === n.primaryId)!;
        expect([n.address, setCalls(n)]).toEqual([n.address, setCalls(primary)]);
      }

      const redis = sections.redis!;
      expect(redis.url).toBe(`cluster ${seed}`);
      expect(setCalls(redis)).toBe(60);
      expect(redis.commands).toBe(nodes.reduce((s, n) => s + n.commands, 0));
      expect(redis.netInputBytes).toBe(nodes.reduce((s, n) => s + n.netInputBytes, 0));
      expect(redis.netInputBytes).toBeGreaterThan(30 * 100);

      const dbs = sections.postgresDatabases!;
      expect(dbs.map((d) => d.database)).toEqual(databases);
      expect(dbs[0]!.rowsInserted).toBeGreaterThanOrEqual(10);
      expect(dbs[1]!.rowsInserted).toBeGreaterThanOrEqual(5);
      // Both databases are on the one local server: its WAL counts once in the sum.
      expect(dbs[0]!.server).toBe(dbs[1]!.server);
      const pg = sections.postgres!;
      expect(pg.rowsInserted).toBe(dbs[0]!.rowsInserted + dbs[1]!.rowsInserted);
      expect(pg.commits).toBe(dbs[0]!.commits + dbs[1]!.commits);
      expect(pg.wal).toEqual(dbs[0]!.wal);

      // The headline takes the sums.
      const cost = buildCost({
        actions: 10,
        denominator: 'acknowledged moves',
        windowSeconds: redis.seconds,
        alsoInWindow: { acknowledgedMoves: 10, hostIntents: 0, deadlineMoves: 0 },
        toolCpuMs: 1,
        services: [],
        ...sections,
      });
      expect(cost.perAction.redisCommands).toBe(redis.perAction!.commands);
      expect(cost.perAction.pgRowsWritten).toBe(pg.perAction!.rowsWritten);
      expect(cost.redisNodes).toHaveLength(6);
      expect(cost.postgresDatabases).toHaveLength(2);
    } finally {
      client.disconnect();
      await meter.close();
    }
  }, 60_000);
});

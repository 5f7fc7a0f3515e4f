/**
 * Redis commands per action per node, on a real Redis Cluster (issue 13, docs/capacity.md):
 * the whole system on a 3-primary TestRedisCluster (TestSystem, DEADLINE_GROUPS 3), INFO
 * commandstats of every node read before and after a load-test run (apps/loadtest, play mode), and
 * the difference divided by the players' stored moves of the run (table_actions rows made by a
 * player's intent: moves, joins and the host's starts; the deadline moves are counted apart).
 *
 *   npm run build && npx tsx e2e/cluster/measure-commands.ts [--tables 200] [--duration 60s] [--one-redis]
 *     [--databases N] [--out DIR]
 *
 * `--one-redis`: the same run on one redis-server of its own (TestRedisServer), for comparison.
 * `--databases N`: Postgres split by shard over N private Postgres clusters (decision 0027); the
 * changes are counted in every database. The load test reads the CPU of the local postgres and
 * redis-server processes (`--local-procs`) besides the services' (`--metrics`).
 *
 * Prints one JSON line (per node: role, commands, per action, top commands per action) and writes
 * it to DIR/commands.json, next to the load test's report.json (DIR: test-artifacts/measure-commands[-one-redis]).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import { TestRedisServer } from '../src/redis-server';
import { ROOT, TestSystem } from '../src/system';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};

/** The stored changes of every database, summed. */
async function storedChangesOfAll(
  databaseUrls: readonly string[],
): Promise<{ byPlayers: number; byDeadlines: number }> {
  const each = await Promise.all(databaseUrls.map(storedChanges));
  return {
    byPlayers: each.reduce((a, c) => a + c.byPlayers, 0),
    byDeadlines: each.reduce((a, c) => a + c.byDeadlines, 0),
  };
}

async function storedChanges(databaseUrl: string): Promise<{ byPlayers: number; byDeadlines: number }> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ players: string; deadlines: string }>(
      `select count(*) filter (where intent_id is not null and intent_id not like 'deadline:%') as players,
              count(*) filter (where intent_id like 'deadline:%') as deadlines
         from table_actions`,
    );
    return { byPlayers: Number(rows[0]!.players), byDeadlines: Number(rows[0]!.deadlines) };
  } finally {
    await client.end();
  }
}

/** INFO commandstats of one redis-server: `{ command: calls }`. */
async function commandStatsOf(port: number): Promise<Record<string, number>> {
  const redis = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
  try {
    const text = await redis.info('commandstats');
    const calls: Record<string, number> = {};
    for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[match[1]!] = Number(match[2]);
    return calls;
  } finally {
    redis.disconnect();
  }
}

const sum = (calls: Record<string, number>): number => Object.values(calls).reduce((a, b) => a + b, 0);

async function main(): Promise<void> {
  const tables = arg('tables', '200');
  const one = process.argv.includes('--one-redis') ? await TestRedisServer.start('measure-commands') : null;
  const databases = Number(arg('databases', '1'));
  const out = arg(
    'out',
    join(ROOT, 'test-artifacts', one ? 'measure-commands-one-redis' : 'measure-commands'),
  );
  const system = await TestSystem.start('measure-commands', {
    shards: 16,
    databases,
    redisCluster: one === null,
    ...(one ? { env: { REDIS_URL: one.url } } : {}),
  });
  const stats = async (): Promise<Record<number, Record<string, number>>> =>
    one ? { [one.port]: await commandStatsOf(one.port) } : system.redisCluster!.commandStats();
  try {
    const primaries = new Set(one ? [one.port] : await system.redisCluster!.primaryPorts());
    const before = await stats();
    const changesBefore = await storedChangesOfAll(system.databaseUrls);
    const run = spawnSync(
      process.execPath,
      [
        join(ROOT, 'apps/loadtest/dist/main.js'),
        ...['--url', system.httpUrl, '--tables', tables, '--think', arg('think', '1-3s')],
        ...['--ramp', arg('ramp', '10s'), '--duration', arg('duration', '60s'), '--quiet'],
        ...['--out', out, '--local-procs'],
        // Commits, rows and WAL per action of every database; INFO of the Redis (or of every cluster node).
        ...['--database-url', system.databaseUrls.join(',')],
        ...(one ? ['--redis-url', one.url] : ['--redis-cluster-nodes', system.redisCluster!.nodes]),
        ...[
          '--metrics',
          ['gateway', 'table-service', 'timer-service'].map((n) => `${n}=${system.metricsUrl(n)}`).join(','),
        ],
      ],
      { encoding: 'utf8', timeout: 30 * 60_000 },
    );
    if (run.status !== 0) throw new Error(`loadtest failed: ${run.stdout}\n${run.stderr}`);
    const after = await stats();
    const changesAfter = await storedChangesOfAll(system.databaseUrls);
    const actions = changesAfter.byPlayers - changesBefore.byPlayers;
    const deadlineMoves = changesAfter.byDeadlines - changesBefore.byDeadlines;
    const nodes = Object.keys(after).map((key) => {
      const port = Number(key);
      const delta: Record<string, number> = {};
      for (const [command, calls] of Object.entries(after[port]!))
        delta[command] = calls - (before[port]?.[command] ?? 0);
      // The INFO and CLUSTER calls of this script and the clients' slot refreshes are not the services' work.
      for (const own of [
        'info',
        'cluster|nodes',
        'cluster|info',
        'cluster|slots',
        'ping',
        'command',
        'client|setname',
      ])
        delete delta[own];
      const top = Object.entries(delta)
        .filter(([, n]) => n > 0)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([command, n]) => [command, Math.round((n / actions) * 100) / 100]);
      return {
        port,
        role: primaries.has(port) ? 'primary' : 'replica',
        commands: sum(delta),
        perAction: Math.round((sum(delta) / actions) * 100) / 100,
        top: Object.fromEntries(top),
      };
    });
    const onPrimaries = nodes.filter((n) => n.role === 'primary').reduce((a, n) => a + n.commands, 0);
    const result = JSON.stringify({
      tables: Number(tables),
      redis: one ? 'one redis-server' : 'cluster, 3 primaries',
      databases,
      actions,
      deadlineMoves,
      commandsPerActionOnPrimaries: Math.round((onPrimaries / actions) * 100) / 100,
      nodes,
      loadtest: run.stdout.trim().split('\n').slice(-3),
    });
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'commands.json'), `${result}\n`);
    process.stdout.write(`${result}\n`);
  } finally {
    await system.stop();
    await one?.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

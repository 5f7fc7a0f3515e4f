import { Client } from 'pg';
import { ConfigError, formatShardMap, readBaseConfig, redact } from '@dominoes/platform';
import { parseMoveArgs, USAGE, type MovePlan } from './args';
import { copyShards } from './copy';
import { deleteSource } from './delete-source';
import { ownedShards } from './leases';
import { MoveRefusal } from './refusal';

/** What the command writes: its report on `out`, refusals and failures on `err`. */
export interface Output {
  out(line: string): void;
  err(line: string): void;
}

/** Exit codes: 0 done, 1 failed (the target's transaction rolled back), 2 refused (nothing changed). */
export const EXIT = { done: 0, failed: 1, refused: 2 } as const;

async function connect(url: string, name: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new MoveRefusal(`${name} (${redact(url)}) cannot be reached: ${(error as Error).message}`);
  }
  // Row texts are compared across the two databases: the same rendering of timestamps on both.
  await client.query(`SET TIME ZONE 'UTC'; SET DateStyle = 'ISO, YMD'`);
  return client;
}

/** Two URLs of DATABASE_URLS may name the same database: the server's start time, port and name tell. */
async function identity(db: Client): Promise<string> {
  const row = await db.query<{ id: string }>(
    `SELECT pg_postmaster_start_time()::text || ' ' || coalesce(inet_server_port(), 0) || ' ' || current_database() AS id`,
  );
  return row.rows[0]!.id;
}

async function run(plan: MovePlan, config: ReturnType<typeof readBaseConfig>, output: Output): Promise<void> {
  const urls = config.shardMap.databaseUrls;
  const [sourceName, targetName] = [`database ${plan.from}`, `database ${plan.to}`];
  if (plan.step === 'copy') {
    const owned = await ownedShards(config, plan.shards, config.tableShards).catch((error: Error) => {
      throw new MoveRefusal(`Redis cannot be asked who owns shards ${plan.range}: ${error.message}`);
    });
    if (owned.length > 0)
      throw new MoveRefusal(
        `shard(s) ${owned.map((o) => `${o.shard} (replica ${o.replica})`).join(', ')} are owned by a running table-service: stop every table-service first (docs/operations.md, "Moving a shard group")`,
      );
  }
  const source = await connect(urls[plan.from]!, sourceName);
  try {
    const target = await connect(urls[plan.to]!, targetName);
    try {
      if ((await identity(source)) === (await identity(target)))
        throw new MoveRefusal(`${sourceName} and ${targetName} of DATABASE_URLS are the same database`);
      const request = {
        shards: plan.shards,
        range: plan.range,
        totalShards: config.tableShards,
        sourceName,
        targetName,
      };
      if (plan.step === 'copy') {
        const report = await copyShards(source, target, request);
        output.out(
          `copied shards ${plan.range} (${report.tables} tables) from ${sourceName} to ${targetName}, rows checked by count and digest:`,
        );
        for (const r of report.relations) output.out(`  ${r.relation}: ${r.rows}`);
        const map = formatShardMap(plan.databaseOfShard);
        output.out(`DATABASE_SHARD_MAP=${map}`);
        output.out(
          `next: roll the gateways, then start the table-services, with DATABASE_SHARD_MAP=${map}; once every service runs with it: npm run shards:move -- --shards ${plan.range} --from ${plan.from} --delete-source`,
        );
      } else {
        const report = await deleteSource(source, target, request);
        output.out(
          `deleted shards ${plan.range} (${report.tables} tables) from ${sourceName}; ${targetName} holds them:`,
        );
        for (const r of report.relations) output.out(`  ${r.relation}: ${r.rows}`);
      }
    } finally {
      await target.end();
    }
  } finally {
    await source.end();
  }
}

/** `npm run shards:move -- ...`: reads the shard map from `env` as every service does. Returns the exit code. */
export async function shardsMove(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  output: Output,
): Promise<number> {
  try {
    const config = readBaseConfig(env);
    await run(parseMoveArgs(argv, config.shardMap), config, output);
    return EXIT.done;
  } catch (error) {
    if (error instanceof MoveRefusal || error instanceof ConfigError) {
      output.err(`shards:move: ${error.message}; nothing was changed`);
      if (error instanceof MoveRefusal && error.usage) output.err(USAGE);
      return EXIT.refused;
    }
    output.err(
      `shards:move failed: ${error instanceof Error ? error.message : String(error)}; what was under way was rolled back (a copy commits nothing unless it completes; run --delete-source again to finish one)`,
    );
    return EXIT.failed;
  }
}

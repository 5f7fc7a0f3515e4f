/**
 * By hand, against a running compose stack with Postgres split by shard (docker-compose.postgres-split.yml):
 * plays N partnership rounds through the gateway, each on a new table, and says which database holds each
 * table's stored log; exits 1 unless every log is in exactly one database, every round was scored and no
 * frame showed a hidden tile (P12). docs/operations.md ("Compose, run for real") records a run.
 *
 *   npx tsx deploy/docker/play-split-rounds.ts http://127.0.0.1:8080 ROUNDS DATABASE_URL...
 */
import { leakedTiles } from '../../e2e/src/hidden-tiles';
import { readLog } from '../../e2e/src/stored-log';
import { gatewayAt, playRoundOnNewTable } from './play-round';

/**
 * One round on a new table (play-round.ts plays it against one database; here the table's database is
 * found afterwards): its rows in each database, whether it was scored, and the hidden tiles any frame showed.
 */
async function playOnSplit(url: string, databases: readonly string[], seed: number) {
  const { tableId, view, views } = await playRoundOnNewTable(gatewayAt(url), seed);
  const logs = await Promise.all(databases.map((d) => readLog(d, tableId)));
  const log = logs.find((l) => l.length > 0) ?? [];
  const leaked = log.length === 0 ? [] : views.flatMap((v) => leakedTiles(v, log));
  return {
    tableId,
    counts: logs.map((l) => l.length),
    scored: (view.game?.roundResult ?? null) !== null,
    leaked,
  };
}

async function main(): Promise<void> {
  const [url, roundsText, ...databases] = process.argv.slice(2);
  const rounds = Number(roundsText);
  if (!url || !Number.isInteger(rounds) || rounds < 1 || databases.length === 0) {
    console.error('usage: play-split-rounds.ts GATEWAY_URL ROUNDS DATABASE_URL...');
    process.exit(2);
  }
  const held = new Map<number, number>();
  let failures = 0;
  for (let i = 0; i < rounds; i++) {
    const played = await playOnSplit(url, databases, 100 + i);
    const { counts, scored } = played;
    const where = counts.flatMap((n, index) => (n > 0 ? [index] : []));
    const ok = where.length === 1 && scored && played.leaked.length === 0;
    if (!ok) failures++;
    if (where.length === 1) held.set(where[0]!, (held.get(where[0]!) ?? 0) + 1);
    console.log(
      `table ${played.tableId}: log rows by database [${counts.join(', ')}], round scored ${scored}, hidden tiles shown ${played.leaked.length}${ok ? '' : '  <- FAILED'}`,
    );
  }
  console.log(
    `${rounds} rounds, ${failures} failed; tables by database: ${databases.map((_, d) => `${d}: ${held.get(d) ?? 0}`).join(', ')}`,
  );
  process.exit(failures === 0 ? 0 : 1);
}

void main();

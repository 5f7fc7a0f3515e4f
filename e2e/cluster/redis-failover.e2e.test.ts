import calculateSlot from 'cluster-key-slot';
import { deadlineGroupOf, redisNames, shardOf } from '@dominoes/protocol';
import { readLog } from '../src/stored-log';
import { checkStored, errorCodes, playAll, seatTables, type PlayingTable } from '../src/tables';
import { TestSystem } from '../src/system';

const SHARDS = 16;
const GROUPS = 3;
const PLAYED = Number(process.env.CLUSTER_FAILOVER_TABLES ?? 24);
const BY_CLOCK = 6;
/**
 * The bound: every table moves again within this long of the kill -9 of a Redis primary. It is the
 * cluster's failure detection (cluster-node-timeout 2 s) and election, ioredis finding the new
 * primary (slots refreshed every 2 s and on MOVED), then at worst a turn (1.5 s) or a deadline the
 * safety net sets again (OVERDUE_GRACE_MS 2 s, swept every second). Measured on this shared 2-core
 * machine at a load average of 17-18: 4.4 s, 6.4 s and 6.3 s, and once 35.6 s (an election delayed by the
 * load); the bound allows that once-in-three case.
 */
const BOUND_MS = 45_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const version = (table: PlayingTable): number => table.players[0]!.client.version;
/**
 * A match over before the kill has nothing left to move (decision 0035): a partnership match to 50
 * ends in its first round about once in 70 (random play), so about one run in three has such a match,
 * and a short round (a locked board) ends it before the kill. Seat 0's view is never ahead of the
 * stored table: finished there, the table is finished.
 */
const over = (table: PlayingTable): boolean => table.players[0]!.view?.status === 'finished';

/**
 * What a table that did not move in time shows: each seat's version, then its stored version (Postgres,
 * read after them: never behind them, and ahead of them if the seats were not shown a change).
 */
async function describeStuck(
  system: TestSystem,
  table: PlayingTable,
  before: number,
  movedAt: number | null,
): Promise<string> {
  const seats = table.players.map(
    (p, seat) =>
      `seat ${seat} v${p.client.version} ${p.view?.status ?? 'no view'}/${p.view?.game?.phase ?? '-'}` +
      `${p.reconnects > 0 ? ` (${p.reconnects} reconnects)` : ''}`,
  );
  const log = await readLog(system.databaseUrlOf(table.tableId), table.tableId);
  const stored = log.at(-1)?.seq ?? null;
  const moved =
    movedAt === null ? 'seat 0 saw no change since' : `seat 0 saw a change ${movedAt} ms after it`;
  return (
    `${table.tableId} (shard ${shardOf(table.tableId, SHARDS)}): v${before} at the kill, ${moved}; ` +
    `${seats.join(', ')}; stored v${stored}`
  );
}

/**
 * Redis Cluster failover (issue 13, decision 0025): kill -9 of the primary holding a deadline group
 * and some shards while tables play, some by their players and some only by the clock.
 */
describe('kill -9 of a Redis Cluster primary while tables play', () => {
  let system: TestSystem;
  /** Every seated table, so that a failure before the matches finish leaves no player reconnecting. */
  const seated: PlayingTable[] = [];
  beforeAll(async () => {
    system = await TestSystem.start('redis-cluster-failover', {
      shards: SHARDS,
      turnMs: 1_500,
      breakMs: 1_000,
      redisCluster: true,
      replicas: { 'table-service': 2, 'timer-service': 2 },
      env: { DEADLINE_GROUPS: String(GROUPS), OVERDUE_GRACE_MS: '2000' },
    });
  }, 180_000);
  afterAll(async () => {
    for (const table of seated) for (const p of table.players) p.close();
    await system?.stop();
  });

  it(`its replica takes over; every match finishes, no acknowledged action is lost or applied twice, deadlines on its slots come back, and every table moves again within ${BOUND_MS / 1000} s`, async () => {
    const cluster = system.redisCluster!;
    const names = redisNames(system.stores.redisPrefix, SHARDS);
    const played = await seatTables(system, PLAYED, 1);
    // Seated and never played: every move of these is a turn deadline fired by BullMQ.
    const byClock = await seatTables(system, BY_CLOCK, 1);
    seated.push(...played, ...byClock);
    playAll(played, 600_000, 300);

    // The victim: the primary that holds the deadline group of the first clock-played table.
    const primaries = await cluster.primaryPorts();
    const ranges = new Map(
      await Promise.all(primaries.map(async (p) => [p, await cluster.slotsOf(p)] as const)),
    );
    const holder = (key: string): number => {
      const slot = calculateSlot(key);
      return [...ranges].find(([, r]) => r.some(([a, b]) => slot >= a && slot <= b))![0];
    };
    const group = deadlineGroupOf(shardOf(byClock[0]!.tableId, SHARDS), GROUPS);
    const victim = holder(`${names.bullPrefix(group)}:deadlines:delayed`);
    const shardsOnVictim = Array.from({ length: SHARDS }, (_, s) => s).filter(
      (s) => holder(names.intentStream(s)) === victim,
    );
    // The shards are spread over the primaries (the hash tags), and the victim holds some of them.
    expect(new Set(Array.from({ length: SHARDS }, (_, s) => holder(names.intentStream(s)))).size).toBe(3);
    expect(shardsOnVictim.length).toBeGreaterThan(0);

    await sleep(4_000);
    const all = [...played, ...byClock];
    const before = all.map(version);
    const overBefore = all.map(over);
    for (const table of byClock) expect(version(table)).toBeGreaterThan(0);
    const killedAt = Date.now();
    await cluster.kill(victim);

    // When each table still playing at the kill moves past the version it was at.
    const movedAt: (number | null)[] = before.map(() => null);
    const waiting = () => all.some((_, i) => !overBefore[i] && movedAt[i] === null);
    while (Date.now() - killedAt < 60_000 && waiting()) {
      all.forEach((table, i) => {
        if (movedAt[i] === null && version(table) > before[i]!) movedAt[i] = Date.now() - killedAt;
      });
      await sleep(100);
    }
    // Read at once, before the other tables finish and the stuck one's view is the only thing left.
    const stuck = await Promise.all(
      all
        .map((table, i) => ({ table, i }))
        .filter(({ i }) => !overBefore[i] && (movedAt[i] ?? Infinity) > BOUND_MS)
        .map(({ table, i }) => describeStuck(system, table, before[i]!, movedAt[i] ?? null)),
    );
    await cluster.waitHealthy(3, 30_000);
    const healthyAfter = Date.now() - killedAt;
    const playing = movedAt.filter((_, i) => !overBefore[i]);
    const slowest = Math.max(...playing.map((t) => t ?? Infinity));
    const slowestByClock = Math.max(
      ...movedAt
        .slice(PLAYED)
        .filter((_, i) => !overBefore[PLAYED + i])
        .map((t) => t ?? Infinity),
    );
    const onVictim = all.filter((t) => shardsOnVictim.includes(shardOf(t.tableId, SHARDS))).length;
    const finishedBefore = overBefore.filter(Boolean).length;
    // Each table that did not move within the bound, with its stored version and each seat's (before
    // waiting for the matches to finish: a table stuck for good would never finish).
    expect(stuck).toEqual([]);

    await Promise.all(played.map((t) => t.finished));
    // The figures for docs/capacity.md and the issue's note, in the jest output.
    console.log(
      `redis cluster failover: ${PLAYED} played + ${BY_CLOCK} clock tables (${onVictim} on the killed primary's shards); ` +
        `cluster seen healthy again (${cluster.ports.length - 1} nodes, 3 primaries) ${healthyAfter} ms after the kill, ` +
        `once every table moved or 60 s passed; every table still playing (${finishedBefore} finished before the kill) ` +
        `moved again within ${slowest} ms (clock tables: ${slowestByClock} ms); errors shown: ${JSON.stringify(errorCodes(played))}`,
    );
    expect(slowest).toBeLessThanOrEqual(BOUND_MS);
    // Nearly every table was still playing at the kill (one in 70 finishes in its first round).
    expect(finishedBefore).toBeLessThanOrEqual(3);
    // Refusals of the moment only (Redis away: UNAVAILABLE, or an intent that expired waiting; a
    // move sent on a view the clock had moved past: NOT_YOUR_TURN and the like), never INTERNAL.
    expect(errorCodes(played)['INTERNAL']).toBeUndefined();
    // Every match finished, every acknowledged action is stored once, the logs replay to the scores shown.
    await checkStored(system, played);
    // The clock tables go on by deadlines, each fired once: versions only grow, one stored change each.
    const later = byClock.map(version);
    await sleep(4_000);
    byClock.forEach((table, i) => {
      if (table.players[0]!.view?.status !== 'finished') expect(version(table)).toBeGreaterThan(later[i]!);
    });
  }, 600_000);
});

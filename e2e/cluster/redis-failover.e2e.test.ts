import calculateSlot from 'cluster-key-slot';
import { deadlineGroupOf, redisNames, shardOf } from '@dominoes/protocol';
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
 * Redis Cluster failover (issue 13, decision 0025): kill -9 of the primary holding a deadline group
 * and some shards while tables play, some by their players and some only by the clock.
 */
describe('kill -9 of a Redis Cluster primary while tables play', () => {
  let system: TestSystem;
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
    await system?.stop();
  });

  it(`its replica takes over; every match finishes, no acknowledged action is lost or applied twice, deadlines on its slots come back, and every table moves again within ${BOUND_MS / 1000} s`, async () => {
    const cluster = system.redisCluster!;
    const names = redisNames(system.stores.redisPrefix, SHARDS);
    const played = await seatTables(system, PLAYED, 1);
    // Seated and never played: every move of these is a turn deadline fired by BullMQ.
    const byClock = await seatTables(system, BY_CLOCK, 1);
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
    const before = [...played, ...byClock].map(version);
    for (const table of byClock) expect(version(table)).toBeGreaterThan(0);
    const killedAt = Date.now();
    await cluster.kill(victim);

    // When each table's version moves past what it was at the kill.
    const movedAt: (number | null)[] = before.map(() => null);
    const all = [...played, ...byClock];
    while (Date.now() - killedAt < 60_000 && movedAt.some((t) => t === null)) {
      all.forEach((table, i) => {
        if (movedAt[i] === null && version(table) > before[i]!) movedAt[i] = Date.now() - killedAt;
      });
      await sleep(100);
    }
    await cluster.waitHealthy(3, 30_000);
    const promotedAfter = Date.now() - killedAt;
    const slowest = Math.max(...movedAt.map((t) => t ?? Infinity));
    const slowestByClock = Math.max(...movedAt.slice(PLAYED).map((t) => t ?? Infinity));
    const onVictim = all.filter((t) => shardsOnVictim.includes(shardOf(t.tableId, SHARDS))).length;

    await Promise.all(played.map((t) => t.finished));
    // The figures for docs/capacity.md and the note, in the jest output.
    console.log(
      `redis cluster failover: ${PLAYED} played + ${BY_CLOCK} clock tables (${onVictim} on the killed primary's shards); ` +
        `cluster healthy again (${cluster.ports.length - 1} nodes, 3 primaries) after <= ${promotedAfter} ms; ` +
        `every table moved again within ${slowest} ms (clock tables: ${slowestByClock} ms); errors shown: ${JSON.stringify(errorCodes(played))}`,
    );
    expect(slowest).toBeLessThanOrEqual(BOUND_MS);
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

import {
  createLogger,
  createPrisma,
  createRedis,
  systemClock,
  type Clock,
  type DeadlineQueue,
  type PrismaClient,
  type Redis,
} from '@dominoes/platform';
import { redisNames, shardOf, type IntentEnvelope, type TableIntent } from '@dominoes/protocol';
import { RULE_DURATIONS } from '@dominoes/rules';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { DeadlineKeeper } from '../src/deadlines/deadline-keeper';
import { TableEngine } from '../src/table/table-engine';
import { TableStore } from '../src/table/table-store';

const SHARDS = 4;

/**
 * Issue 11 §1: a deadline that fires while Postgres is down. The failed write drops the table from
 * the engine's memory and the deadline's job is used up, so the sweep must find the table in
 * Postgres, not only among the tables it has in memory.
 */
describe('overdue sweep on real Postgres and Redis', () => {
  let stores: TestStores;
  let prisma: PrismaClient;
  let redis: Redis;
  let n = 0;
  const envelope = (tableId: string, player: number, intent: TableIntent): IntentEnvelope => ({
    intentId: `o${++n}`,
    tableId,
    player: { id: `00000000-0000-4000-8000-00000000000${player}`, name: `P${player}` },
    connectionId: `c${player}`,
    replyTo: null,
    sentAt: Date.now(),
    intent,
  });
  const engine = () =>
    new TableEngine({
      store: new TableStore(prisma),
      publisher: redis,
      names: redisNames(stores.redisPrefix),
      clock: systemClock,
      durations: RULE_DURATIONS,
      deadlines: { schedule: async () => undefined },
      logger: createLogger('test', 'silent'),
    });
  const keeper = (
    onEngine: TableEngine,
    clock: Clock,
    owns: ((tableId: string) => boolean) | undefined,
    client: Redis = redis,
  ) =>
    new DeadlineKeeper(
      {} as DeadlineQueue, // never used: the sweep sends intents, it sets no job
      client,
      redisNames(stores.redisPrefix),
      SHARDS,
      new TableStore(prisma),
      onEngine,
      clock,
      createLogger('test', 'silent'),
      2000,
      owns,
    );
  /** A full partnership table: the match starts and the first turn's clock runs (45 s). */
  const playingTable = async (tableId: string) => {
    const e = engine();
    await e.handle(envelope(tableId, 0, { kind: 'create', config: { variant: 'partnership' } }));
    for (const p of [1, 2, 3]) await e.handle(envelope(tableId, p, { kind: 'join' }));
    const table = await e.load(tableId);
    if (!table?.deadline) throw new Error('no deadline');
    return table.deadline;
  };
  /** The deadline intents in the table's shard stream. */
  const firedIn = async (tableId: string) => {
    const entries = await redis.xrange(
      redisNames(stores.redisPrefix).intentStream(shardOf(tableId, SHARDS)),
      '-',
      '+',
    );
    return entries
      .map(([, fields]) => JSON.parse(fields[1] as string) as IntentEnvelope)
      .filter((e) => e.tableId === tableId && e.intent.kind === 'deadline')
      .map((e) => e.intentId);
  };
  const later = (ms: number): Clock => ({ now: () => Date.now() + ms });

  beforeAll(async () => {
    stores = await createTestStores('overdue');
    prisma = createPrisma(stores.databaseUrl, 2);
    redis = createRedis(stores.redisUrl, 'overdue-test');
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    redis?.disconnect();
    await stores?.dispose();
  });

  it('fires an overdue deadline of a table that no replica holds in memory (its write failed in an outage)', async () => {
    const deadline = await playingTable('OVRDU1');
    // A fresh engine: nothing cached, as after the failed write dropped the table.
    const sweeper = keeper(engine(), later(60_000), () => true);
    await sweeper.sweep();
    expect(await firedIn('OVRDU1')).toEqual([`deadline:${deadline.key}`]);
    // Fired once: the next sweep leaves it alone (the intent is on its way).
    await sweeper.sweep();
    expect(await firedIn('OVRDU1')).toHaveLength(1);
  });

  it('leaves alone the tables of shards this replica does not hold, and deadlines that are not yet overdue', async () => {
    await playingTable('OVRDU2');
    await keeper(engine(), later(60_000), () => false).sweep();
    await keeper(engine(), later(0), () => true).sweep();
    expect(await firedIn('OVRDU2')).toEqual([]);
  });

  it('a firing lost to a Redis outage is sent again at the next sweep', async () => {
    const deadline = await playingTable('OVRDU3');
    // The real client, with XADD failing while "Redis is down".
    let down = true;
    const flaky = new Proxy(redis, {
      get(target, property, receiver) {
        if (property === 'xadd' && down) return () => Promise.reject(new Error('Connection is closed.'));
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const sweeper = keeper(engine(), later(60_000), () => true, flaky);
    await sweeper.sweep();
    expect(await firedIn('OVRDU3')).toEqual([]);
    down = false;
    await sweeper.sweep();
    expect(await firedIn('OVRDU3')).toEqual([`deadline:${deadline.key}`]);
  });
});

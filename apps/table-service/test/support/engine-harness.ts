import {
  createLogger,
  createPrisma,
  createRedis,
  systemClock,
  type PrismaClient,
  type Redis,
} from '@dominoes/platform';
import { redisNames, type IntentEnvelope, type RedisNames, type TableIntent } from '@dominoes/protocol';
import { RULE_DURATIONS } from '@dominoes/rules';
import { createTestStores, type TestStores } from '../../../../libs/platform/src/test-stores';
import { TableEngine, type EngineDeps } from '../../src/table/table-engine';
import { RedisSeatPublisher } from '../../src/table/seat-publisher';
import { TableStore } from '../../src/table/table-store';

/**
 * A table engine on real Postgres and Redis (a database and key prefix of the suite's own), as the
 * table-service wires it, with no deadline jobs set: for the suites that drive the engine directly.
 */
export interface EngineHarness {
  readonly stores: TestStores;
  readonly prisma: PrismaClient;
  readonly redis: Redis;
  readonly names: RedisNames;
  /** A new engine (an empty cache: another replica, or this one after a restart). */
  engine(overrides?: Partial<EngineDeps>): TableEngine;
  store(): TableStore;
  /** The table's version in Postgres (game_tables.version). */
  storedVersion(tableId: string): Promise<number>;
  /** How many actions the table's log holds in Postgres (table_actions). */
  storedActions(tableId: string): Promise<number>;
  dispose(): Promise<void>;
}

export async function startEngineHarness(label: string): Promise<EngineHarness> {
  const stores = await createTestStores(label);
  const prisma = createPrisma(stores.databaseUrl, 2);
  const redis = createRedis(stores.redisUrl, `${label}-test`);
  const names = redisNames(stores.redisPrefix);
  const count = async (sql: string, tableId: string) =>
    Number((await prisma.$queryRawUnsafe<{ n: bigint }[]>(sql, tableId))[0]!.n);
  return {
    stores,
    prisma,
    redis,
    names,
    store: () => new TableStore(prisma),
    storedVersion: (tableId) => count('select version as n from game_tables where id = $1', tableId),
    storedActions: (tableId) => count('select count(*) as n from table_actions where table_id = $1', tableId),
    engine: (overrides = {}) =>
      new TableEngine({
        store: new TableStore(prisma),
        publisher: new RedisSeatPublisher(redis, names),
        clock: systemClock,
        durations: RULE_DURATIONS,
        deadlines: { schedule: async () => undefined },
        logger: createLogger('test', 'silent'),
        ...overrides,
      }),
    dispose: async () => {
      await prisma.$disconnect();
      redis.disconnect();
      await stores.dispose();
    },
  };
}

/** Envelopes from player `n` (a fixed UUID and name), with intent ids unique in the suite. */
export function envelopes(tableId: string, idPrefix: string) {
  let n = 0;
  return (player: number, intent: TableIntent, extra: Partial<IntentEnvelope> = {}): IntentEnvelope => ({
    intentId: `${idPrefix}${++n}`,
    tableId,
    player: { id: `00000000-0000-4000-8000-00000000000${player}`, name: `P${player}` },
    connectionId: `c${player}`,
    replyTo: null,
    sentAt: Date.now(),
    ...extra,
    intent,
  });
}

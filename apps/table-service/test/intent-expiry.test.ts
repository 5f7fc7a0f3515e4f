import { Client } from 'pg';
import {
  createLogger,
  createPrisma,
  createRedis,
  systemClock,
  type PrismaClient,
  type Redis,
} from '@dominoes/platform';
import { redisNames, type IntentEnvelope, type TableIntent } from '@dominoes/protocol';
import { RULE_DURATIONS } from '@dominoes/rules';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { TableEngine } from '../src/table/table-engine';
import { IntentExpiredError, TableStore } from '../src/table/table-store';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Issue 11 §2: an intent is never applied after its expiry, by the engine nor inside the write. */
describe('intent expiry on real Postgres and Redis', () => {
  let stores: TestStores;
  let prisma: PrismaClient;
  let redis: Redis;
  let engine: TableEngine;
  let n = 0;
  const envelope = (player: number, intent: TableIntent, expiresAt?: number): IntentEnvelope => ({
    intentId: `x${++n}`,
    tableId: 'EXPIRE',
    player: { id: `00000000-0000-4000-8000-00000000000${player}`, name: `P${player}` },
    connectionId: `c${player}`,
    replyTo: null,
    sentAt: Date.now(),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    intent,
  });
  const logSize = async () =>
    Number(
      (
        await prisma.$queryRawUnsafe<{ n: bigint }[]>(
          "select count(*) as n from table_actions where table_id = 'EXPIRE'",
        )
      )[0]!.n,
    );

  beforeAll(async () => {
    stores = await createTestStores('expiry');
    prisma = createPrisma(stores.databaseUrl, 2);
    redis = createRedis(stores.redisUrl, 'expiry-test');
    engine = new TableEngine({
      store: new TableStore(prisma),
      publisher: redis,
      names: redisNames(stores.redisPrefix),
      clock: systemClock,
      durations: RULE_DURATIONS,
      deadlines: { schedule: async () => undefined },
      logger: createLogger('test', 'silent'),
    });
    expect(
      await engine.handle(envelope(0, { kind: 'create', config: { variant: 'partnership' } })),
    ).toMatchObject({
      ok: true,
    });
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    redis?.disconnect();
    await stores?.dispose();
  });

  it('an intent that arrives after its expiry is refused with INTENT_EXPIRED and changes nothing', async () => {
    const before = await logSize();
    const reply = await engine.handle(envelope(1, { kind: 'join' }, Date.now() - 1));
    expect(reply).toMatchObject({ ok: false, code: 'INTENT_EXPIRED' });
    expect(await logSize()).toBe(before);
    // Without an expiry (or before it) the same join is applied.
    expect(await engine.handle(envelope(1, { kind: 'join' }, Date.now() + 5000))).toMatchObject({
      ok: true,
      seat: 1,
    });
  });

  it('Postgres refuses the write itself when the expiry passes while it waits on a lock', async () => {
    const table = (await engine.load('EXPIRE'))!;
    const before = await logSize();
    const lock = new Client({ connectionString: stores.databaseUrl });
    await lock.connect();
    await lock.query('begin');
    await lock.query('lock table game_tables in exclusive mode');
    const store = new TableStore(prisma);
    const write = store.append(table, { ...table, version: table.version }, [], 'x-locked', Date.now() + 300);
    await sleep(800);
    await lock.query('commit');
    await lock.end();
    await expect(write).rejects.toBeInstanceOf(IntentExpiredError);
    expect(await logSize()).toBe(before);
    const row = await prisma.$queryRawUnsafe<{ version: bigint }[]>(
      "select version from game_tables where id = 'EXPIRE'",
    );
    expect(Number(row[0]!.version)).toBe(table.version);
  });
});

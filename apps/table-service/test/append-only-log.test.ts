import { Client } from 'pg';
import {
  createLogger,
  createPrisma,
  createRedis,
  systemClock,
  type PrismaClient,
  type Redis,
} from '@dominoes/platform';
import { redisNames } from '@dominoes/protocol';
import { RULE_DURATIONS } from '@dominoes/rules';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { TableEngine } from '../src/table/table-engine';
import { TableStore } from '../src/table/table-store';

/** Issue 11 §4: the action log is append-only by enforcement, in Postgres itself. */
describe('the action log (table_actions) on real Postgres', () => {
  let stores: TestStores;
  let prisma: PrismaClient;
  let redis: Redis;
  let sql: Client;
  const count = async () =>
    Number(
      (await sql.query<{ n: string }>("select count(*) as n from table_actions where table_id = 'APPEND'"))
        .rows[0]!.n,
    );

  beforeAll(async () => {
    stores = await createTestStores('append_only');
    prisma = createPrisma(stores.databaseUrl, 2);
    redis = createRedis(stores.redisUrl, 'append-only-test');
    sql = new Client({ connectionString: stores.databaseUrl });
    await sql.connect();
    const engine = new TableEngine({
      store: new TableStore(prisma),
      publisher: redis,
      names: redisNames(stores.redisPrefix),
      clock: systemClock,
      durations: RULE_DURATIONS,
      deadlines: { schedule: async () => undefined },
      logger: createLogger('test', 'silent'),
    });
    const reply = await engine.handle({
      intentId: 'a1',
      tableId: 'APPEND',
      player: { id: '00000000-0000-4000-8000-000000000001', name: 'Ana' },
      connectionId: 'c1',
      replyTo: null,
      sentAt: Date.now(),
      intent: { kind: 'create', config: { variant: 'partnership' } },
    });
    expect(reply).toMatchObject({ ok: true });
  });
  afterAll(async () => {
    await sql?.end();
    await prisma?.$disconnect();
    redis?.disconnect();
    await stores?.dispose();
  });

  it('is written by the table-service as before (appends work)', async () => {
    expect(await count()).toBeGreaterThan(0);
  });

  it.each([
    [
      'an UPDATE of a row',
      "update table_actions set kind = 'forged' where table_id = 'APPEND'",
      /append-only: UPDATE/,
    ],
    ['a DELETE of a row', "delete from table_actions where table_id = 'APPEND'", /append-only: DELETE/],
    ['a TRUNCATE', 'truncate table_actions', /append-only: TRUNCATE/],
    [
      'deleting the table (no cascade into its log)',
      "delete from game_tables where id = 'APPEND'",
      /violates foreign key constraint "table_actions_table_id_fkey"/,
    ],
  ])('Postgres refuses %s, and the log is unchanged', async (_what, statement, error) => {
    const before = await count();
    await expect(sql.query(statement)).rejects.toThrow(error);
    expect(await count()).toBe(before);
    const kinds = await sql.query(
      "select kind from table_actions where table_id = 'APPEND' and kind = 'forged'",
    );
    expect(kinds.rows).toEqual([]);
  });
});

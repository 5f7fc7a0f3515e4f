import { Client } from 'pg';
import { envelopes, startEngineHarness, type EngineHarness } from './support/engine-harness';

/** Issue 11 §4: the action log is append-only by enforcement, in Postgres itself. */
describe('the action log (table_actions) on real Postgres', () => {
  let harness: EngineHarness;
  let sql: Client;
  const count = async () =>
    Number(
      (await sql.query<{ n: string }>("select count(*) as n from table_actions where table_id = 'APPEND'"))
        .rows[0]!.n,
    );

  beforeAll(async () => {
    harness = await startEngineHarness('append_only');
    sql = new Client({ connectionString: harness.stores.databaseUrl });
    await sql.connect();
    const intent = envelopes('APPEND', 'a');
    const reply = await harness
      .engine()
      .handle(intent(1, { kind: 'create', config: { variant: 'partnership' } }));
    expect(reply).toMatchObject({ ok: true });
  });
  afterAll(async () => {
    await sql?.end();
    await harness?.dispose();
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

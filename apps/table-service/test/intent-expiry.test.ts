import { Client } from 'pg';
import type { TableEngine } from '../src/table/table-engine';
import { IntentExpiredError } from '../src/table/table-ports';
import { envelopes, startEngineHarness, type EngineHarness } from './support/engine-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Issue 11 §2: an intent is never applied after its expiry, by the engine nor inside the write. */
describe('intent expiry on real Postgres and Redis', () => {
  let harness: EngineHarness;
  let engine: TableEngine;
  const intent = envelopes('EXPIRE', 'x');
  const logSize = async () =>
    Number(
      (
        await harness.prisma.$queryRawUnsafe<{ n: bigint }[]>(
          "select count(*) as n from table_actions where table_id = 'EXPIRE'",
        )
      )[0]!.n,
    );

  beforeAll(async () => {
    harness = await startEngineHarness('expiry');
    engine = harness.engine();
    expect(
      await engine.handle(intent(0, { kind: 'create', config: { variant: 'partnership' } })),
    ).toMatchObject({
      ok: true,
    });
  });
  afterAll(async () => {
    await harness?.dispose();
  });

  it('an intent that arrives after its expiry is refused with INTENT_EXPIRED and changes nothing', async () => {
    const before = await logSize();
    const reply = await engine.handle(intent(1, { kind: 'join' }, { expiresAt: Date.now() - 1 }));
    expect(reply).toMatchObject({ ok: false, code: 'INTENT_EXPIRED' });
    expect(await logSize()).toBe(before);
    // Before its expiry the same join is applied.
    expect(await engine.handle(intent(1, { kind: 'join' }, { expiresAt: Date.now() + 5000 }))).toMatchObject({
      ok: true,
      seat: 1,
    });
  });

  it('Postgres refuses the write itself when the expiry passes while it waits on a lock', async () => {
    const table = (await engine.load('EXPIRE'))!;
    const before = await logSize();
    const lock = new Client({ connectionString: harness.stores.databaseUrl });
    await lock.connect();
    await lock.query('begin');
    await lock.query('lock table game_tables in exclusive mode');
    const write = harness.store().append(table, { ...table }, [], 'x-locked', Date.now() + 300);
    await sleep(800);
    await lock.query('commit');
    await lock.end();
    await expect(write).rejects.toBeInstanceOf(IntentExpiredError);
    expect(await logSize()).toBe(before);
    const row = await harness.prisma.$queryRawUnsafe<{ version: bigint }[]>(
      "select version from game_tables where id = 'EXPIRE'",
    );
    expect(Number(row[0]!.version)).toBe(table.version);
  });
});

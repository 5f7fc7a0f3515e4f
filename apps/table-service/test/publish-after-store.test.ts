import { Client } from 'pg';
import { envelopes, startEngineHarness, type EngineHarness } from './support/engine-harness';
import { watchSeatChannels, type SeatChannels } from './support/seat-channels';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Views are published only after the store accepted the change (issue 15: the fencing test checked
 * what was stored, never what was published). On real Postgres and Redis, with the gateways' view
 * of it: the seat channels.
 */
describe('views published only after a successful store, on real Postgres and Redis', () => {
  let harness: EngineHarness;
  let channels: SeatChannels;
  const TABLES = ['PUBEXP', 'PUBFEN'];
  const versionInPostgres = async (id: string) =>
    Number(
      (
        await harness.prisma.$queryRawUnsafe<{ version: bigint }[]>(
          'select version from game_tables where id = $1',
          id,
        )
      )[0]!.version,
    );

  beforeAll(async () => {
    harness = await startEngineHarness('publish_after_store');
    channels = await watchSeatChannels(harness.stores.redisUrl, harness.names, TABLES);
  });
  afterAll(async () => {
    channels?.close();
    await harness?.dispose();
  });

  it('a write Postgres refuses because the intent expired while it waited on a lock publishes nothing on any seat channel, and the reply says INTENT_EXPIRED', async () => {
    const engine = harness.engine();
    const intent = envelopes('PUBEXP', 'pe');
    expect(
      await engine.handle(intent(0, { kind: 'create', config: { variant: 'partnership' } })),
    ).toMatchObject({ ok: true });
    expect(await engine.handle(intent(1, { kind: 'join' }))).toMatchObject({ ok: true, seat: 1 });
    await channels.settle();
    expect(channels.take().length).toBeGreaterThan(0); // the channels work: the join was published
    const version = await versionInPostgres('PUBEXP');

    const lock = new Client({ connectionString: harness.stores.databaseUrl });
    await lock.connect();
    await lock.query('begin');
    await lock.query('lock table game_tables in exclusive mode');
    // Not expired when the engine looks at it, expired by the time Postgres can write it.
    const reply = engine.handle(intent(2, { kind: 'join' }, { expiresAt: Date.now() + 300 }));
    await sleep(700);
    await lock.query('commit');
    await lock.end();
    expect(await reply).toMatchObject({ ok: false, code: 'INTENT_EXPIRED' });
    await channels.settle(300);
    expect(channels.take()).toEqual([]);
    expect(await versionInPostgres('PUBEXP')).toBe(version);
  });

  it('a write fenced off (a stale copy of the table: another replica wrote it) publishes nothing; the retry on the reloaded table publishes each seat one view, of the version stored', async () => {
    const a = harness.engine();
    const b = harness.engine();
    const intent = envelopes('PUBFEN', 'pf');
    expect(await a.handle(intent(0, { kind: 'create', config: { variant: 'partnership' } }))).toMatchObject({
      ok: true,
    });
    const stale = (await b.load('PUBFEN'))!.version; // B's copy, soon out of date
    expect(await a.handle(intent(1, { kind: 'join' }))).toMatchObject({ ok: true, seat: 1 });
    await channels.settle();
    const fromA = channels.take();
    const afterA = await versionInPostgres('PUBFEN');
    expect(fromA.map((e) => e.version)).toEqual([afterA, afterA]);
    expect(afterA).toBeGreaterThan(stale);

    const reply = await b.handle(intent(2, { kind: 'join' }));
    expect(reply).toMatchObject({ ok: true, seat: 2 });
    const stored = await versionInPostgres('PUBFEN');
    expect(reply).toMatchObject({ version: stored });
    await channels.settle();
    const fromB = channels.take();
    // One view per seated seat, all of the version Postgres holds: none of the refused write.
    expect(fromB.map((e) => e.seat).sort()).toEqual([0, 1, 2]);
    expect(fromB.every((e) => e.version === stored)).toBe(true);
    expect(fromB.every((e) => e.view.seats.filter((s) => s !== null).length === 3)).toBe(true);
  });
});

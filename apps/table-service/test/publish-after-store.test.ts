import { Client } from 'pg';
import { envelopes } from './support/engine-harness';
import { engineSuite } from './support/engine-suite';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Views are published only after the store accepted the change (issue 15: the fencing test checked
 * what was stored, never what was published). On real Postgres and Redis, with the gateways' view
 * of it: the views channels.
 */
describe('views published only after a successful store, on real Postgres and Redis', () => {
  const suite = engineSuite('publish_after_store', ['PUBEXP', 'PUBFEN']);

  it('a write Postgres refuses because the intent expired while it waited on a lock publishes nothing on any views channel, and the reply says INTENT_EXPIRED', async () => {
    const engine = suite.harness.engine();
    const intent = envelopes('PUBEXP', 'pe');
    expect(
      await engine.handle(intent(0, { kind: 'create', config: { variant: 'partnership' } })),
    ).toMatchObject({ ok: true });
    expect(await engine.handle(intent(1, { kind: 'join' }))).toMatchObject({ ok: true, seat: 1 });
    await suite.channels.settle();
    expect(suite.channels.take().length).toBeGreaterThan(0); // the channels work: the join was published
    const version = await suite.harness.storedVersion('PUBEXP');

    const lock = new Client({ connectionString: suite.harness.stores.databaseUrl });
    await lock.connect();
    await lock.query('begin');
    await lock.query('lock table game_tables in exclusive mode');
    // Not expired when the engine looks at it, expired by the time Postgres can write it.
    const reply = engine.handle(intent(2, { kind: 'join' }, { expiresAt: Date.now() + 300 }));
    await sleep(700);
    await lock.query('commit');
    await lock.end();
    expect(await reply).toMatchObject({ ok: false, code: 'INTENT_EXPIRED' });
    await suite.channels.settle(300);
    expect(suite.channels.take()).toEqual([]);
    expect(await suite.harness.storedVersion('PUBEXP')).toBe(version);
  });

  it('a write fenced off (a stale copy of the table: another replica wrote it) publishes nothing; the retry on the reloaded table publishes each seat one view, of the version stored', async () => {
    const a = suite.harness.engine();
    const b = suite.harness.engine();
    const intent = envelopes('PUBFEN', 'pf');
    expect(await a.handle(intent(0, { kind: 'create', config: { variant: 'partnership' } }))).toMatchObject({
      ok: true,
    });
    const stale = (await b.load('PUBFEN'))!.version; // B's copy, soon out of date
    expect(await a.handle(intent(1, { kind: 'join' }))).toMatchObject({ ok: true, seat: 1 });
    await suite.channels.settle();
    const fromA = suite.channels.take();
    const afterA = await suite.harness.storedVersion('PUBFEN');
    expect(fromA.map((e) => e.version)).toEqual([afterA, afterA]);
    expect(afterA).toBeGreaterThan(stale);

    const reply = await b.handle(intent(2, { kind: 'join' }));
    expect(reply).toMatchObject({ ok: true, seat: 2 });
    const stored = await suite.harness.storedVersion('PUBFEN');
    expect(reply).toMatchObject({ version: stored });
    await suite.channels.settle();
    const fromB = suite.channels.take();
    // One view per seated seat, all of the version Postgres holds: none of the refused write.
    expect(fromB.map((e) => e.seat).sort()).toEqual([0, 1, 2]);
    expect(fromB.every((e) => e.version === stored)).toBe(true);
    expect(fromB.every((e) => e.view.seats.filter((s) => s !== null).length === 3)).toBe(true);
  });
});

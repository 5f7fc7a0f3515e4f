import { RECENT_INTENTS_KEPT } from '../src/table/table-state';
import { envelopes } from './support/engine-harness';
import { engineSuite } from './support/engine-suite';

/**
 * At-most-once handling of a repeated intent id, and the host's re-join, at the component (the
 * engine on real Postgres and Redis), not only end to end (issue 15).
 */
describe('at most once, and the host re-joining, on real Postgres and Redis', () => {
  const suite = engineSuite('at_most_once', ['ONCE01', 'ONCE02', 'HOST01']);

  it('a repeated intent id is applied once: the same engine and another replica (no cache) both acknowledge it with the stored version, write nothing and publish nothing', async () => {
    const engine = suite.harness.engine();
    const intent = envelopes('ONCE01', 'o');
    expect(
      await engine.handle(intent(0, { kind: 'create', config: { variant: 'partnership' } })),
    ).toMatchObject({ ok: true });
    const join = intent(1, { kind: 'join' });
    const first = await engine.handle(join);
    expect(first).toMatchObject({ ok: true, seat: 1 });
    const rows = await suite.harness.storedActions('ONCE01');
    await suite.channels.settle();
    suite.channels.take();

    expect(await engine.handle({ ...join, sentAt: Date.now() })).toEqual(first);
    expect(await suite.harness.engine().handle({ ...join })).toEqual(first);
    // The same intent after other changes is still the one already applied.
    expect(await engine.handle(intent(2, { kind: 'join' }))).toMatchObject({ ok: true, seat: 2 });
    const later = await suite.harness.storedActions('ONCE01');
    expect(await engine.handle({ ...join })).toMatchObject({ ok: true, seat: 1 });
    expect(await suite.harness.storedActions('ONCE01')).toBe(later);
    expect(later).toBe(rows + 1);
    await suite.channels.settle();
    const published = suite.channels.take();
    expect(published.length).toBeGreaterThan(0); // the second join's views
    expect(published.filter((e) => e.cause?.intentId === join.intentId)).toEqual([]);
  });

  it(`an intent id older than the last ${RECENT_INTENTS_KEPT} the table remembers, sent again after a later change, is refused by Postgres's unique intent id: acknowledged, nothing changes, nothing is published`, async () => {
    const engine = suite.harness.engine();
    const intent = envelopes('ONCE02', 'q');
    expect(
      await engine.handle(intent(0, { kind: 'create', config: { variant: 'partnership' } })),
    ).toMatchObject({ ok: true });
    const turnOn = intent(0, { kind: 'autoPass', on: true });
    expect(await engine.handle(turnOn)).toMatchObject({ ok: true, seat: 0 });
    // Enough changes (each a new socket of the host: a presence event) to push it out of memory.
    for (let i = 0; i <= RECENT_INTENTS_KEPT; i++)
      expect(await engine.handle(intent(0, { kind: 'join' }, { connectionId: `gw:${i}` }))).toMatchObject({
        ok: true,
      });
    expect((await engine.load('ONCE02'))!.recentIntents).not.toContain(turnOn.intentId);
    expect(await engine.handle(intent(0, { kind: 'autoPass', on: false }))).toMatchObject({ ok: true });
    const rows = await suite.harness.storedActions('ONCE02');
    await suite.channels.settle();
    suite.channels.take();

    const again = await engine.handle({ ...turnOn });
    expect(again).toMatchObject({ ok: true, seat: 0 });
    expect(await suite.harness.storedActions('ONCE02')).toBe(rows);
    expect((await engine.load('ONCE02'))!.seats[0]!.autoPass).toBe(false);
    expect((await suite.harness.store().load('ONCE02'))!.seats[0]!.autoPass).toBe(false);
    await suite.channels.settle();
    expect(suite.channels.take()).toEqual([]);
  });

  it("the host's re-join: a host who opened the table without a socket (HTTP) joins on one, keeps seat 0 and the host role, is connected (a 45 s turn, not 5 s), and the same join again changes nothing", async () => {
    const engine = suite.harness.engine();
    const intent = envelopes('HOST01', 'h');
    const host = '00000000-0000-4000-8000-000000000000';
    const opened = await engine.handle(
      intent(0, { kind: 'create', config: { variant: 'partnership' } }, { connectionId: null }),
    );
    expect(opened).toMatchObject({ ok: true, seat: 0 });
    expect((await engine.load('HOST01'))!.seats[0]!.connections).toEqual([]);

    const join = intent(0, { kind: 'join' }, { connectionId: 'gw-a:1' });
    const joined = await engine.handle(join);
    expect(joined).toMatchObject({ ok: true, seat: 0 });
    let table = (await suite.harness.store().load('HOST01'))!;
    expect(table.hostPlayerId).toBe(host);
    expect(table.seats[0]).toMatchObject({ playerId: host, connections: ['gw-a:1'] });
    expect(table.seats.filter((s) => s !== null)).toHaveLength(1);
    await suite.channels.settle();
    const views = suite.channels.take().filter((e) => e.tableId === 'HOST01');
    expect(views.at(-1)).toMatchObject({ seat: 0, version: table.version });
    expect(views.at(-1)!.view.seats[0]).toMatchObject({ connected: true });

    // The same join (a retry), and the same socket joining again: no change, no new version.
    expect(await engine.handle({ ...join })).toEqual(joined);
    expect(await engine.handle(intent(0, { kind: 'join' }, { connectionId: 'gw-a:1' }))).toMatchObject({
      ok: true,
      seat: 0,
      version: table.version,
    });
    for (const p of [1, 2, 3])
      expect(await engine.handle(intent(p, { kind: 'join' }))).toMatchObject({ ok: true });
    table = (await engine.load('HOST01'))!;
    expect(table.status).toBe('playing');
    expect(table.hostPlayerId).toBe(host);
    // Every seat is connected: the first turn, whoever has it, is a 45 s one (P16, not P17's 5 s).
    expect(table.deadline!.at - Date.now()).toBeGreaterThan(40_000);
  });
});

import { LobbyQueries } from '@dominoes/platform';
import { envelopes } from './support/engine-harness';
import { engineSuite } from './support/engine-suite';

/**
 * Decision 0026 on real Postgres: every stored change writes the row's seats_present in the same
 * statement, and the lobby's reads (LobbyQueries: the list, the counts, quick play's search) follow
 * it: a waiting public table whose players all went away is in none of them, except the search of
 * its own player; it is back once one of them returns.
 */
describe('seats_present, stored with each change, is what the lobby reads', () => {
  const suite = engineSuite('lobby_seats_present');
  const TABLE = 'SEATSPRESENT';
  const config = { variant: 'five-tile' as const, seats: 3, public: true };

  const present = async (): Promise<number> =>
    Number(
      (
        await suite.harness.prisma.$queryRawUnsafe<{ n: number }[]>(
          'SELECT seats_present AS n FROM game_tables WHERE id = $1',
          TABLE,
        )
      )[0]!.n,
    );
  const lobby = async () => {
    const queries = new LobbyQueries(suite.harness.prisma);
    const listed = (await queries.publicTables(40, 20)).map((r) => r.id);
    const counts = await queries.publicCounts();
    const search = (playerId: string) =>
      queries.withQuickPlayLock(
        { variant: 'five-tile', seatCount: 3, target: 100 },
        (s) => s.candidates(playerId, 5),
        5_000,
      );
    return {
      listed: listed.includes(TABLE),
      waiting: counts.waiting,
      forStranger: (await search('00000000-0000-4000-8000-000000000009')).includes(TABLE),
      forHost: (await search('00000000-0000-4000-8000-000000000000')).includes(TABLE),
    };
  };

  it('opened and joined: present; the last socket closed: 0 and in no lobby read but its own player’s search; a return: present again', async () => {
    const engine = suite.harness.engine();
    const intent = envelopes(TABLE, 'sp-');
    expect(await engine.handle(intent(0, { kind: 'create', config }))).toMatchObject({ ok: true });
    expect(await engine.handle(intent(1, { kind: 'join' }))).toMatchObject({ ok: true, seat: 1 });
    expect(await present()).toBe(2);
    expect(await lobby()).toEqual({ listed: true, waiting: 1, forStranger: true, forHost: true });

    await engine.handle(intent(0, { kind: 'presence', connected: false }));
    expect(await present()).toBe(1);
    expect((await lobby()).listed).toBe(true);
    await engine.handle(intent(1, { kind: 'presence', connected: false }));
    expect(await present()).toBe(0);
    expect(await lobby()).toEqual({ listed: false, waiting: 0, forStranger: false, forHost: true });

    expect(await engine.handle(intent(1, { kind: 'join' }, { connectionId: 'c1-back' }))).toMatchObject({
      ok: true,
      seat: 1,
    });
    expect(await present()).toBe(1);
    expect(await lobby()).toEqual({ listed: true, waiting: 1, forStranger: true, forHost: true });
  });

  it('a table opened without a socket (HTTP) is present (on its way) from its first row', async () => {
    const engine = suite.harness.engine();
    const intent = envelopes('SEATSONWAY01', 'ow-');
    expect(
      await engine.handle(
        intent(
          0,
          { kind: 'create', config: { variant: 'draw', seats: 2, public: true } },
          { connectionId: null },
        ),
      ),
    ).toMatchObject({ ok: true });
    const rows = await suite.harness.prisma.$queryRawUnsafe<{ n: number }[]>(
      'SELECT seats_present AS n FROM game_tables WHERE id = $1',
      'SEATSONWAY01',
    );
    expect(Number(rows[0]!.n)).toBe(1);
  });
});

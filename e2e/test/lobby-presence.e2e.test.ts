import { quickPlay } from '@dominoes/protocol';
import {
  gatewayEndpoints,
  nextFrame,
  playerOn,
  subscribeLobby,
  updateOf,
  type LobbyFrame,
  type UpdateFrame,
} from '../src/lobby-frames';
import { TestPlayer, type PlayerEndpoints } from '../src/players';
import { TestSystem } from '../src/system';

/*
 * Decision 0026 through the real services (two gateways, one table-service, real Postgres and
 * Redis): a waiting public table whose players all closed their tabs is not in the lobby and quick
 * play does not seat anyone there; it comes back when one of its players returns. Tables in play
 * stay listed (decision 0017 ends them); the players' own lists keep it.
 */

describe('a waiting public table with no seat connected leaves the lobby and quick play (issue 12, decision 0026)', () => {
  let system: TestSystem;
  let gateways: PlayerEndpoints[];
  beforeAll(async () => {
    system = await TestSystem.start('lobby-presence', { replicas: { gateway: 2 } });
    gateways = gatewayEndpoints(system, 2);
  });
  afterAll(async () => {
    await system?.stop();
  });

  const player = (name: string, gateway: number, connect = true): Promise<TestPlayer> =>
    playerOn(gateways[gateway]!, name, connect);
  const frame = nextFrame;
  const subscribe = subscribeLobby;
  /** A fresh lobby frame for a new socket of a new player on `gateway`. */
  const freshLobby = async (gateway: number): Promise<LobbyFrame> => {
    const reader = await player(`Reader${gateway}`, gateway);
    const lobby = await subscribe(reader);
    reader.close();
    return lobby;
  };
  const updatesOf = (p: TestPlayer, tableId: string, from: number): UpdateFrame[] =>
    p.frames.slice(from).filter(updateOf(tableId));

  it('the last seated socket closing unlists it on both gateways (table: null); quick play opens a new table instead; a player coming back lists it again and quick play then fills it; the host’s own list keeps it meanwhile', async () => {
    const [eyes0, eyes1] = [await player('Eyes0', 0), await player('Eyes1', 1)];
    await Promise.all([subscribe(eyes0), subscribe(eyes1)]);

    const host = await player('Hana', 1);
    const { tableId } = await host.openTable({ variant: 'draw', seats: 3, public: true });
    await host.join(tableId);
    const guest = await player('Gus', 0);
    await guest.join(tableId);
    await frame(
      eyes0,
      updateOf(tableId, (t) => t?.players[1] === 'Gus'),
    );

    // One player gone, one still there: still listed, and nothing published for it.
    const beforeHostGoes = eyes0.frames.length;
    host.close();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(updatesOf(eyes0, tableId, beforeHostGoes)).toEqual([]);
    expect((await freshLobby(1)).tables.map((t) => t.tableId)).toContain(tableId);

    // The last socket goes: the table leaves every lobby, live and fresh, on both gateways.
    guest.close();
    for (const p of [eyes0, eyes1])
      await frame(
        p,
        updateOf(tableId, (t) => t === null),
      );
    for (const gateway of [0, 1]) {
      const lobby = await freshLobby(gateway);
      expect(lobby.tables.map((t) => t.tableId)).not.toContain(tableId);
      expect(lobby.counts.waiting).toBe(0);
    }

    // The host's own lobby still lists it under "yours", to return to.
    // (The host's identity, on a new socket of the other gateway: a new tab.)
    const hostBack = new TestPlayer('Hana', host.token, host.playerId, gateways[0]!);
    await hostBack.connect();
    const hostLobby = await subscribe(hostBack);
    expect(hostLobby.yours.map((t) => t.tableId)).toContain(tableId);
    expect(hostLobby.tables.map((t) => t.tableId)).not.toContain(tableId);

    // Quick play of the same configuration skips it: a new table is opened.
    const newcomer = await player('Nina', 1, false);
    const seated = await quickPlay(gateways[1]!.httpUrl, newcomer.token, { variant: 'draw', seats: 3 });
    expect(seated.created).toBe(true);
    expect(seated.tableId).not.toBe(tableId);

    // The host comes back (its link's join, on the other gateway): listed again, seats as they were.
    const from = [eyes0.frames.length, eyes1.frames.length];
    await hostBack.join(tableId);
    for (const [i, p] of [eyes0, eyes1].entries()) {
      const back = await frame(
        p,
        updateOf(tableId, (t) => t !== null),
        from[i],
      );
      expect(back.table).toMatchObject({ status: 'waiting', players: ['Hana', 'Gus', null], host: 'Hana' });
    }
    expect((await freshLobby(0)).tables.map((t) => t.tableId)).toContain(tableId);

    // Now quick play may seat someone there (the oldest open table of the configuration).
    const third = await player('Theo', 0, false);
    expect(await quickPlay(gateways[0]!.httpUrl, third.token, { variant: 'draw', seats: 3 })).toMatchObject({
      tableId,
      seat: 2,
      created: false,
    });
    for (const p of [eyes0, eyes1, hostBack]) p.close();
  });

  it('P3 quick play on the socket skips a table whose players all left it, and a player’s quick play returns them to their own table', async () => {
    const host = await player('Ada', 0);
    const { tableId } = await host.openTable({ variant: 'five-tile', seats: 4, public: true });
    await host.join(tableId);
    host.close();
    // The presence change is stored (the lobby no longer lists it) before quick play looks.
    const deadline = Date.now() + 10_000;
    while ((await freshLobby(1)).tables.some((t) => t.tableId === tableId) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));

    const other = await player('Omar', 1);
    await other.client.quickPlay({ variant: 'five-tile', seats: 4 });
    const view = await other.client.waitForView((v) => v.status === 'waiting');
    expect(view.tableId).not.toBe(tableId);
    expect(view.you.seat).toBe(0);

    // The host's own quick play (over HTTP) returns the host to the host's table, no second seat.
    const again = await quickPlay(gateways[0]!.httpUrl, host.token, { variant: 'five-tile', seats: 4 });
    expect(again).toMatchObject({ tableId, seat: 0, created: false });
    other.close();
  });

  it('a reconnect storm of one seat while another stays connected publishes nothing on the lobby channel; a table in play with nobody connected stays listed to watch', async () => {
    const eyes = await player('Eyes3', 0);
    await subscribe(eyes);
    const host = await player('Rex', 1);
    const { tableId } = await host.openTable({ variant: 'draw', seats: 3, public: true });
    await host.join(tableId);
    const stayer = await player('Stella', 0);
    await stayer.join(tableId);
    await frame(
      eyes,
      updateOf(tableId, (t) => t?.players[1] === 'Stella'),
    );

    const from = eyes.frames.length;
    for (let i = 0; i < 8; i++) {
      await host.reconnect();
      await host.join(tableId);
    }
    await new Promise((r) => setTimeout(r, 1_000));
    expect(updatesOf(eyes, tableId, from)).toEqual([]);

    // Filled: in play; then everyone closes: still listed to watch (the abandonment clock ends it).
    const last = await player('Lou', 1);
    await last.join(tableId);
    await frame(
      eyes,
      updateOf(tableId, (t) => t?.status === 'playing'),
      from,
    );
    const beforeAllGo = eyes.frames.length;
    for (const p of [host, stayer, last]) p.close();
    await new Promise((r) => setTimeout(r, 1_500));
    expect(updatesOf(eyes, tableId, beforeAllGo)).toEqual([]);
    expect((await freshLobby(1)).tables.find((t) => t.tableId === tableId)?.status).toBe('playing');
    eyes.close();
  });
});

import { LOBBY_MAX_TABLES, quickPlay, type ServerMessage } from '@dominoes/protocol';
import { gatewayEndpoints, nextFrame, playerOn, subscribeLobby, updateOf } from '../src/lobby-frames';
import { TestPlayer, type PlayerEndpoints } from '../src/players';
import { TestSystem } from '../src/system';

/*
 * Finding a game (issue 12, decision 0019) through the real services: two gateways, one
 * table-service, real Postgres and Redis. The lobby's updates cross gateways, quick play's race ends
 * at one table, and a private table is never in any lobby list or update.
 */

const MAX_TABLES = 3;

describe('the lobby and quick play across two gateways (issue 12)', () => {
  let system: TestSystem;
  let gateways: PlayerEndpoints[];
  beforeAll(async () => {
    system = await TestSystem.start('lobby', {
      replicas: { gateway: 2 },
      env: { MAX_OPEN_TABLES_PER_HOST: String(MAX_TABLES) },
    });
    gateways = gatewayEndpoints(system, 2);
  });
  afterAll(async () => {
    await system?.stop();
  });

  const player = (name: string, gateway: number, connect = true): Promise<TestPlayer> =>
    playerOn(gateways[gateway]!, name, connect);

  const frame = nextFrame;
  const subscribe = subscribeLobby;
  /** Every table id any lobby frame or update `p` received names. */
  const listedIds = (p: TestPlayer): Set<string> =>
    new Set(
      p.frames.flatMap((f) =>
        f.type === 'lobby' ? f.tables.map((t) => t.tableId) : f.type === 'lobbyUpdate' ? [f.tableId] : [],
      ),
    );

  it('a public table opened on one gateway appears live in the lobby of a socket on the other; it updates as it fills and starts; a new subscriber on either gateway gets the same entry; a private table is in no lobby list or update, only in its own players’ “yours”', async () => {
    const watcher = await player('Watcher', 0);
    const lobby0 = await subscribe(watcher);
    expect(lobby0.tables.every((t) => t.public)).toBe(true);

    const host = await player('Hana', 1);
    const { tableId } = await host.openTable({ variant: 'draw', seats: 2, public: true });
    const { tableId: privateId } = await host.openTable({ variant: 'draw', seats: 2 });
    const { tableId: privateId2 } = await host.openTable({ variant: 'draw', seats: 2, public: false });

    const opened = await frame(watcher, updateOf(tableId));
    expect(opened.table).toMatchObject({
      tableId,
      variant: 'draw',
      seatCount: 2,
      status: 'waiting',
      players: ['Hana', null],
      host: 'Hana',
      public: true,
    });
    expect(Math.abs(opened.table!.openedAt - Date.now())).toBeLessThan(30_000);

    // A fresh subscriber on the other gateway reads the same entry from Postgres.
    const late = await player('Late', 1);
    const lobby1 = await subscribe(late);
    const entry = lobby1.tables.find((t) => t.tableId === tableId);
    expect({ ...entry, openedAt: 0 }).toEqual({ ...opened.table, openedAt: 0 });
    expect(Math.abs(entry!.openedAt - opened.table!.openedAt)).toBeLessThan(5_000);
    expect(lobby1.counts.waiting).toBeGreaterThanOrEqual(1);

    // Seats fill through the ordinary join (P3: the next free seat); the match starts (no robots).
    const guest = await player('Guest', 0);
    const from = watcher.frames.length;
    await guest.join(tableId);
    expect(guest.seat).toBe(1);
    for (const p of [watcher, late]) {
      const started = await frame(
        p,
        updateOf(tableId, (t) => t?.status === 'playing'),
        p === watcher ? from : 0,
      );
      expect(started.table!.players).toEqual(['Hana', 'Guest']);
    }

    // The host's own lobby lists its private tables under "yours" only.
    const hostLobby = await subscribe(host); // the host's first subscription: read afresh
    expect(hostLobby.yours.map((t) => t.tableId)).toEqual(
      expect.arrayContaining([tableId, privateId, privateId2]),
    );
    expect(hostLobby.yours.find((t) => t.tableId === privateId)?.public).toBe(false);
    expect(hostLobby.tables.map((t) => t.tableId)).not.toContain(privateId);

    // Give any stray update time to arrive, then check every lobby frame of everyone.
    await new Promise((r) => setTimeout(r, 1_000));
    for (const p of [watcher, late, host, guest]) {
      expect(listedIds(p).has(privateId)).toBe(false);
      expect(listedIds(p).has(privateId2)).toBe(false);
    }
    expect(lobby1.yours).toEqual([]);
    for (const p of [watcher, late, host, guest]) p.close();
  });

  it('a public table whose last player leaves before the start leaves the lobby (table: null) on both gateways', async () => {
    const [a, b] = [await player('Eyes0', 0), await player('Eyes1', 1)];
    await Promise.all([subscribe(a), subscribe(b)]);
    const host = await player('Leaver', 1);
    const { tableId } = await host.openTable({ variant: 'five-tile', seats: 3, public: true });
    await frame(
      a,
      updateOf(tableId, (t) => t !== null),
    );
    await host.join(tableId);
    await host.client.leave();
    for (const p of [a, b])
      await frame(
        p,
        updateOf(tableId, (t) => t === null),
      );
    // Subscribed already, a second lobby request within a second is only acked; off, then on, reads it afresh.
    await a.client.lobby(false);
    expect((await subscribe(a)).tables.map((t) => t.tableId)).not.toContain(tableId);
    for (const p of [a, b, host]) p.close();
  });

  it('P3 quick play race: four players press at the same moment on two gateways and end at one partnership table, which starts; six draw players end at three full tables; no half-empty table is left', async () => {
    const four = await Promise.all(['Q0', 'Q1', 'Q2', 'Q3'].map((n, i) => player(n, i % 2, false)));
    const seated = await Promise.all(
      four.map((p, i) =>
        quickPlay(gateways[i % 2]!.httpUrl, p.token, { variant: 'partnership', target: 150 }),
      ),
    );
    expect(new Set(seated.map((s) => s.tableId)).size).toBe(1);
    expect(seated.map((s) => s.seat).sort()).toEqual([0, 1, 2, 3]);
    expect(seated.filter((s) => s.created)).toHaveLength(1);
    const summary = await (await fetch(`${system.httpUrl}/api/tables/${seated[0]!.tableId}`)).json();
    expect(summary).toMatchObject({ status: 'playing', target: 150, variant: 'partnership' });
    // Back to your table: the seat is the player's; its link's join returns them to it.
    await four[0]!.connect(gateways[0]!.wsUrl);
    const view = await four[0]!.join(seated[0]!.tableId);
    expect(view.you.seat).toBe(seated[0]!.seat);

    const six = await Promise.all(
      ['D0', 'D1', 'D2', 'D3', 'D4', 'D5'].map((n, i) => player(n, i % 2, false)),
    );
    const drawn = await Promise.all(
      six.map((p, i) => quickPlay(gateways[i % 2]!.httpUrl, p.token, { variant: 'draw', seats: 2 })),
    );
    const byTable = new Map<string, number[]>();
    for (const s of drawn) byTable.set(s.tableId, [...(byTable.get(s.tableId) ?? []), s.seat]);
    expect([...byTable.values()].map((seats) => seats.sort())).toEqual([
      [0, 1],
      [0, 1],
      [0, 1],
    ]);
    for (const id of byTable.keys()) {
      const t = (await (await fetch(`${system.httpUrl}/api/tables/${id}`)).json()) as { status: string };
      expect(t.status).toBe('playing');
    }
    four[0]!.close();
  });

  it('P3, P17 quick play on the socket: four sockets on two gateways at the same moment end at one table, each bound to its seat; the match starts with every seat connected (no short turn for a seat that is only on its way); hostile quick-play frames get clear errors', async () => {
    const four = await Promise.all(['S0', 'S1', 'S2', 'S3'].map((n, i) => player(n, i % 2)));
    await Promise.all(four.map((p) => p.client.quickPlay({ variant: 'partnership', target: 200 })));
    const views = await Promise.all(
      four.map((p) => p.client.waitForView((v) => v.status === 'playing' && v.game !== null)),
    );
    expect(new Set(views.map((v) => v.tableId)).size).toBe(1);
    expect(views.map((v) => v.you.seat).sort()).toEqual([0, 1, 2, 3]);
    for (const p of four) {
      const first = p.views().find((v) => v.status === 'playing')!;
      expect(first.seats.map((s) => s?.connected)).toEqual([true, true, true, true]);
      // The opener's clock is the full turn (P16), not P17's 5 s.
      expect(first.clock!.kind).toBe('turn');
      expect(first.clock!.deadline - Date.now()).toBeGreaterThan(20_000);
    }
    const errorOf = async (raw: Record<string, unknown>) => {
      const p = four[0]!;
      const from = p.frames.length;
      p.client.sendRaw(raw);
      return frame(p, (f): f is Extract<ServerMessage, { type: 'error' }> => f.type === 'error', from);
    };
    expect(await errorOf({ type: 'quickPlay', id: 'q1', variant: 'chess' })).toMatchObject({
      code: 'INVALID_MESSAGE',
    });
    expect(await errorOf({ type: 'quickPlay', id: 'q2', variant: 'partnership', target: 75 })).toMatchObject({
      code: 'INVALID_TARGET',
      id: 'q2',
    });
    expect(await errorOf({ type: 'quickPlay', id: 'q3', variant: 'draw', public: false })).toMatchObject({
      code: 'INVALID_MESSAGE',
    });
    for (const p of four) p.close();
  });

  it('quick play twice keeps one seat; it uses an open public table before opening one; it never takes a private table', async () => {
    const host = await player('PrivateHost', 0, false);
    const { tableId: privateId } = await host.openTable({ variant: 'five-tile', seats: 4 });
    const { tableId: publicId } = await host.openTable({ variant: 'five-tile', seats: 4, public: true });
    const solo = await player('Solo', 1, false);
    const first = await quickPlay(gateways[1]!.httpUrl, solo.token, { variant: 'five-tile', seats: 4 });
    expect(first).toMatchObject({ tableId: publicId, seat: 1, created: false });
    const again = await quickPlay(gateways[0]!.httpUrl, solo.token, { variant: 'five-tile', seats: 4 });
    expect(again).toMatchObject({ tableId: publicId, seat: 1, created: false });
    expect(again.tableId).not.toBe(privateId);
  });

  it('hostile input: bad lobby frames and quick-play bodies get clear errors and change nothing; quick play is bound by the host’s open-tables limit (HTTP 429 TOO_MANY_TABLES)', async () => {
    const p = await player('Hostile', 0);
    const errorOf = async (raw: Record<string, unknown>) => {
      const from = p.frames.length;
      p.client.sendRaw(raw);
      return frame(p, (f): f is Extract<ServerMessage, { type: 'error' }> => f.type === 'error', from);
    };
    expect(await errorOf({ type: 'lobby', id: 'l1' })).toMatchObject({ code: 'INVALID_MESSAGE', id: 'l1' });
    expect(await errorOf({ type: 'lobby', id: 'l2', on: true, page: 9 })).toMatchObject({
      code: 'INVALID_MESSAGE',
    });

    // Before hello: no lobby.
    const raw = new (await import('ws')).default(gateways[1]!.wsUrl);
    const firstFrame = new Promise<string>((resolve) => raw.on('message', (d) => resolve(String(d))));
    await new Promise((r) => raw.on('open', r));
    raw.send(JSON.stringify({ type: 'lobby', id: 'l3', on: true }));
    expect(JSON.parse(await firstFrame)).toMatchObject({ type: 'error', code: 'UNAUTHENTICATED' });
    raw.close();

    const post = (body: unknown, token: string | null = p.token) =>
      fetch(`${gateways[0]!.httpUrl}/api/quick-play`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      });
    const cases: [unknown, string | null, number, string][] = [
      [{ variant: 'partnership' }, null, 401, 'UNAUTHENTICATED'],
      [{ variant: 'chess' }, p.token, 400, 'INVALID_CONFIG'],
      [{ variant: 'partnership', target: 75 }, p.token, 400, 'INVALID_TARGET'],
      [{ variant: 'draw', seats: 9 }, p.token, 400, 'INVALID_SEAT_COUNT'],
      [{ variant: 'draw', public: false }, p.token, 400, 'INVALID_MESSAGE'],
      [[1, 2], p.token, 400, 'INVALID_MESSAGE'],
    ];
    for (const [body, token, status, code] of cases) {
      const response = await post(body, token);
      expect({
        body,
        status: response.status,
        code: ((await response.json()) as { error: { code: string } }).error.code,
      }).toEqual({ body, status, code });
    }
    // Opening a table: public is true or false, nothing else; nothing is opened.
    const badPublic = await fetch(`${gateways[1]!.httpUrl}/api/tables`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${p.token}` },
      body: JSON.stringify({ variant: 'draw', public: 'yes' }),
    });
    expect(badPublic.status).toBe(400);
    expect(await badPublic.json()).toMatchObject({
      error: { code: 'INVALID_CONFIG', message: expect.stringContaining('public must be true') },
    });
    // Each new configuration opens a new public table for this host, until the host limit.
    for (let i = 0; i < MAX_TABLES; i++)
      expect((await post({ variant: 'partnership', target: 300 + 50 * i })).status).toBe(200);
    const refused = await post({ variant: 'partnership', target: 450 });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: 'TOO_MANY_TABLES' } });
    p.close();
  });

  it(`a flood of public tables: the lobby frame lists at most ${LOBBY_MAX_TABLES} tables (the oldest waiting first) and counts them all`, async () => {
    const hosts = await Promise.all(Array.from({ length: 15 }, (_, i) => player(`Flood${i}`, i % 2, false)));
    await Promise.all(
      hosts.map(async (h) => {
        for (let i = 0; i < MAX_TABLES; i++)
          await h.openTable({ variant: 'draw', seats: 4, target: 50 + 50 * i, public: true });
      }),
    );
    const reader = await player('Reader', 1);
    const lobby = await subscribe(reader);
    expect(lobby.counts.waiting).toBeGreaterThanOrEqual(45);
    expect(lobby.tables.length).toBeLessThanOrEqual(LOBBY_MAX_TABLES);
    // Bounded: 60 tables of 4 seats with 24-character names stay far under the socket's 64 KiB.
    const bytes = Buffer.byteLength(JSON.stringify(lobby));
    console.log(
      `lobby frame: ${lobby.tables.length} tables of ${lobby.counts.waiting} waiting, ${bytes} bytes`,
    );
    expect(bytes).toBeLessThan(40_000);
    const waiting = lobby.tables.filter((t) => t.status === 'waiting');
    expect(waiting.length).toBe(40);
    const opened = waiting.map((t) => t.openedAt);
    expect(opened).toEqual([...opened].sort((x, y) => x - y));
    reader.close();
  });
});

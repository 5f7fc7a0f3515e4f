import WebSocket from 'ws';
import { randomUUID } from 'node:crypto';
import { signToken } from '../../apps/gateway/src/auth/tokens';
import type { ServerMessage } from '@dominoes/protocol';
import { seatPlayers, TestPlayer } from '../src/players';
import { TestSystem, type ServiceName } from '../src/system';

/** A raw socket that sends exactly what a test says and collects every frame back. */
class RawSocket {
  readonly frames: ServerMessage[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.frames.push(JSON.parse(String(data)) as ServerMessage));
  }
  static open(url: string): Promise<RawSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(new RawSocket(ws)));
      ws.once('error', reject);
    });
  }
  async next(
    predicate: (m: ServerMessage) => boolean = () => true,
    timeoutMs = 5000,
  ): Promise<ServerMessage> {
    const started = Date.now();
    for (;;) {
      const index = this.frames.findIndex(predicate);
      if (index >= 0) return this.frames.splice(index, 1)[0]!;
      if (Date.now() - started > timeoutMs)
        throw new Error(`no matching frame; got ${JSON.stringify(this.frames)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  async errorFor(send: string | Buffer): Promise<{ code: string; message: string; id: string | null }> {
    this.ws.send(send);
    const frame = await this.next((m) => m.type === 'error');
    return frame as { code: string; message: string; id: string | null };
  }
}

describe('bad input: every kind gets an error frame with a code, changes nothing, and leaves every process running', () => {
  let system: TestSystem;
  let players: TestPlayer[];
  let tableId: string;
  let mover: TestPlayer;
  let idle: TestPlayer;
  let host: TestPlayer;
  let raw: RawSocket;
  let versionBefore: number;
  let firstPlayId: string;
  let opener: TestPlayer;

  beforeAll(async () => {
    system = await TestSystem.start('badinput');
    ({ players, tableId } = await seatPlayers(system, ['Quinn', 'Rada', 'Sami', 'Teo'], {
      variant: 'partnership',
    }));
    host = players[0]!;
    const view = await host.client.waitForView((v) => v.status === 'playing');
    mover = players.find((p) => p.seat === view.game!.turn)!;
    idle = players.find((p) => p !== mover && p !== host)!;
    // Put one tile down so that ends exist (once the mover's own view shows its turn: the host's
    // view may come first).
    const moverView = await mover.client.waitForView((v) => v.game?.turn === mover.seat);
    const first = moverView.game!.legal[0]!;
    if (first.type !== 'play') throw new Error('the opener must play');
    firstPlayId = (await mover.client.play(first.tile, first.end)).id;
    opener = mover;
    const next = await host.client.waitForView((v) => v.game!.board.placements.length === 1);
    mover = players.find((p) => p.seat === next.game!.turn)!;
    idle = players.find((p) => p !== mover && p !== host)!;
    await mover.client.waitForView((v) => v.game!.turn === mover.seat);
    raw = await RawSocket.open(system.wsUrl);
    raw.ws.send(JSON.stringify({ type: 'hello', token: mover.token }));
    await raw.next((m) => m.type === 'welcome');
    raw.ws.send(JSON.stringify({ type: 'join', id: 'raw-join', table: tableId }));
    const joined = await raw.next((m) => m.type === 'ack');
    // The join adds a connection to the mover's seat, a version of its own. Its view reaches the
    // mover's socket on another Redis connection of the gateway than this ack: wait for it.
    const joinedVersion = joined.type === 'ack' ? joined.version : null;
    if (joinedVersion !== null) await mover.client.waitForView(() => mover.client.version >= joinedVersion);
    versionBefore = mover.client.version;
  });

  afterAll(async () => {
    raw?.ws.close();
    await system?.stop();
  });

  afterEach(async () => {
    // Nothing changed: the table is at the same version, and every process still serves.
    await mover.client.sync();
    expect(mover.client.version).toBe(versionBefore);
    for (const name of ['gateway', 'table-service', 'timer-service'] as ServiceName[])
      expect(system.isRunning(name)).toBe(true);
  });

  const mine = () => mover.view!.game!;
  const tileNotInHand = (): [number, number] => {
    const hand = mine().hand;
    for (let a = 0; a <= 6; a++)
      for (let b = a; b <= 6; b++)
        if (!hand.some((t) => (t[0] === a && t[1] === b) || (t[0] === b && t[1] === a))) return [a, b];
    throw new Error('impossible');
  };

  it.each([
    ['malformed JSON', '{"type":"play", "id": "x1", "tile": [1,', 'BAD_JSON'],
    ['a JSON array', '[1,2,3]', 'INVALID_MESSAGE'],
    ['a JSON string', '"hello"', 'INVALID_MESSAGE'],
    ['an unknown type', JSON.stringify({ type: 'cheat', id: 'x2' }), 'UNKNOWN_TYPE'],
    ['a missing type', JSON.stringify({ id: 'x3' }), 'INVALID_MESSAGE'],
    ['a missing field (play without tile)', JSON.stringify({ type: 'play', id: 'x4' }), 'INVALID_MESSAGE'],
    ['a missing id', JSON.stringify({ type: 'pass' }), 'INVALID_MESSAGE'],
    ['an extra field', JSON.stringify({ type: 'pass', id: 'x5', cards: 3 }), 'INVALID_MESSAGE'],
    [
      'a tile out of range',
      JSON.stringify({ type: 'play', id: 'x6', tile: [7, 9], end: 'left' }),
      'INVALID_MESSAGE',
    ],
    [
      'a tile of the wrong shape',
      JSON.stringify({ type: 'play', id: 'x7', tile: '6-6', end: 'left' }),
      'INVALID_MESSAGE',
    ],
    ['a bad table code', JSON.stringify({ type: 'join', id: 'x8', table: 'lower!' }), 'INVALID_MESSAGE'],
    ['a second hello', JSON.stringify({ type: 'hello', token: 'x' }), 'ALREADY_AUTHENTICATED'],
  ])('%s → %s', async (_kind, frame, code) => {
    const error = await raw.errorFor(frame);
    expect(error.code).toBe(code);
    expect(error.message.length).toBeGreaterThan(3);
  });

  it('a repeated intent id is applied at most once: the same play sent again is acknowledged and changes nothing', async () => {
    const first = opener.client.view!.game!.board.placements[0]!;
    const ack = await opener.client.request(
      'play',
      { tile: [first.tile[0], first.tile[1]], end: 'left' },
      firstPlayId,
    );
    expect(ack.id).toBe(firstPlayId);
    expect(ack.version).toBeLessThan(versionBefore + 1);
  });

  it('an oversized frame → FRAME_TOO_LARGE', async () => {
    const error = await raw.errorFor(JSON.stringify({ type: 'sync', id: 'big', pad: 'x'.repeat(10_000) }));
    expect(error.code).toBe('FRAME_TOO_LARGE');
  });

  it('a binary frame → INVALID_MESSAGE', async () => {
    expect((await raw.errorFor(Buffer.from([1, 2, 3]))).code).toBe('INVALID_MESSAGE');
  });

  it('a tile not in the hand → TILE_NOT_IN_HAND', async () => {
    await expect(mover.client.play(tileNotInHand(), 'left')).rejects.toMatchObject({
      code: 'TILE_NOT_IN_HAND',
    });
  });

  it('an illegal end → UNKNOWN_END, and a tile that does not match its end → TILE_DOES_NOT_MATCH', async () => {
    const tile = mine().hand[0]!;
    await expect(mover.client.play(tile, 'middle')).rejects.toMatchObject({ code: 'UNKNOWN_END' });
    const ends = mine().board.ends;
    const misfit = mine().hand.flatMap((t) =>
      ends.filter((e) => t[0] !== e.value && t[1] !== e.value).map((e) => ({ t, e })),
    )[0];
    if (misfit)
      await expect(mover.client.play(misfit.t, misfit.e.id)).rejects.toMatchObject({
        code: 'TILE_DOES_NOT_MATCH',
      });
  });

  it('playing out of turn → NOT_YOUR_TURN', async () => {
    await expect(idle.client.play(idle.view!.game!.hand[0]!, 'left')).rejects.toMatchObject({
      code: 'NOT_YOUR_TURN',
    });
  });

  it('P9: a pass while holding a playable tile → PASS_NOT_ALLOWED (or, with no playable tile, a draw → DRAW_NOT_ALLOWED)', async () => {
    const canPlay = mine().legal.some((a) => a.type === 'play');
    if (canPlay) await expect(mover.client.pass()).rejects.toMatchObject({ code: 'PASS_NOT_ALLOWED' });
    await expect(mover.client.draw()).rejects.toMatchObject({
      code: canPlay ? 'DRAW_NOT_ALLOWED' : 'DRAW_NOT_ALLOWED',
    });
  });

  it('a non-host starting a round → NOT_HOST; the host starting a new match mid-match → MATCH_NOT_OVER', async () => {
    await expect(idle.client.startRound()).rejects.toMatchObject({ code: 'NOT_HOST' });
    await expect(host.client.newMatch()).rejects.toMatchObject({ code: 'MATCH_NOT_OVER' });
  });

  it('joining a table that does not exist → TABLE_NOT_FOUND', async () => {
    await expect(idle.client.join('ZZZZZZZZZZZZ')).rejects.toMatchObject({ code: 'TABLE_NOT_FOUND' });
    // The player is still bound to its own table.
    await idle.client.sync();
  });

  it.each([
    [
      'a forged token',
      () =>
        `${Buffer.from(JSON.stringify({ pid: randomUUID(), name: 'Eve', iat: 1, exp: 9e9 })).toString('base64url')}.forged`,
      'TOKEN_INVALID',
    ],
    [
      'an expired token',
      () =>
        signToken({ pid: randomUUID(), name: 'Old' }, system.env()['TOKEN_SECRET']!, Date.now() - 10_000, 1),
      'TOKEN_EXPIRED',
    ],
    ['garbage for a token', () => 'not-a-token', 'TOKEN_INVALID'],
  ])('%s → %s', async (_kind, token, code) => {
    const socket = await RawSocket.open(system.wsUrl);
    const error = await socket.errorFor(JSON.stringify({ type: 'hello', token: token() }));
    expect(error.code).toBe(code);
    socket.ws.close();
  });

  it('an intent before hello → UNAUTHENTICATED; an intent before joining → NOT_SEATED', async () => {
    const socket = await RawSocket.open(system.wsUrl);
    expect((await socket.errorFor(JSON.stringify({ type: 'pass', id: 'early' }))).code).toBe(
      'UNAUTHENTICATED',
    );
    const stranger = await TestPlayer.create(system, 'Stranger');
    socket.ws.send(JSON.stringify({ type: 'hello', token: stranger.token }));
    await socket.next((m) => m.type === 'welcome');
    expect((await socket.errorFor(JSON.stringify({ type: 'pass', id: 'unseated' }))).code).toBe('NOT_SEATED');
    socket.ws.close();
  });

  it.each([49, 75, 550, 'abc', 0, 100.5, null])('P19: a target of %p → INVALID_TARGET', async (target) => {
    const response = await fetch(`${system.httpUrl}/api/tables`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${host.token}` },
      body: JSON.stringify({ variant: 'partnership', target }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('INVALID_TARGET');
  });

  it('HTTP: no token → UNAUTHENTICATED, a body that is not JSON → BAD_JSON, a bad name → INVALID_MESSAGE', async () => {
    const post = (path: string, body: string, token?: string) =>
      fetch(`${system.httpUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body,
      });
    const codeOf = async (r: Response) => ((await r.json()) as { error: { code: string } }).error.code;
    expect(await codeOf(await post('/api/tables', '{"variant":"partnership"}'))).toBe('UNAUTHENTICATED');
    expect(await codeOf(await post('/api/identity', '{"name":'))).toBe('BAD_JSON');
    expect(await codeOf(await post('/api/identity', JSON.stringify({ name: '' })))).toBe('INVALID_MESSAGE');
  });

  it('a flood of messages → RATE_LIMITED, and the flooding socket cannot hurt anyone else', async () => {
    const socket = await RawSocket.open(system.wsUrl);
    socket.ws.send(JSON.stringify({ type: 'hello', token: idle.token }));
    await socket.next((m) => m.type === 'welcome');
    for (let i = 0; i < 300; i++) socket.ws.send(JSON.stringify({ type: 'ping', id: `p${i}` }));
    const limited = await socket.next((m) => m.type === 'error' && m.code === 'RATE_LIMITED');
    expect(limited).toMatchObject({ code: 'RATE_LIMITED' });
    socket.ws.close();
  });
});

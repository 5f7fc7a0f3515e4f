import WebSocket from 'ws';
import {
  DominoesClient,
  ProtocolError,
  redisNames,
  type IntentEnvelope,
  encodeSeatEvent,
  type SeatEvent,
  type SocketLike,
  type TableView,
} from '@dominoes/protocol';
import type { GatewayApp } from '../src/gateway-app';
import {
  FakeTableService,
  RawSocket,
  SHARDS,
  eventually,
  identity,
  sleep,
  startTestGateway,
  testConfig,
  uniquePrefix,
  viewFor,
  waitFor,
} from './support';

/**
 * Intents go out through the stream transport, replies come back to the right socket, and each
 * seat's views reach exactly the sockets bound to that seat.
 */
const prefix = uniquePrefix('gw_views');
const names = redisNames(prefix, SHARDS);
const TABLE = 'KQ7MZPR2T4VW';
const OTHER = 'ZX2345ZX2345';
let gateway: GatewayApp;
let fake: FakeTableService;
let base: string;
let wsUrl: string;
const players: Record<string, { token: string; playerId: string }> = {};
const clients: DominoesClient[] = [];

const factory = (url: string) => new WebSocket(url) as unknown as SocketLike;

async function connect(name: string): Promise<DominoesClient> {
  const client = new DominoesClient({ socketFactory: factory, replyTimeoutMs: 5000 });
  clients.push(client);
  await client.connect(wsUrl, players[name]!.token);
  return client;
}

const seatOf: Record<string, number> = {};
const received = (predicate: (e: IntentEnvelope) => boolean) => fake.received.filter(predicate);

function event(
  tableId: string,
  seat: number,
  playerId: string,
  version: number,
  cause: SeatEvent['cause'] = null,
): SeatEvent {
  return { tableId, seat, version, view: viewFor(tableId, seat, playerId), cause };
}

function collect(client: DominoesClient): { view: TableView; version: number }[] {
  const views: { view: TableView; version: number }[] = [];
  client.onView((view, version) => views.push({ view, version }));
  return views;
}

beforeAll(async () => {
  fake = new FakeTableService(prefix);
  await fake.start();
  fake.respond = (envelope) => {
    if (envelope.intent.kind === 'join') {
      if (envelope.tableId === 'ZZZZZZZZZZZZ') {
        return {
          ok: false,
          intentId: envelope.intentId,
          code: 'TABLE_NOT_FOUND',
          message: 'There is no table ZZZZZZ.',
        };
      }
      const seat = seatOf[envelope.player!.id] ?? 0;
      return { ok: true, intentId: envelope.intentId, version: 7, seat };
    }
    if (envelope.intent.kind === 'action' && envelope.intent.action.type === 'play') {
      return {
        ok: false,
        intentId: envelope.intentId,
        code: 'NOT_YOUR_TURN',
        message: 'It is seat 3\u2019s turn.',
      };
    }
    if (envelope.intent.kind === 'startRound') return null; // never answered
    return { ok: true, intentId: envelope.intentId, version: 8, seat: null };
  };
  gateway = await startTestGateway(testConfig(prefix, { REPLY_TIMEOUT_MS: '2000' }));
  base = `http://127.0.0.1:${gateway.port}`;
  wsUrl = `ws://127.0.0.1:${gateway.port}/ws`;
  for (const [i, name] of ['Ana', 'Bruno', 'Caio'].entries()) {
    players[name] = await identity(base, name);
    seatOf[players[name]!.playerId] = i;
  }
}, 30_000);

afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

afterAll(async () => {
  await gateway?.shutdown();
  await fake?.stop();
});

it('a join goes out as an envelope on the shard stream; the ack carries the version; a sync follows', async () => {
  const ana = await connect('Ana');
  const ack = await ana.request('join', { table: TABLE }, 'join-1');
  expect(ack).toEqual({ id: 'join-1', version: 7 });
  const [join] = received((e) => e.intent.kind === 'join');
  expect(join).toEqual({
    intentId: `${players['Ana']!.playerId}:join-1`,
    tableId: TABLE,
    player: { id: players['Ana']!.playerId, name: 'Ana' },
    connectionId: expect.stringMatching(/^gw-[0-9a-f]+:\d+$/),
    replyTo: expect.stringMatching(new RegExp(`^${prefix}:\\{gateway:gw-[^}]+\\}:replies$`)),
    sentAt: expect.any(Number),
    // REPLY_TIMEOUT_MS 2000 here: a player's intent expires 1000 ms after it was sent (issue 11).
    expiresAt: expect.any(Number),
    intent: { kind: 'join' },
  });
  expect(join!.expiresAt! - join!.sentAt).toBeGreaterThanOrEqual(1000);
  expect(join!.expiresAt! - join!.sentAt).toBeLessThan(1100);
  // The socket's view may have been published before it subscribed: the gateway asks for it again.
  const sync = await waitFor(() => received((e) => e.intent.kind === 'sync')[0], 2000, 'the sync after join');
  // Its view comes back in the reply, for this socket alone.
  expect(sync).toMatchObject({
    intentId: `${join!.connectionId}:sync:1`,
    tableId: TABLE,
    replyTo: join!.replyTo,
    connectionId: join!.connectionId,
  });
  fake.received.length = 0;
});

it('views go only to the sockets bound to their seat', async () => {
  const [ana, ana2, bruno] = [await connect('Ana'), await connect('Ana'), await connect('Bruno')];
  const caio = await connect('Caio'); // authenticated, never joins
  const seen = { ana: collect(ana), ana2: collect(ana2), bruno: collect(bruno), caio: collect(caio) };
  await Promise.all([ana.join(TABLE), ana2.join(TABLE), bruno.join(TABLE)]);
  // ONE subscription for the table: the two sockets of seat 0 and the one of seat 1 (decision 0037).
  expect(await fake.numsub(names.viewsChannel(TABLE))).toBe(1);

  const anaId = players['Ana']!.playerId;
  const brunoId = players['Bruno']!.playerId;
  await fake.publishSeatEvent(prefix, event(TABLE, 0, anaId, 10, { intentId: 'x', sentAt: Date.now() - 5 }));
  await fake.publishSeatEvent(prefix, event(TABLE, 1, brunoId, 10));
  await fake.publishSeatEvent(prefix, event(TABLE, 2, players['Caio']!.playerId, 10));
  await waitFor(
    () => seen.ana.length === 1 && seen.ana2.length === 1 && seen.bruno.length === 1,
    2000,
    'views',
  );
  await sleep(100);
  expect(seen.ana.map((v) => [v.view.you.seat, v.version])).toEqual([[0, 10]]);
  expect(seen.ana2.map((v) => [v.view.you.seat, v.version])).toEqual([[0, 10]]);
  expect(seen.bruno.map((v) => [v.view.you.seat, v.version])).toEqual([[1, 10]]);
  expect(seen.caio).toEqual([]);

  // Dropped: not JSON, not a SeatEvent, another table's seat-0 event on this table's channel, a
  // header without a player or cause, a header that is not JSON, a view made for another player, an
  // older version. Then a newer one arrives.
  const channel = names.viewsChannel(TABLE);
  await fake.publishRaw(channel, 'not json');
  await fake.publishRaw(channel, JSON.stringify({ tableId: TABLE }));
  await fake.publishRaw(channel, encodeSeatEvent(event(OTHER, 0, anaId, 11)));
  await fake.publishRaw(channel, `${JSON.stringify({ tableId: TABLE, seat: 0, version: 11 })}\n{}`);
  await fake.publishRaw(channel, 'not json\n{}');
  await fake.publishSeatEvent(prefix, { ...event(TABLE, 0, brunoId, 12) });
  await fake.publishSeatEvent(prefix, event(TABLE, 0, anaId, 9));
  await fake.publishSeatEvent(prefix, event(TABLE, 0, anaId, 13));
  await waitFor(() => seen.ana.length === 2, 2000, 'the newer view');
  await sleep(100);
  expect(seen.ana.map((v) => v.version)).toEqual([10, 13]);
  expect(seen.ana2.map((v) => v.version)).toEqual([10, 13]);
  expect(seen.bruno.map((v) => v.version)).toEqual([10]);
  // Equal versions are sent again (a sync answers with the current version).
  await fake.publishSeatEvent(prefix, event(TABLE, 0, anaId, 13));
  await waitFor(() => seen.ana.length === 3, 2000, 'the same version again');

  const metrics = await (await fetch(`http://127.0.0.1:${gateway.metricsPort}/metrics`)).text();
  expect(metrics).toMatch(/dominoes_action_to_view_seconds_count 2\b/); // one event with a cause, two sockets
  expect(metrics).toMatch(/dominoes_open_sockets 4\b/);
});

it('intents carry their fields; refusals come back as error frames with the table-service\u2019s code', async () => {
  const ana = await connect('Ana');
  await ana.join(TABLE);
  fake.received.length = 0;
  const refused = await ana.play([6, 6], 'L').catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(ProtocolError);
  expect((refused as ProtocolError).code).toBe('NOT_YOUR_TURN');
  await expect(ana.autoPass(true)).resolves.toMatchObject({ version: 8 });
  await expect(ana.pass()).resolves.toMatchObject({ version: 8 });
  // (The gateway's own sync after the join may land in between: it is not one of these.)
  expect(
    fake.received
      .filter((e) => e.connectionId !== null && !e.intentId.includes(':sync:'))
      .map((e) => e.intent),
  ).toEqual([
    { kind: 'action', action: { type: 'play', seat: 0, tile: [6, 6], end: 'L' } },
    { kind: 'autoPass', on: true },
    { kind: 'action', action: { type: 'pass', seat: 0 } },
  ]);
  expect(fake.received.every((e) => e.tableId === TABLE && e.player?.name === 'Ana')).toBe(true);
  // No reply within the timeout: UNAVAILABLE.
  const late = await ana.startRound().catch((e: unknown) => e);
  expect((late as ProtocolError).code).toBe('UNAVAILABLE');
});

it('a refused join leaves the socket bound where it was', async () => {
  const ana = await connect('Ana');
  await ana.join(TABLE);
  const refused = await ana.join('ZZZZZZZZZZZZ').catch((e: unknown) => e);
  expect((refused as ProtocolError).code).toBe('TABLE_NOT_FOUND');
  expect(await fake.numsub(names.viewsChannel(TABLE))).toBe(1);
  fake.received.length = 0;
  await ana.sync();
  expect(received((e) => e.intentId.startsWith(players['Ana']!.playerId)).map((e) => e.tableId)).toEqual([
    TABLE,
  ]);
  expect(received((e) => e.intent.kind === 'presence')).toEqual([]);
});

it('joining another table ends the old binding (presence false there) and binds the new seat', async () => {
  const ana = await connect('Ana');
  await ana.join(TABLE);
  const old = names.viewsChannel(TABLE);
  await waitFor(() => received((e) => e.intent.kind === 'sync' && e.tableId === TABLE).length > 0, 2000);
  fake.received.length = 0;
  await ana.join(OTHER);
  await waitFor(
    () => received((e) => e.intent.kind === 'presence').length > 0,
    2000,
    'presence on the old table',
  );
  const presence = received((e) => e.intent.kind === 'presence');
  expect(presence).toEqual([
    expect.objectContaining({
      tableId: TABLE,
      intentId: expect.stringMatching(/:left:1$/),
      intent: { kind: 'presence', connected: false },
      replyTo: null,
    }),
  ]);
  expect(await fake.numsub(old)).toBe(0);
  expect(await fake.numsub(names.viewsChannel(OTHER))).toBe(1);
  const views = collect(ana);
  await fake.publishSeatEvent(prefix, event(TABLE, 0, players['Ana']!.playerId, 50));
  await fake.publishSeatEvent(prefix, event(OTHER, 0, players['Ana']!.playerId, 2));
  await waitFor(() => views.length === 1, 2000);
  await sleep(50);
  expect(views.map((v) => [v.view.tableId, v.version])).toEqual([[OTHER, 2]]);
  // Intents now go to the new table.
  await ana.sync();
  expect(
    received((e) => e.intent.kind === 'sync' && e.intentId.startsWith(players['Ana']!.playerId)).map(
      (e) => e.tableId,
    ),
  ).toEqual([OTHER]);
});

it('closing a bound socket sends presence {connected:false} as `<connectionId>:closed` and unsubscribes', async () => {
  const bruno = await connect('Bruno');
  await bruno.join(TABLE);
  const channel = names.viewsChannel(TABLE);
  expect(await fake.numsub(channel)).toBe(1);
  const join = received((e) => e.intent.kind === 'join' && e.player?.name === 'Bruno').pop()!;
  fake.received.length = 0;
  bruno.close();
  const presence = await waitFor(() => received((e) => e.intent.kind === 'presence')[0], 2000, 'presence');
  expect(presence).toEqual({
    intentId: `${join.connectionId}:closed`,
    tableId: TABLE,
    player: { id: players['Bruno']!.playerId, name: 'Bruno' },
    connectionId: join.connectionId,
    replyTo: null,
    sentAt: expect.any(Number),
    intent: { kind: 'presence', connected: false },
  });
  await eventually(async () => (await fake.numsub(channel)) === 0, 2000, 'the unsubscribe');
});

it('after leave the socket is no longer bound: no views, NOT_SEATED', async () => {
  const caio = await connect('Caio');
  await caio.join(TABLE);
  await caio.leave();
  const channel = names.viewsChannel(TABLE);
  expect(await fake.numsub(channel)).toBe(0);
  const refused = await caio.pass().catch((e: unknown) => e);
  expect((refused as ProtocolError).code).toBe('NOT_SEATED');
});

it('watches sent faster than a subscription: each table gets its watch before its unwatch, so the table-service counts the socket at the last table only; replaced watches are answered NOT_ALLOWED_NOW', async () => {
  const raw = await RawSocket.open(wsUrl);
  await raw.hello(players['Bruno']!.token);
  fake.received.length = 0;
  // One burst: the gateway handles all four before its first Redis subscription answers.
  const asks = [TABLE, OTHER, TABLE, OTHER].map((table, i) => ({ type: 'watch', id: `burst-${i}`, table }));
  for (const ask of asks) raw.send(ask);
  await eventually(
    async () => asks.every((a) => raw.frames.some((f) => f['id'] === a.id)),
    5000,
    'an answer to every watch',
  );
  expect(raw.frames.find((f) => f['id'] === 'burst-3')).toMatchObject({ type: 'ack' });
  for (const id of ['burst-0', 'burst-1', 'burst-2'])
    expect(raw.frames.find((f) => f['id'] === id)).toMatchObject({ type: 'error', code: 'NOT_ALLOWED_NOW' });
  await sleep(200); // the last unwatches are dispatched without a reply
  const watches = received((e) => e.intent.kind === 'watch');
  const last = (table: string) =>
    watches.filter((e) => e.tableId === table).map((e) => (e.intent as { on: boolean }).on);
  // Per table, an unwatch never comes first and the table-service's last word is the socket's state.
  for (const table of [TABLE, OTHER]) {
    const ons = last(table);
    expect(ons[0] ?? true).toBe(true);
    for (let i = 1; i < ons.length; i += 1) expect(ons[i]).not.toBe(ons[i - 1]);
  }
  expect(last(TABLE).at(-1) ?? false).toBe(false);
  expect(last(OTHER).at(-1)).toBe(true);
  raw.ws.close();
});

it('shutdown tells every socket to reconnect, closes them with 1012, and sends their presence', async () => {
  const other = await startTestGateway(testConfig(prefix, { GATEWAY_ID: 'gw-draining' }));
  const raw = await RawSocket.open(`ws://127.0.0.1:${other.port}/ws`);
  await raw.hello(players['Ana']!.token);
  raw.send({ type: 'join', id: 'j-drain', table: TABLE });
  await raw.next((f) => f['type'] === 'ack');
  fake.received.length = 0;
  await other.shutdown();
  const closed = await raw.closed;
  expect(closed.code).toBe(1012);
  expect(raw.frames).toContainEqual({ type: 'reconnect', afterMs: 1000 });
  expect(
    received((e) => e.intent.kind === 'presence' && /^gw-draining:\d+:closed$/.test(e.intentId)),
  ).toHaveLength(1);
  // It accepts no new sockets.
  await expect(RawSocket.open(`ws://127.0.0.1:${other.port}/ws`)).rejects.toThrow();
});

import { readBaseConfig, ShardedStreamsClient } from '@dominoes/platform';
import { redisNames, type LobbyTable, type LobbyUpdate } from '@dominoes/protocol';
import { lobbyTable } from '../../../libs/protocol/test/support/lobby-table';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { ApiError } from '../src/http/errors';
import { IntentService } from '../src/intents/intent.service';
import { LOBBY_SNAPSHOT_INTERVAL_MS, LobbyHub, type OpenForSocket } from '../src/lobby/lobby-hub';
import { LobbyReader } from '../src/lobby/lobby-reader';
import { QuickPlay } from '../src/lobby/quick-play';
import { newTableCode } from '../src/lobby/table-opener';
import { GatewayMetrics } from '../src/metrics';
import { TableReader } from '../src/tables/table-reader';
import { SeatRouter } from '../src/ws/seat-router';
import { REDIS_URL, uniquePrefix, waitFor } from './support';
import { fakeConnection, RedisConnections, TestClock } from './unit-fakes';

/**
 * The lobby hub on its real collaborators: a seat router on real Redis (the lobby channel), the
 * lobby reader and quick play on a real Postgres database of this suite (migrated, no tables in it:
 * the lobby it reads is empty, and quick play opens a new table), quick play's intent service on the
 * real sharded-streams client (never asked here: with no table to join, nothing is sent).
 */
const redis = new RedisConnections();
let stores: TestStores;
let reader: LobbyReader;
let tables: TableReader;
let intentsClient: ShardedStreamsClient;
const EMPTY_LOBBY = { tables: [], counts: { waiting: 0, playing: 0 }, yours: [] };

beforeAll(async () => {
  stores = await createTestStores('lobby_hub');
  const { shardMap } = readBaseConfig({ DATABASE_URL: stores.databaseUrl });
  reader = new LobbyReader(shardMap);
  tables = new TableReader(shardMap);
  intentsClient = new ShardedStreamsClient({
    redisUrl: REDIS_URL,
    prefix: stores.redisPrefix,
    shards: 4,
    replyChannel: `${stores.redisPrefix}:replies`,
    replyTimeoutMs: 2_000,
    connectionName: 'lobby-hub-test',
  });
});
afterAll(async () => {
  await redis.closeAll();
  await intentsClient?.close();
  await tables?.close();
  await reader?.onApplicationShutdown();
  await stores?.dispose();
});

function hubRig(options: { reader?: LobbyReader; quick?: boolean; openFor?: OpenForSocket } = {}) {
  const names = redisNames(uniquePrefix('lobby_hub'), 4);
  const clock = new TestClock();
  const { logger, lines } = recordingLogger();
  const subscriber = redis.open('lobby-hub-test:sub');
  const publisher = redis.open('lobby-hub-test:pub');
  const router = new SeatRouter(subscriber, names, clock, new GatewayMetrics(false), logger);
  const intents = new IntentService(intentsClient, new GatewayMetrics(false), logger, tables);
  const quick = options.quick === false ? null : new QuickPlay(intents, reader, clock, logger);
  const hub = new LobbyHub(
    router,
    names,
    options.reader ?? reader,
    clock,
    logger,
    quick,
    options.openFor ?? null,
  );
  /** An update as the table-services publish it, delivered as Redis delivers it (synchronously here). */
  const deliver = (update: unknown) => subscriber.emit('message', names.lobbyChannel, JSON.stringify(update));
  return { names, clock, lines, subscriber, publisher, router, hub, deliver };
}

const update = (tableId: string, version: number, over: Partial<LobbyTable> = {}): LobbyUpdate => ({
  tableId,
  version,
  table: lobbyTable({ tableId, version, ...over }),
});

const player = { id: '00000000-0000-4000-8000-000000000001', name: 'Ann' };

describe('LobbyHub: the lobby frames of a socket (real Redis, real Postgres)', () => {
  it('a subscribing socket gets the whole lobby read from Postgres with the server time, then an ack of its request', async () => {
    const { hub, clock } = hubRig();
    const { conn, socket } = fakeConnection('c1', player);
    clock.t = 5_000_000;
    await hub.subscribe(conn, 'l1', true);
    expect(socket.frames()).toEqual([
      { type: 'lobby', ...EMPTY_LOBBY, serverTime: 5_000_000 },
      { type: 'ack', id: 'l1', version: null },
    ]);
    expect(hub.size).toBe(1);
  });

  it('refuses a socket that has not said hello (UNAUTHENTICATED), on and off', async () => {
    const { hub } = hubRig();
    const { conn, socket } = fakeConnection('c1', null);
    await hub.subscribe(conn, 'l1', true);
    await hub.subscribe(conn, 'l2', false);
    expect(socket.frames()).toEqual(
      ['l1', 'l2'].map((id) => ({
        type: 'error',
        id,
        code: 'UNAUTHENTICATED',
        message: 'Say hello with your token first.',
      })),
    );
    expect(hub.size).toBe(0);
  });

  it('passes every lobby update published on the lobby channel to each subscribed socket, as a lobbyUpdate frame', async () => {
    const { hub, publisher, names } = hubRig();
    await hub.start();
    const a = fakeConnection('a', player);
    const b = fakeConnection('b', player);
    await hub.subscribe(a.conn, 'la', true);
    await hub.subscribe(b.conn, 'lb', true);
    const table = newTableCode();
    await publisher.publish(names.lobbyChannel, JSON.stringify(update(table, 3)));
    await publisher.publish(names.lobbyChannel, JSON.stringify({ tableId: table, version: 4, table: null }));
    await waitFor(() => a.socket.sent.length === 4 && b.socket.sent.length === 4, 1000, 'two updates each');
    expect(a.socket.frames().slice(2)).toEqual([
      { type: 'lobbyUpdate', ...update(table, 3) },
      { type: 'lobbyUpdate', tableId: table, version: 4, table: null },
    ]);
    expect(b.socket.sent.slice(2)).toEqual(a.socket.sent.slice(2));
  });

  it('drops a malformed update, and one that lists a private table, with a warning', async () => {
    const { hub, deliver, lines, names } = hubRig();
    await hub.start();
    const { conn, socket } = fakeConnection('a', player);
    await hub.subscribe(conn, 'l', true);
    deliver({ tableId: 'nope' });
    deliver(update(newTableCode(), 1, { public: false }));
    const fine = update(newTableCode(), 2);
    deliver(fine);
    expect(socket.frames().slice(2)).toEqual([{ type: 'lobbyUpdate', ...fine }]);
    const warned = lines.filter((l) => l.msg === 'dropped an invalid lobby update');
    expect(warned).toHaveLength(2);
    expect(warned[0]).toMatchObject({ level: 40, channel: names.lobbyChannel });
  });

  it('an update with no subscriber is not even read (no warning for a bad one)', async () => {
    const { hub, deliver, lines } = hubRig();
    await hub.start();
    deliver({ tableId: 'nope' });
    expect(lines).toEqual([]);
  });

  it('updates that come while the snapshot is read are sent after it, in order, then the ack', async () => {
    const { hub, deliver } = hubRig();
    await hub.start();
    const { conn, socket } = fakeConnection('a', player);
    const [t1, t2] = [newTableCode(), newTableCode()];
    const subscribing = hub.subscribe(conn, 'l', true);
    deliver(update(t1, 1));
    deliver(update(t2, 1));
    expect(socket.sent).toEqual([]);
    await subscribing;
    expect(socket.frames().map((f) => f['type'])).toEqual(['lobby', 'lobbyUpdate', 'lobbyUpdate', 'ack']);
    expect(
      socket
        .frames()
        .slice(1, 3)
        .map((f) => f['tableId']),
    ).toEqual([t1, t2]);
    // Afterwards, updates go out at once.
    deliver(update(t1, 2));
    expect(socket.frames().at(-1)).toMatchObject({ type: 'lobbyUpdate', tableId: t1, version: 2 });
  });

  it('holds at most 1,000 updates for a socket while its snapshot is read; the rest are dropped', async () => {
    const { hub, deliver } = hubRig();
    await hub.start();
    const { conn, socket } = fakeConnection('a', player);
    const table = newTableCode();
    const subscribing = hub.subscribe(conn, 'l', true);
    for (let version = 1; version <= 1_001; version++) deliver(update(table, version));
    await subscribing;
    const updates = socket.frames().filter((f) => f['type'] === 'lobbyUpdate');
    expect(updates).toHaveLength(1_000);
    expect(updates.at(-1)).toMatchObject({ version: 1_000 });
  });

  it('asked again within a second, a subscribed socket only gets an ack; after a second, the whole lobby again', async () => {
    const { hub, clock } = hubRig();
    const { conn, socket } = fakeConnection('a', player);
    await hub.subscribe(conn, 'l1', true);
    clock.t += LOBBY_SNAPSHOT_INTERVAL_MS - 1;
    await hub.subscribe(conn, 'l2', true);
    expect(socket.frames().slice(2)).toEqual([{ type: 'ack', id: 'l2', version: null }]);
    clock.t += 1;
    await hub.subscribe(conn, 'l3', true);
    expect(
      socket
        .frames()
        .slice(3)
        .map((f) => f['type']),
    ).toEqual(['lobby', 'ack']);
    expect(LOBBY_SNAPSHOT_INTERVAL_MS).toBe(1_000);
  });

  it('asked again while its snapshot is still being read, a socket gets an ack for the second request and one lobby', async () => {
    const { hub, clock } = hubRig();
    const { conn, socket } = fakeConnection('a', player);
    const first = hub.subscribe(conn, 'l1', true);
    clock.t += 10 * LOBBY_SNAPSHOT_INTERVAL_MS;
    await hub.subscribe(conn, 'l2', true);
    await first;
    expect(socket.frames()).toEqual([
      { type: 'ack', id: 'l2', version: null },
      { type: 'lobby', ...EMPTY_LOBBY, serverTime: clock.t },
      { type: 'ack', id: 'l1', version: null },
    ]);
  });

  it('off: acked, and no more updates; drop (the socket closed) the same without a frame', async () => {
    const { hub, deliver } = hubRig();
    await hub.start();
    const a = fakeConnection('a', player);
    const b = fakeConnection('b', player);
    await hub.subscribe(a.conn, 'l1', true);
    await hub.subscribe(b.conn, 'l2', true);
    await hub.subscribe(a.conn, 'l3', false);
    hub.drop(b.conn);
    expect(hub.size).toBe(0);
    deliver(update(newTableCode(), 1));
    expect(a.socket.frames().slice(2)).toEqual([{ type: 'ack', id: 'l3', version: null }]);
    expect(b.socket.sent).toHaveLength(2);
  });

  it('a socket that unsubscribed, or closed, while its snapshot was read gets no lobby (the newer request answered)', async () => {
    const { hub } = hubRig();
    const off = fakeConnection('a', player);
    const subscribing = hub.subscribe(off.conn, 'l1', true);
    await hub.subscribe(off.conn, 'l2', false);
    await subscribing;
    expect(off.socket.frames()).toEqual([{ type: 'ack', id: 'l2', version: null }]);
    const closed = fakeConnection('b', player);
    const pending = hub.subscribe(closed.conn, 'l3', true);
    closed.conn.closed = true;
    await pending;
    expect(closed.socket.sent).toEqual([]);
  });

  it('a lobby that cannot be read (Postgres away) is answered UNAVAILABLE, logged, and the socket is not subscribed', async () => {
    const url = new URL(stores.databaseUrl);
    url.pathname = '/dominoes_test_no_such_database';
    const broken = new LobbyReader(readBaseConfig({ DATABASE_URL: url.toString() }).shardMap);
    try {
      const { hub, deliver, lines } = hubRig({ reader: broken });
      await hub.start();
      const { conn, socket } = fakeConnection('a', player);
      await hub.subscribe(conn, 'l1', true);
      expect(socket.frames()).toEqual([
        {
          type: 'error',
          id: 'l1',
          code: 'UNAVAILABLE',
          message: 'The lobby cannot be read right now; try again.',
        },
      ]);
      expect(hub.size).toBe(0);
      expect(lines).toEqual([
        expect.objectContaining({ level: 40, msg: 'lobby: Postgres failed', conn: 'a' }),
      ]);
      deliver(update(newTableCode(), 1));
      expect(socket.sent).toHaveLength(1);
    } finally {
      await broken.onApplicationShutdown();
    }
  });

  it('start listens on the lobby channel (before it, an update reaches no socket)', async () => {
    const { hub, publisher, names } = hubRig();
    const { conn, socket } = fakeConnection('a', player);
    await hub.subscribe(conn, 'l', true);
    expect(await publisher.publish(names.lobbyChannel, JSON.stringify(update(newTableCode(), 1)))).toBe(0);
    await hub.start();
    expect(await publisher.publish(names.lobbyChannel, JSON.stringify(update(newTableCode(), 2)))).toBe(1);
    await waitFor(() => socket.sent.length === 3, 1000, 'the update after start');
  });
});

describe('LobbyHub.quickPlay: quick play on a socket (real quick play on an empty Postgres)', () => {
  it("seats the player at a new public table opened for this socket, with the rules' defaults filled in", async () => {
    const opened: { conn: string; player: string; config: unknown }[] = [];
    const table = newTableCode();
    const openFor: OpenForSocket = (conn, who) => async (config) => {
      opened.push({ conn: conn.id, player: who.id, config });
      return { tableId: table };
    };
    const { hub } = hubRig({ openFor });
    const { conn, socket } = fakeConnection('qp-1', player);
    expect(await hub.quickPlay(conn, { type: 'quickPlay', id: 'q1', variant: 'draw' })).toBe(table);
    expect(
      await hub.quickPlay(conn, { type: 'quickPlay', id: 'q2', variant: 'draw', target: 150, seats: 3 }),
    ).toBe(table);
    expect(opened).toEqual([
      { conn: 'qp-1', player: player.id, config: { variant: 'draw', seats: 4, target: 100, public: true } },
      { conn: 'qp-1', player: player.id, config: { variant: 'draw', seats: 3, target: 150, public: true } },
    ]);
    expect(socket.sent).toEqual([]);
  });

  it('a refusal of quick play (the rules, or the table limit) is an error frame with its code and message, and no table', async () => {
    const openFor: OpenForSocket = () => async () => {
      throw new ApiError(429, 'TOO_MANY_TABLES', 'You have too many open tables.');
    };
    const { hub } = hubRig({ openFor });
    const { conn, socket } = fakeConnection('qp-2', player);
    expect(await hub.quickPlay(conn, { type: 'quickPlay', id: 'q1', variant: 'draw' })).toBeNull();
    expect(await hub.quickPlay(conn, { type: 'quickPlay', id: 'q2', variant: 'draw', seats: 9 })).toBeNull();
    const frames = socket.frames();
    expect(frames[0]).toEqual({
      type: 'error',
      id: 'q1',
      code: 'TOO_MANY_TABLES',
      message: 'You have too many open tables.',
    });
    expect(frames[1]).toMatchObject({ type: 'error', id: 'q2', code: 'INVALID_SEAT_COUNT' });
  });

  it('refuses a socket without hello (UNAUTHENTICATED) and a gateway without quick play (UNAVAILABLE)', async () => {
    const openFor: OpenForSocket = () => async () => ({ tableId: newTableCode() });
    const anonymous = fakeConnection('x', null);
    expect(
      await hubRig({ openFor }).hub.quickPlay(anonymous.conn, {
        type: 'quickPlay',
        id: 'q',
        variant: 'draw',
      }),
    ).toBeNull();
    expect(anonymous.socket.frames()).toEqual([
      { type: 'error', id: 'q', code: 'UNAUTHENTICATED', message: 'Say hello with your token first.' },
    ]);
    const unavailable = {
      type: 'error',
      id: 'q',
      code: 'UNAVAILABLE',
      message: 'Quick play is not available here.',
    };
    for (const rig of [hubRig({ quick: false, openFor }), hubRig()]) {
      const { conn, socket } = fakeConnection('y', player);
      expect(await rig.hub.quickPlay(conn, { type: 'quickPlay', id: 'q', variant: 'draw' })).toBeNull();
      expect(socket.frames()).toEqual([unavailable]);
    }
  });
});

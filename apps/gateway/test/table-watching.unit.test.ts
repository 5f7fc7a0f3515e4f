import { readBaseConfig, ShardedStreamsClient } from '@dominoes/platform';
import { redisNames, type IntentEnvelope, type IntentReply } from '@dominoes/protocol';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { IntentService } from '../src/intents/intent.service';
import { newTableCode } from '../src/lobby/table-opener';
import { GatewayMetrics } from '../src/metrics';
import { TableReader } from '../src/tables/table-reader';
import { SeatRouter } from '../src/ws/seat-router';
import { TableWatching, type EnvelopeOf } from '../src/ws/table-watching';
import { eventually, FakeTableService, REDIS_URL, SHARDS, uniquePrefix, waitFor } from './support';
import { fakeConnection, RedisConnections, TestClock } from './unit-fakes';

/**
 * TableWatching (decision 0018) on its real collaborators: a seat router on real Redis pub/sub (the
 * spectator channels), an intent service on the real sharded-streams client, and a stand-in
 * table-service on the far side of the streams that answers each `watch` as the real one does (the
 * first view in the reply, or a refusal), or holds its answer back for the test to send later.
 * Sockets are fake `ws` sockets; the table reader is never asked (every intent is answered in time).
 */
const redis = new RedisConnections();
const prefix = uniquePrefix('table_watching');
const names = redisNames(prefix, SHARDS);
/** The reply channel of this suite's intent client (the stand-in table-service's late answers go to it). */
const REPLIES = `${prefix}:{gateway:watching}:replies`;
let tableService: FakeTableService;
let client: ShardedStreamsClient;
let tables: TableReader;

beforeAll(async () => {
  tableService = new FakeTableService(prefix, REDIS_URL, SHARDS);
  await tableService.start();
  client = new ShardedStreamsClient({
    redisUrl: REDIS_URL,
    prefix,
    shards: SHARDS,
    replyChannel: REPLIES,
    replyTimeoutMs: 2_000,
    connectionName: 'table-watching-test',
  });
  const unused = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  tables = new TableReader(readBaseConfig({ DATABASE_URL: unused }).shardMap);
});
afterAll(async () => {
  await client?.close();
  await tableService?.stop();
  await tables?.close();
  await redis.closeAll();
});

const player = { id: '00000000-0000-4000-8000-0000000000c1', name: 'Cleo' };
/** A spectator view as the table-service sends it (the gateway passes it on as text). */
const viewOf = (tableId: string, watchers = 1) => JSON.stringify({ tableId, watchers });
/** A spectator event's text: its header line, then the view. */
const eventText = (tableId: string, version: number, headerTable = tableId) =>
  `${JSON.stringify({ tableId: headerTable, version })}\n${viewOf(tableId)}`;
const frameOf = (version: number, serverTime: number, tableId: string) =>
  JSON.parse(
    `{"type":"watchView","version":${version},"serverTime":${serverTime},"view":${viewOf(tableId)}}`,
  );

/** The table-service's answer to a watch: the table at `version`, its view in the reply. */
const accept =
  (version: number) =>
  (e: IntentEnvelope): IntentReply =>
    e.intent.kind === 'watch' && e.intent.on
      ? { ok: true, intentId: e.intentId, version, seat: null, view: viewOf(e.tableId) }
      : { ok: true, intentId: e.intentId, version: null, seat: null };

function watchRig() {
  const clock = new TestClock(7_000_000);
  const { logger, lines } = recordingLogger();
  const router = new SeatRouter(
    redis.open('table-watching:sub'),
    names,
    clock,
    new GatewayMetrics(false),
    logger,
  );
  const intents = new IntentService(client, new GatewayMetrics(false), logger, tables);
  const envelope: EnvelopeOf = (conn, intentId, tableId, intent, withReply) => ({
    intentId,
    tableId,
    player: conn.player,
    connectionId: conn.id,
    replyTo: withReply ? intents.replyChannel : null,
    sentAt: clock.now(),
    intent,
  });
  const watching = new TableWatching(router, intents, envelope, clock, logger);
  const publisher = redis.open('table-watching:pub');
  const publish = (tableId: string, text: string) => publisher.publish(names.spectatorChannel(tableId), text);
  const subscribers = async (tableId: string) =>
    ((await publisher.pubsub('NUMSUB', names.spectatorChannel(tableId))) as [string, number])[1];
  /** What the table-service received for `tableId`: each watch's id and whether it was on. */
  const asked = (tableId: string) =>
    tableService.received
      .filter((e) => e.tableId === tableId && e.intent.kind === 'watch')
      .map((e) => ({ id: e.intentId, on: (e.intent as { on: boolean }).on, replyTo: e.replyTo }));
  return { clock, lines, router, intents, watching, publish, subscribers, asked };
}

describe('TableWatching: a watch (real Redis pub/sub and streams)', () => {
  it("asks the table-service to count the socket, sends the reply's view as a watchView frame with the server time, then acks with its version", async () => {
    const { watching, asked, clock } = watchRig();
    tableService.respond = accept(5);
    const table = newTableCode();
    const { conn, socket } = fakeConnection('gw-w:1', player);
    clock.t = 7_123_456;
    await watching.watch(conn, 'w1', table, false);
    expect(socket.frames()).toEqual([frameOf(5, 7_123_456, table), { type: 'ack', id: 'w1', version: 5 }]);
    expect(asked(table)).toEqual([{ id: 'gw-w:1:watch:1', on: true, replyTo: client.replyChannel }]);
    const sent = tableService.received.find((e) => e.intentId === 'gw-w:1:watch:1')!;
    expect(sent).toMatchObject({ player, connectionId: 'gw-w:1', sentAt: 7_123_456 });
    expect(conn.watching).toEqual({ tableId: table, n: 1, asked: true });
    expect(conn.lastVersion).toBe(5);
    expect(watching.watchingSockets(table)).toEqual([conn]);
    expect(watching.tables).toBe(1);
  });

  it('a reply with no view, or no version, is acked without a view frame', async () => {
    const { watching } = watchRig();
    const a = fakeConnection('gw-w:2', player);
    tableService.respond = (e) => ({ ok: true, intentId: e.intentId, version: 3, seat: null });
    const first = newTableCode();
    await watching.watch(a.conn, 'w-noview', first);
    tableService.respond = (e) => ({ ok: true, intentId: e.intentId, version: null, seat: null, view: '{}' });
    const second = newTableCode();
    await watching.watch(a.conn, 'w-noversion', second);
    expect(a.socket.frames()).toEqual([
      { type: 'ack', id: 'w-noview', version: 3 },
      { type: 'ack', id: 'w-noversion', version: null },
    ]);
  });

  it('subscribes before asking: a change published once the table-service has the watch reaches the socket, and the older reply view is not sent after it', async () => {
    const { watching, asked, publish } = watchRig();
    const table = newTableCode();
    tableService.respond = (e) => (e.tableId === table ? null : accept(1)(e));
    const { conn, socket } = fakeConnection('gw-w:3', player);
    const pending = watching.watch(conn, 'w1', table);
    await waitFor(() => asked(table).length === 1, 1000, 'the watch asked');
    await publish(table, eventText(table, 6));
    await waitFor(() => socket.sent.length === 1, 1000, 'the change');
    const reply: IntentReply = {
      ok: true,
      intentId: 'gw-w:3:watch:1',
      version: 5,
      seat: null,
      view: viewOf(table),
    };
    await tableService.publishRaw(REPLIES, JSON.stringify(reply));
    await pending;
    expect(socket.frames()).toEqual([frameOf(6, 7_000_000, table), { type: 'ack', id: 'w1', version: 5 }]);
    expect(conn.lastVersion).toBe(6);
  });

  it('a refused watch: the error with its code and message, the socket watches nothing and the channel is left', async () => {
    const { watching, subscribers } = watchRig();
    const table = newTableCode();
    tableService.respond = (e) => ({
      ok: false,
      intentId: e.intentId,
      code: 'TOO_MANY_WATCHERS',
      message: 'This table has as many watchers as it can take.',
    });
    const { conn, socket } = fakeConnection('gw-w:4', player);
    await watching.watch(conn, 'w1', table);
    expect(socket.frames()).toEqual([
      {
        type: 'error',
        id: 'w1',
        code: 'TOO_MANY_WATCHERS',
        message: 'This table has as many watchers as it can take.',
      },
    ]);
    expect(conn.watching).toBeNull();
    expect(watching.tables).toBe(0);
    expect(watching.watchingSockets(table)).toEqual([]);
    await eventually(async () => (await subscribers(table)) === 0, 2000, 'the spectator channel left');
  });

  it('a refused watch of a table another socket watches keeps the channel for that socket', async () => {
    const { watching, subscribers, publish } = watchRig();
    const table = newTableCode();
    const a = fakeConnection('gw-w:5', player);
    const b = fakeConnection('gw-w:6', player);
    tableService.respond = accept(2);
    await watching.watch(a.conn, 'wa', table);
    tableService.respond = (e) => ({
      ok: false,
      intentId: e.intentId,
      code: 'TABLE_NOT_FOUND',
      message: 'x',
    });
    await watching.watch(b.conn, 'wb', table);
    expect(b.socket.frames()).toEqual([{ type: 'error', id: 'wb', code: 'TABLE_NOT_FOUND', message: 'x' }]);
    expect(watching.tables).toBe(1);
    expect(await subscribers(table)).toBe(1);
    await publish(table, eventText(table, 3));
    await waitFor(() => a.socket.sent.length === 3, 1000, 'the change for the socket still watching');
    expect(b.socket.sent).toHaveLength(1);
  });
});

describe('TableWatching: the views of a watched table', () => {
  it('passes each change to every socket watching it, the same frame text, skipping versions below what a socket has', async () => {
    const { watching, publish, clock } = watchRig();
    const table = newTableCode();
    tableService.respond = accept(4);
    const a = fakeConnection('gw-v:1', player);
    const b = fakeConnection('gw-v:2', player);
    await watching.watch(a.conn, 'wa', table);
    await watching.watch(b.conn, 'wb', table);
    clock.t = 7_500_000;
    await publish(table, eventText(table, 3)); // older than the first view: skipped
    await publish(table, eventText(table, 4)); // the same version: sent (the count of watchers changed)
    await publish(table, eventText(table, 9));
    await waitFor(() => a.socket.sent.length === 4 && b.socket.sent.length === 4, 1000, 'two views each');
    expect(a.socket.frames().slice(2)).toEqual([frameOf(4, 7_500_000, table), frameOf(9, 7_500_000, table)]);
    expect(b.socket.sent.slice(2)).toEqual(a.socket.sent.slice(2));
    expect(a.conn.lastVersion).toBe(9);
    expect(b.conn.lastVersion).toBe(9);
  });

  it('drops, with a warning, a malformed event and one whose header names another table', async () => {
    const { watching, publish, lines } = watchRig();
    const table = newTableCode();
    tableService.respond = accept(1);
    const { conn, socket } = fakeConnection('gw-v:3', player);
    await watching.watch(conn, 'w', table);
    await publish(table, 'not an event');
    await publish(table, eventText(table, 5, 'ANOTHERTABLE'));
    await publish(table, eventText(table, 2));
    await waitFor(() => socket.sent.length === 3, 1000, 'the good event');
    expect(socket.frames()[2]).toEqual(frameOf(2, 7_000_000, table));
    const dropped = lines.filter((l) => l.msg === 'dropped a spectator event');
    expect(dropped).toHaveLength(2);
    expect(dropped[0]).toMatchObject({ level: 40, tableId: table, reason: 'no header line' });
    expect(dropped[1]).toMatchObject({ level: 40, tableId: table, reason: 'wrong table' });
  });

  it("a socket whose watch moved to another table (a sync of another table) is no longer one of the first table's watchers", async () => {
    const { watching, publish } = watchRig();
    const first = newTableCode();
    const second = newTableCode();
    tableService.respond = accept(1);
    const other = fakeConnection('gw-v:4', player);
    const { conn, socket } = fakeConnection('gw-v:5', player);
    await watching.watch(other.conn, 'wo', first);
    await watching.watch(conn, 'w', first);
    await watching.watch(conn, 's', second, true);
    expect(watching.watchingSockets(first)).toEqual([other.conn]);
    expect(watching.watchingSockets(second)).toEqual([conn]);
    await publish(first, eventText(first, 50));
    await waitFor(() => other.socket.sent.length === 3, 1000, 'the change for the other socket');
    // Its watch's view and ack, then the sync's: nothing of the first table after the move.
    expect(socket.frames().map((f) => f['version'])).toEqual([1, 1, 1, 1]);
  });
});

describe('TableWatching: a new watch, a sync, an unwatch', () => {
  it('a new watch ends the previous one at once: an unwatch of it (no reply asked), its channel left, the new table watched', async () => {
    const { watching, asked, subscribers } = watchRig();
    const first = newTableCode();
    const second = newTableCode();
    tableService.respond = accept(2);
    const { conn, socket } = fakeConnection('gw-n:1', player);
    await watching.watch(conn, 'w1', first);
    await watching.watch(conn, 'w2', second);
    await waitFor(() => asked(first).length === 2, 1000, 'the unwatch');
    expect(asked(first)).toEqual([
      { id: 'gw-n:1:watch:1', on: true, replyTo: client.replyChannel },
      { id: 'gw-n:1:unwatch:1', on: false, replyTo: null },
    ]);
    expect(asked(second)).toEqual([{ id: 'gw-n:1:watch:2', on: true, replyTo: client.replyChannel }]);
    expect(socket.frames().filter((f) => f['type'] === 'ack')).toHaveLength(2);
    expect(watching.watchingSockets(first)).toEqual([]);
    expect(watching.tables).toBe(1);
    await eventually(async () => (await subscribers(first)) === 0, 2000, 'the first channel left');
    expect(await subscribers(second)).toBe(1);
  });

  it('a new watch starts from no version: the view of a table at a lower version than the last one is sent', async () => {
    const { watching } = watchRig();
    const { conn, socket } = fakeConnection('gw-n:2', player);
    tableService.respond = accept(30);
    await watching.watch(conn, 'w1', newTableCode());
    tableService.respond = accept(2);
    const second = newTableCode();
    await watching.watch(conn, 'w2', second);
    expect(socket.frames().slice(2)).toEqual([
      frameOf(2, 7_000_000, second),
      { type: 'ack', id: 'w2', version: 2 },
    ]);
  });

  it("a socket that watched nothing starts from no version too: a seat's later views do not hide a table's first view (version 0)", async () => {
    const { watching } = watchRig();
    const { conn, socket } = fakeConnection('gw-n:6', player);
    conn.lastVersion = 40; // the last view of the seat it left
    tableService.respond = accept(0);
    const table = newTableCode();
    await watching.watch(conn, 'w', table);
    expect(socket.frames()).toEqual([frameOf(0, 7_000_000, table), { type: 'ack', id: 'w', version: 0 }]);
    expect(conn.lastVersion).toBe(0);
  });

  it('watches replaced before they were asked: each answered NOT_ALLOWED_NOW, never asked of the table-service, no unwatch sent for them', async () => {
    const { watching, asked } = watchRig();
    tableService.respond = accept(1);
    const tablesOf = [newTableCode(), newTableCode(), newTableCode()];
    const { conn, socket } = fakeConnection('gw-n:3', player);
    // One burst: each watch comes before the previous one's subscription is confirmed.
    await Promise.all(tablesOf.map((table, i) => watching.watch(conn, `b${i}`, table)));
    expect(socket.frames().filter((f) => f['type'] === 'error')).toEqual(
      ['b0', 'b1'].map((id) => ({
        type: 'error',
        id,
        code: 'NOT_ALLOWED_NOW',
        message: 'A later watch, unwatch or join of this socket replaced this watch.',
      })),
    );
    expect(socket.frames().at(-1)).toEqual({ type: 'ack', id: 'b2', version: 1 });
    await watching.watch(conn, 'after', tablesOf[2]!, true);
    expect(asked(tablesOf[0]!)).toEqual([]);
    expect(asked(tablesOf[1]!)).toEqual([]);
    expect(asked(tablesOf[2]!).map((a) => a.id)).toEqual(['gw-n:3:watch:3', 'gw-n:3:watch:4']);
    expect(watching.tables).toBe(1);
  });

  it('a watch replaced while its reply is awaited: NOT_ALLOWED_NOW once the reply comes, and the unwatch of it is sent', async () => {
    const { watching, asked } = watchRig();
    const first = newTableCode();
    const second = newTableCode();
    tableService.respond = (e) => (e.tableId === first ? null : accept(1)(e));
    const { conn, socket } = fakeConnection('gw-n:4', player);
    const pending = watching.watch(conn, 'w1', first);
    await waitFor(() => asked(first).length === 1, 1000, 'the first watch asked');
    expect(conn.watching).toEqual({ tableId: first, n: 1, asked: true });
    await watching.watch(conn, 'w2', second);
    await waitFor(() => asked(first).length === 2, 1000, 'the unwatch');
    expect(asked(first)[1]).toEqual({ id: 'gw-n:4:unwatch:1', on: false, replyTo: null });
    // The table-service's late answer to the first watch.
    const reply: IntentReply = {
      ok: true,
      intentId: 'gw-n:4:watch:1',
      version: 8,
      seat: null,
      view: viewOf(first),
    };
    await tableService.publishRaw(REPLIES, JSON.stringify(reply));
    await pending;
    expect(socket.frames()).toEqual([
      frameOf(1, 7_000_000, second),
      { type: 'ack', id: 'w2', version: 1 },
      {
        type: 'error',
        id: 'w1',
        code: 'NOT_ALLOWED_NOW',
        message: 'A later watch, unwatch or join of this socket replaced this watch.',
      },
    ]);
    expect(conn.watching).toMatchObject({ tableId: second });
    expect(conn.lastVersion).toBe(1);
  });

  it('a refusal that comes after the watch was replaced is NOT_ALLOWED_NOW too, and leaves the new watch alone', async () => {
    const { watching, asked } = watchRig();
    const first = newTableCode();
    const second = newTableCode();
    tableService.respond = (e) => (e.tableId === first ? null : accept(1)(e));
    const { conn, socket } = fakeConnection('gw-n:5', player);
    const pending = watching.watch(conn, 'w1', first);
    await waitFor(() => asked(first).length === 1, 1000, 'the first watch asked');
    await watching.watch(conn, 'w2', second);
    const refusal: IntentReply = {
      ok: false,
      intentId: 'gw-n:5:watch:1',
      code: 'TABLE_NOT_FOUND',
      message: 'gone',
    };
    await tableService.publishRaw(REPLIES, JSON.stringify(refusal));
    await pending;
    expect(socket.frames().at(-1)).toMatchObject({ type: 'error', id: 'w1', code: 'NOT_ALLOWED_NOW' });
    expect(conn.watching).toMatchObject({ tableId: second, asked: true });
    expect(watching.watchingSockets(second)).toEqual([conn]);
  });

  it('a sync of the watched table asks again without ending the watch: no unwatch, the last version kept (an older view is not sent)', async () => {
    const { watching, asked } = watchRig();
    const table = newTableCode();
    tableService.respond = accept(6);
    const { conn, socket } = fakeConnection('gw-s:1', player);
    await watching.watch(conn, 'w', table);
    tableService.respond = accept(5);
    await watching.watch(conn, 's', table, true);
    expect(socket.frames().slice(2)).toEqual([{ type: 'ack', id: 's', version: 5 }]);
    expect(conn.lastVersion).toBe(6);
    expect(asked(table).map((a) => a.id)).toEqual(['gw-s:1:watch:1', 'gw-s:1:watch:2']);
    expect(conn.watching).toEqual({ tableId: table, n: 2, asked: true });
  });

  it('a sync answered at the version the socket has sends that view again (the number of watchers may have changed)', async () => {
    const { watching } = watchRig();
    const table = newTableCode();
    tableService.respond = accept(6);
    const { conn, socket } = fakeConnection('gw-s:4', player);
    await watching.watch(conn, 'w', table);
    await watching.watch(conn, 's', table, true);
    expect(socket.frames().slice(2)).toEqual([
      frameOf(6, 7_000_000, table),
      { type: 'ack', id: 's', version: 6 },
    ]);
  });

  it('a sync replaced before it was asked keeps the watch counted: the unwatch that ends it is still sent', async () => {
    const { watching, asked } = watchRig();
    const table = newTableCode();
    tableService.respond = accept(1);
    const { conn, socket } = fakeConnection('gw-s:2', player);
    await watching.watch(conn, 'w', table);
    const sync = watching.watch(conn, 's', table, true);
    watching.stop(conn);
    await sync;
    expect(socket.frames().at(-1)).toMatchObject({ type: 'error', id: 's', code: 'NOT_ALLOWED_NOW' });
    await waitFor(() => asked(table).length === 2, 1000, 'the unwatch');
    expect(asked(table)[1]).toEqual({ id: 'gw-s:2:unwatch:2', on: false, replyTo: null });
    expect(conn.watching).toBeNull();
    expect(watching.tables).toBe(0);
  });

  it('a sync of a socket that watches nothing, ended before it is asked, sends no unwatch', async () => {
    const { watching, asked } = watchRig();
    const table = newTableCode();
    tableService.respond = accept(1);
    const { conn } = fakeConnection('gw-s:3', player);
    const sync = watching.watch(conn, 's', table, true);
    watching.stop(conn);
    await sync;
    // A later watch of the same table (its stream), answered: any intent before it was read by then.
    await watching.watch(conn, 'w', table);
    expect(asked(table).map((a) => a.id)).toEqual(['gw-s:3:watch:2']);
  });

  it('stop ends the watch: the unwatch sent without a reply asked, the socket watches nothing, views stop; a second stop sends nothing', async () => {
    const { watching, asked, publish, subscribers } = watchRig();
    const table = newTableCode();
    tableService.respond = accept(3);
    const { conn, socket } = fakeConnection('gw-u:1', player);
    await watching.watch(conn, 'w', table);
    watching.stop(conn);
    expect(conn.watching).toBeNull();
    expect(conn.lastVersion).toBe(-1);
    expect(watching.tables).toBe(0);
    watching.stop(conn);
    await waitFor(() => asked(table).length === 2, 1000, 'the unwatch');
    const unwatch = tableService.received.find((e) => e.intentId === 'gw-u:1:unwatch:1')!;
    expect(unwatch).toMatchObject({
      tableId: table,
      intent: { kind: 'watch', on: false },
      replyTo: null,
      player,
    });
    await eventually(async () => (await subscribers(table)) === 0, 2000, 'the channel left');
    await publish(table, eventText(table, 9));
    // Another watch, answered: the unwatch and the change above have both been read by then.
    await watching.watch(conn, 'w2', newTableCode());
    expect(asked(table)).toHaveLength(2);
    expect(socket.frames().filter((f) => f['version'] === 9)).toEqual([]);
  });

  it('stop of a socket that never watched sends nothing', async () => {
    const { watching } = watchRig();
    const { conn, socket } = fakeConnection('gw-u:2', player);
    const before = tableService.received.length;
    watching.stop(conn);
    tableService.respond = accept(1);
    await watching.watch(fakeConnection('gw-u:3', player).conn, 'w', newTableCode());
    expect(tableService.received.slice(before).map((e) => e.connectionId)).toEqual(['gw-u:3']);
    expect(socket.sent).toEqual([]);
  });

  it("one socket's stop keeps the channel while another socket of this gateway watches the table", async () => {
    const { watching, publish, subscribers } = watchRig();
    const table = newTableCode();
    tableService.respond = accept(1);
    const a = fakeConnection('gw-u:4', player);
    const b = fakeConnection('gw-u:5', player);
    await watching.watch(a.conn, 'wa', table);
    await watching.watch(b.conn, 'wb', table);
    watching.stop(a.conn);
    expect(watching.tables).toBe(1);
    expect(watching.watchingSockets(table)).toEqual([b.conn]);
    expect(await subscribers(table)).toBe(1);
    await publish(table, eventText(table, 4));
    await waitFor(() => b.socket.sent.length === 3, 1000, 'the change');
    expect(a.socket.sent).toHaveLength(2);
  });
});

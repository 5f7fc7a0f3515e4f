import { encodeSeatMessage, redisNames, type IntentEnvelope, type IntentReply } from '@dominoes/protocol';
import { newTableCode } from '../src/lobby/table-opener';
import { ANN, answers, connId, errorFrame, hubRig, hubSuite, internalError } from './socket-hub-harness';
import { ok, received, seatEvent as publishSeatEvent, viewJson } from './socket-hub-harness';
import type { HubRig, HubSocket } from './socket-hub-harness';
import { eventually, SHARDS, sleep, viewFor, waitFor } from './support';

/**
 * The socket hub's intents, on fake ws sockets and real Redis: what each client frame sends on the
 * table's stream (read by a stand-in table-service, which answers as the table-service would), what
 * the client gets back, the seat binding (real seat router: seat events reach the bound socket
 * only), watching, talk and the lobby frames.
 */
const suite = hubSuite('socket_hub_intents');
const { answer, seating } = answers(suite);
const kinds = (envelopes: IntentEnvelope[]) => envelopes.map((e) => e.intent.kind);
const until = (socket: HubSocket, probe: (frames: Record<string, unknown>[]) => boolean, what = 'frames') =>
  waitFor(() => probe(socket.frames()), 1500, what);
/** The answer (ack or error) to the client's frame `id`, once it came. */
const acked = (socket: HubSocket, id: string) =>
  waitFor(
    () => socket.frames().find((f) => f['id'] === id && (f['type'] === 'ack' || f['type'] === 'error')),
    1500,
    `the answer to ${id}`,
  );

/** Publishes a seat event of `table`'s seat as the table-service does. */
const seatEvent = (table: string, seat: number, version: number) =>
  publishSeatEvent(suite, table, seat, version);

/** The frame `id` was answered INTERNAL, and `msg` logged once at error level for the rig's first socket. */
async function failedInternally(rig: HubRig, socket: HubSocket, id: string, msg: string) {
  expect(await acked(socket, id)).toEqual(internalError(id));
  expect(rig.logged(msg)).toEqual([expect.objectContaining({ level: 50, conn: connId(rig, 1) })]);
}

/**
 * Seat events of the seat the socket left (`left`) and of the one it is bound to (`bound`), each
 * [table, seat, version]: the bound seat's view reaches the socket, the left one's does not.
 */
async function onlyBoundViews(
  socket: HubSocket,
  left: [string, number, number],
  bound: [string, number, number],
  what: string,
) {
  await seatEvent(...left);
  await seatEvent(...bound);
  await until(socket, (fs) => fs.some((f) => f['version'] === bound[2]), what);
  expect(socket.frames().some((f) => f['version'] === left[2])).toBe(false);
}

/** An authenticated socket seated at a new table's `seat` (joined, bound, its sync answered). */
async function seatedSocket(rig: HubRig, seat = 1) {
  seating(seat);
  const table = newTableCode();
  const socket = rig.authed(ANN);
  socket.text({ type: 'join', id: 'j1', table });
  await received(suite, table, 2); // the join and the gateway's sync
  await until(socket, (fs) => fs.filter((f) => f['type'] === 'view').length === 1, 'the synced view');
  return { socket, table };
}

describe('SocketHub intents: join and the seat binding', () => {
  it("join sends {kind: join} in the player's envelope, acks the reply's version, binds the seat and sends the seat's view", async () => {
    const rig = await hubRig(suite, { chat: true });
    seating(1, 3);
    const table = newTableCode();
    const socket = rig.authed(ANN);
    socket.text({ type: 'join', id: 'j1', table });
    const [join, sync] = await received(suite, table, 2);
    expect(join).toEqual({
      intentId: `${ANN.id}:j1`,
      tableId: table,
      player: ANN,
      connectionId: connId(rig, 1),
      replyTo: rig.intents.replyChannel,
      sentAt: rig.clock.now(),
      intent: { kind: 'join' },
    });
    expect(rig.intents.replyChannel).not.toBe('');
    expect(sync).toMatchObject({
      intentId: `${connId(rig, 1)}:sync:1`,
      tableId: table,
      player: ANN,
      replyTo: rig.intents.replyChannel,
      intent: { kind: 'sync' },
    });
    await until(socket, (fs) => fs.length === 3);
    expect(socket.frames().slice(1)).toEqual([
      { type: 'ack', id: 'j1', version: 3 },
      { type: 'view', version: 3, serverTime: rig.clock.now(), view: viewFor(table, 1, ANN.id) },
    ]);
    expect(rig.chat!.calls).toEqual([`follow ${connId(rig, 1)} ${table}`]);
    expect(rig.logged('socket bound to seat')).toEqual([
      expect.objectContaining({ conn: connId(rig, 1), player: ANN.id, tableId: table, seat: 1 }),
    ]);
    await seatEvent(table, 1, 9);
    await until(socket, (fs) => fs.length === 4, 'the seat event');
    expect(socket.last()).toMatchObject({ type: 'view', version: 9 });
  });

  it("a join's own view (a join that changed nothing) is sent before its ack; the sync's older view is not, an equal one is", async () => {
    const rig = await hubRig(suite);
    const table = newTableCode();
    const other = newTableCode();
    answer((e) =>
      e.intent.kind === 'join'
        ? ok(e, 5, 2, viewJson(e.tableId, 2))
        : ok(e, e.tableId === table ? 4 : 5, 2, viewJson(e.tableId, 2)),
    );
    const socket = rig.authed(ANN);
    socket.text({ type: 'join', id: 'j1', table });
    await received(suite, table, 2);
    await acked(socket, 'j1');
    socket.text({ type: 'ping', id: 'after' });
    await until(socket, (fs) => fs.some((f) => f['id'] === 'after'));
    expect(socket.frames().map((f) => [f['type'], f['version']])).toEqual([
      ['welcome', undefined],
      ['view', 5],
      ['ack', 5],
      ['pong', undefined],
    ]);
    socket.text({ type: 'join', id: 'j2', table: other });
    await received(suite, other, 2);
    await until(
      socket,
      (fs) => fs.filter((f) => f['type'] === 'view').length === 3,
      'both views of the second table',
    );
  });

  it('a join the table refuses is answered with its code and message, logged, and leaves the socket unseated', async () => {
    const rig = await hubRig(suite);
    answer((e) => ({ ok: false, intentId: e.intentId, code: 'TABLE_FULL', message: 'Every seat is taken.' }));
    const table = newTableCode();
    const socket = rig.authed(ANN);
    socket.text({ type: 'join', id: 'j1', table });
    expect(await acked(socket, 'j1')).toEqual(errorFrame('j1', 'TABLE_FULL', 'Every seat is taken.'));
    expect(rig.logged('intent refused')).toEqual([
      expect.objectContaining({
        conn: connId(rig, 1),
        player: ANN.id,
        tableId: table,
        type: 'join',
        code: 'TABLE_FULL',
      }),
    ]);
    socket.text({ type: 'pass', id: 'p1' });
    expect(await acked(socket, 'p1')).toEqual(errorFrame('p1', 'NOT_SEATED', 'Join a table first.'));
    expect(await rig.refused('NOT_SEATED')).toBe(1);
  });

  it('a join that seats no one (seat null) is acked, and binds nothing', async () => {
    const rig = await hubRig(suite, { chat: true });
    answer((e) => ok(e, 2, null, viewJson(e.tableId, 0)));
    const table = newTableCode();
    const socket = rig.authed(ANN);
    socket.text({ type: 'join', id: 'j1', table });
    await acked(socket, 'j1');
    expect(socket.frames().slice(1)).toEqual([{ type: 'ack', id: 'j1', version: 2 }]);
    expect(kinds(await received(suite, table, 1))).toEqual(['join']);
    expect(rig.chat!.calls).toEqual([]);
  });

  it('a move of a bound socket is the action of its seat; every other intent is its kind; each is acked with its version', async () => {
    const rig = await hubRig(suite);
    const { socket, table } = await seatedSocket(rig, 2);
    const frames: Record<string, unknown>[] = [
      { type: 'play', id: 'a1', tile: [1, 2] },
      { type: 'play', id: 'a2', tile: [3, 4], end: 'left' },
      { type: 'pass', id: 'a3' },
      { type: 'draw', id: 'a4' },
      { type: 'autoPass', id: 'a5', on: true },
      { type: 'autoPass', id: 'a6', on: false },
      { type: 'startRound', id: 'a7' },
      { type: 'newMatch', id: 'a8' },
    ];
    for (const frame of frames) {
      socket.text(frame);
      await acked(socket, frame['id'] as string);
    }
    const sent = (await received(suite, table, 10)).slice(2);
    expect(sent.map((e) => [e.intentId, e.replyTo, e.intent])).toEqual(
      [
        { kind: 'action', action: { type: 'play', seat: 2, tile: [1, 2] } },
        { kind: 'action', action: { type: 'play', seat: 2, tile: [3, 4], end: 'left' } },
        { kind: 'action', action: { type: 'pass', seat: 2 } },
        { kind: 'action', action: { type: 'draw', seat: 2 } },
        { kind: 'autoPass', on: true },
        { kind: 'autoPass', on: false },
        { kind: 'startRound' },
        { kind: 'newMatch' },
      ].map((intent, i) => [`${ANN.id}:a${i + 1}`, rig.intents.replyChannel, intent]),
    );
    expect(socket.framesOf('ack').slice(1)).toEqual(
      frames.map((f) => ({ type: 'ack', id: f['id'], version: 3 })),
    );
  });

  it("a sync of a seated socket sends the seat's view in its reply, not one of another seat or without a version or view", async () => {
    const rig = await hubRig(suite);
    const { socket, table } = await seatedSocket(rig, 1);
    const replies: ((e: IntentEnvelope) => IntentReply)[] = [
      (e) => ok(e, 7, 1, viewJson(table, 1)),
      (e) => ok(e, 8, 2, viewJson(table, 2)),
      (e) => ok(e, null, 1, viewJson(table, 1)),
      (e) => ok(e, 9, 1),
      (e) => ok(e, 6, 1, viewJson(table, 1)),
    ];
    for (const [i, reply] of replies.entries()) {
      answer(reply);
      socket.text({ type: 'sync', id: `s${i}` });
      await acked(socket, `s${i}`);
    }
    expect(kinds((await received(suite, table, 7)).slice(2))).toEqual([
      'sync',
      'sync',
      'sync',
      'sync',
      'sync',
    ]);
    expect(
      socket
        .frames()
        .slice(3)
        .map((f) => [f['type'], f['version']]),
    ).toEqual([
      ['view', 7],
      ['ack', 7],
      ['ack', 8],
      ['ack', null],
      ['ack', 9],
      ['ack', 6],
    ]);
  });

  it("leave is sent as {kind: leave}, acked, and unbinds the socket: the seat's views stop, the chat is left, no presence note", async () => {
    const rig = await hubRig(suite, { chat: true });
    const { socket, table } = await seatedSocket(rig, 1);
    socket.text({ type: 'leave', id: 'l1' });
    expect(await acked(socket, 'l1')).toEqual({ type: 'ack', id: 'l1', version: 3 });
    expect(rig.chat!.calls).toContain(`unfollow ${connId(rig, 1)} ${table}`);
    await seatEvent(table, 1, 50);
    socket.text({ type: 'pass', id: 'p1' });
    expect(await acked(socket, 'p1')).toMatchObject({ id: 'p1', code: 'NOT_SEATED' });
    expect(socket.framesOf('view').map((f) => f['version'])).toEqual([3]);
    expect(kinds(suite.tableService.received.filter((e) => e.tableId === table))).toEqual([
      'join',
      'sync',
      'leave',
    ]);
  });

  it('a join of another table moves the binding: the old table gets a presence note (left), its views stop', async () => {
    const rig = await hubRig(suite, { chat: true });
    const { socket, table } = await seatedSocket(rig, 1);
    const next = newTableCode();
    socket.text({ type: 'join', id: 'j2', table: next });
    await received(suite, next, 2);
    const [note] = (await received(suite, table, 3)).slice(2);
    expect(note).toMatchObject({
      intentId: `${connId(rig, 1)}:left:1`,
      tableId: table,
      player: ANN,
      connectionId: connId(rig, 1),
      replyTo: null,
      intent: { kind: 'presence', connected: false },
    });
    expect(rig.chat!.calls).toEqual([
      `follow ${connId(rig, 1)} ${table}`,
      `unfollow ${connId(rig, 1)} ${table}`,
      `follow ${connId(rig, 1)} ${next}`,
    ]);
    await onlyBoundViews(socket, [table, 1, 60], [next, 1, 61], 'the new seat event');
  });

  it('a join of another seat at the same table moves the binding without a presence note; the same seat binds nothing again', async () => {
    const rig = await hubRig(suite);
    const { socket, table } = await seatedSocket(rig, 1);
    seating(3);
    socket.text({ type: 'join', id: 'j2', table });
    await acked(socket, 'j2');
    const got = await received(suite, table, 4);
    expect(got.slice(2).map((e) => e.intentId)).toEqual([`${ANN.id}:j2`, `${connId(rig, 1)}:sync:2`]);
    socket.text({ type: 'join', id: 'j3', table });
    await acked(socket, 'j3');
    socket.text({ type: 'sync', id: 's1' });
    await acked(socket, 's1');
    expect((await received(suite, table, 6)).slice(4).map((e) => e.intentId)).toEqual([
      `${ANN.id}:j3`,
      `${ANN.id}:s1`,
    ]);
    await onlyBoundViews(socket, [table, 1, 70], [table, 3, 71], 'seat 3 event');
  });

  it('a socket that closes while its join is on the way: a seat taken is said to be disconnected again; no seat, no note', async () => {
    const rig = await hubRig(suite);
    const pending: IntentEnvelope[] = [];
    answer((e) => {
      if (e.intent.kind === 'join') pending.push(e);
      return null;
    });
    const [seatTaken, noSeat] = [newTableCode(), newTableCode()];
    const a = rig.authed(ANN);
    const b = rig.authed(ANN);
    a.text({ type: 'join', id: 'j1', table: seatTaken });
    b.text({ type: 'join', id: 'j2', table: noSeat });
    await waitFor(() => pending.length === 2);
    a.closed(1001);
    b.closed(1001);
    for (const e of pending)
      await suite.tableService.publishRaw(
        e.replyTo!,
        JSON.stringify(ok(e, 4, e.tableId === seatTaken ? 0 : null)),
      );
    const [, note] = await received(suite, seatTaken, 2);
    expect(note).toMatchObject({
      intentId: `${connId(rig, 1)}:closed`,
      tableId: seatTaken,
      replyTo: null,
      player: ANN,
      intent: { kind: 'presence', connected: false },
    });
    expect(a.sent).toHaveLength(1);
    await a.closed(1000);
    expect(suite.tableService.received.filter((e) => e.tableId === noSeat)).toHaveLength(1);
  });

  it('a bound socket that closes sends a presence note (closed) to its table and leaves its chat', async () => {
    const rig = await hubRig(suite, { chat: true });
    const { socket, table } = await seatedSocket(rig, 1);
    socket.closed(1000);
    const [note] = (await received(suite, table, 3)).slice(2);
    expect(note).toMatchObject({
      intentId: `${connId(rig, 1)}:closed`,
      connectionId: connId(rig, 1),
      replyTo: null,
      intent: { kind: 'presence', connected: false },
    });
    expect(rig.chat!.calls.slice(1)).toEqual([
      `unfollow ${connId(rig, 1)} ${table}`,
      `unfollow ${connId(rig, 1)}`,
    ]);
    expect(rig.logged('socket closed')).toEqual([expect.objectContaining({ tableId: table })]);
  });

  it('drain closes bound sockets and flushes their presence notes to the stream', async () => {
    const rig = await hubRig(suite);
    const { table } = await seatedSocket(rig, 1);
    await rig.hub.drain(0);
    const [note] = (await received(suite, table, 3)).slice(2);
    expect(note).toMatchObject({ intentId: `${connId(rig, 1)}:closed`, intent: { kind: 'presence' } });
  });

  it('an intent whose handling throws is answered INTERNAL with its id, and logged', async () => {
    const rig = await hubRig(suite);
    answer((e) => ok(e, 1, null));
    const socket = rig.authed(ANN);
    socket.text({ type: 'join', id: 'j1', table: newTableCode() });
    socket.failing = 1; // the ack's send
    await failedInternally(rig, socket, 'j1', 'intent handler failed');
  });
});

describe('SocketHub intents: views as changes (decision 0036)', () => {
  /** Publishes a change of ANN's view of `table`'s `seat` from `base` to `version`, as the table-service does. */
  const change = (table: string, seat: number, version: number, base: number) =>
    suite.tableService.publishRaw(
      redisNames(suite.prefix, SHARDS).viewsChannel(table),
      encodeSeatMessage({
        header: { tableId: table, seat, version, playerId: ANN.id, cause: null, base },
        viewJson: JSON.stringify([{ set: ['watchers'], to: version }]),
      }),
    );
  const types = (socket: HubSocket) =>
    socket
      .frames()
      .filter((f) => f['type'] === 'view' || f['type'] === 'viewChange')
      .map((f) => [f['type'], f['version'], f['base']]);

  it('a change goes to a socket that holds its base; one that does not fit gets nothing, and the whole view is asked for it once', async () => {
    const rig = await hubRig(suite);
    const { socket, table } = await seatedSocket(rig);
    await change(table, 1, 4, 3);
    await until(socket, (fs) => fs.some((f) => f['type'] === 'viewChange'), 'the change');
    expect(socket.last()).toEqual({
      type: 'viewChange',
      version: 4,
      base: 3,
      serverTime: rig.clock.now(),
      change: [{ set: ['watchers'], to: 4 }],
    });
    // Version 5 never came: 6 (on 5) and 7 (on 6) do not fit, and one sync is asked for (the seating answers 3).
    seating(1, 7);
    await change(table, 1, 6, 5);
    await change(table, 1, 7, 6);
    await received(suite, table, 3);
    await until(socket, (fs) => fs.filter((f) => f['type'] === 'view').length === 2, 'the whole view');
    expect(suite.tableService.received.filter((e) => e.tableId === table).map((e) => e.intentId)).toEqual([
      `${ANN.id}:j1`,
      `${connId(rig, 1)}:sync:1`,
      `${connId(rig, 1)}:sync:2`,
    ]);
    // On top of the whole view at 7, the next change goes out again; an old or repeated one does not.
    await change(table, 1, 7, 6);
    await change(table, 1, 8, 7);
    await until(socket, (fs) => fs.some((f) => f['version'] === 8), 'the change after the sync');
    expect(types(socket)).toEqual([
      ['view', 3, undefined],
      ['viewChange', 4, 3],
      ['view', 7, undefined],
      ['viewChange', 8, 7],
    ]);
    expect((await rig.metrics.viewsBehind.get()).values[0]!.value).toBe(2);
  });
});

/** Watches answer the table's public view at `version`; anything else as seating(1). */
function watching(version = 4): void {
  answer((e) =>
    e.intent.kind === 'watch'
      ? ok(e, version, null, JSON.stringify({ tableId: e.tableId }))
      : e.intent.kind === 'join' || e.intent.kind === 'sync'
        ? ok(e, 3, 1, e.intent.kind === 'sync' ? viewJson(e.tableId, 1) : undefined)
        : ok(e, 3, 1),
  );
}
/** An authenticated socket watching a new table (watches answered at version 4), its watch acked. */
async function watchingSocket(rig: HubRig) {
  watching(4);
  const table = newTableCode();
  const socket = rig.authed(ANN);
  socket.text({ type: 'watch', id: 'w1', table });
  await acked(socket, 'w1');
  return { socket, table };
}

describe('SocketHub intents: the view subscriptions come back', () => {
  it("after the subscriber reconnects (a Redis restart: views published meanwhile are lost), each bound socket's whole view is asked for again", async () => {
    const rig = await hubRig(suite);
    const { socket, table } = await seatedSocket(rig);
    seating(1, 6);
    rig.subscriber.disconnect(true);
    const [, , again] = await received(suite, table, 3);
    expect(again).toMatchObject({ intentId: `${connId(rig, 1)}:sync:2`, intent: { kind: 'sync' } });
    await until(socket, (fs) => fs.some((f) => f['type'] === 'view' && f['version'] === 6), 'the view again');
    expect(rig.logged("view subscriptions back: the seats' views asked for again")).toEqual([
      expect.objectContaining({ sockets: 1 }),
    ]);
    // The subscription itself is back: the next change reaches the socket.
    await waitFor(() => rig.subscriber.status === 'ready', 1500, 'the subscriber ready');
    await eventually(
      async () => {
        await seatEvent(table, 1, 9);
        await sleep(20);
        return socket.last()?.['version'] === 9;
      },
      3000,
      'a view after the reconnection',
    );
  });
  it("after the subscriber reconnects, each watching socket's public view is asked for again (a watch of its own) and sent, with no ack", async () => {
    const rig = await hubRig(suite);
    const { socket, table } = await watchingSocket(rig);
    watching(9);
    rig.subscriber.disconnect(true);
    const [, again] = await received(suite, table, 2);
    expect(again).toMatchObject({
      intentId: `${connId(rig, 1)}:watch:2`,
      intent: { kind: 'watch', on: true },
      replyTo: rig.intents.replyChannel,
    });
    await until(
      socket,
      (fs) => fs.some((f) => f['type'] === 'watchView' && f['version'] === 9),
      'the view again',
    );
    expect(
      socket
        .frames()
        .slice(1)
        .map((f) => [f['type'], f['version']]),
    ).toEqual([
      ['watchView', 4],
      ['ack', 4],
      ['watchView', 9],
    ]);
    expect(rig.logged("view subscriptions back: the spectators' views asked for again")).toEqual([
      expect.objectContaining({ sockets: 1 }),
    ]);
    // The unwatch names the last watch.
    socket.text({ type: 'unwatch', id: 'u1' });
    await acked(socket, 'u1');
    expect((await received(suite, table, 3))[2]).toMatchObject({ intentId: `${connId(rig, 1)}:unwatch:2` });
  });
});

describe('SocketHub intents: watching', () => {
  it("watch sends {kind: watch, on: true}, sends the reply's view as watchView and acks; the socket then follows the table's chat", async () => {
    const rig = await hubRig(suite, { chat: true });
    const { socket, table } = await watchingSocket(rig);
    const [watch] = await received(suite, table, 1);
    expect(watch).toMatchObject({
      intentId: `${connId(rig, 1)}:watch:1`,
      player: ANN,
      replyTo: rig.intents.replyChannel,
      intent: { kind: 'watch', on: true },
    });
    expect(socket.frames().slice(1)).toEqual([
      { type: 'watchView', version: 4, serverTime: rig.clock.now(), view: { tableId: table } },
      { type: 'ack', id: 'w1', version: 4 },
    ]);
    await waitFor(() => rig.chat!.calls.includes(`follow ${connId(rig, 1)} ${table}`));
  });

  it('a watching socket cannot act (SPECTATORS_CANNOT_ACT); its sync watches again; unwatch ends it, acked with version null', async () => {
    const rig = await hubRig(suite, { chat: true });
    const { socket, table } = await watchingSocket(rig);
    socket.text({ type: 'pass', id: 'p1' });
    expect(await acked(socket, 'p1')).toEqual(
      errorFrame('p1', 'SPECTATORS_CANNOT_ACT', 'You are watching this table: spectators cannot act.'),
    );
    socket.text({ type: 'sync', id: 's1' });
    await acked(socket, 's1');
    socket.text({ type: 'unwatch', id: 'u1' });
    expect(await acked(socket, 'u1')).toEqual({ type: 'ack', id: 'u1', version: null });
    const got = await received(suite, table, 3);
    expect(got.map((e) => [e.intentId, e.intent])).toEqual([
      [`${connId(rig, 1)}:watch:1`, { kind: 'watch', on: true }],
      [`${connId(rig, 1)}:watch:2`, { kind: 'watch', on: true }],
      [`${connId(rig, 1)}:unwatch:2`, { kind: 'watch', on: false }],
    ]);
    expect(rig.chat!.calls).toContain(`unfollow ${connId(rig, 1)}`);
    socket.text({ type: 'sync', id: 's2' });
    expect(await acked(socket, 's2')).toMatchObject({ id: 's2', code: 'NOT_SEATED' });
  });

  it('a seated socket that watches leaves its seat first (a presence note, left); a join from watching takes the seat and ends the watch', async () => {
    const rig = await hubRig(suite, { chat: true });
    const { socket, table } = await seatedSocket(rig, 1);
    watching(4);
    const watched = newTableCode();
    socket.text({ type: 'watch', id: 'w1', table: watched });
    await acked(socket, 'w1');
    const [note] = (await received(suite, table, 3)).slice(2);
    expect(note).toMatchObject({
      intentId: `${connId(rig, 1)}:left:1`,
      intent: { kind: 'presence', connected: false },
    });
    socket.text({ type: 'join', id: 'j2', table: watched });
    await acked(socket, 'j2');
    const got = await received(suite, watched, 4);
    expect(got.map((e) => e.intent.kind)).toEqual(['watch', 'join', 'watch', 'sync']);
    expect(got[2]!.intent).toEqual({ kind: 'watch', on: false });
    await seatEvent(watched, 1, 80);
    await until(socket, (fs) => fs.some((f) => f['version'] === 80), 'the seat event');
  });

  it('a join from watching that seats no one keeps the watch', async () => {
    const rig = await hubRig(suite);
    const { socket, table } = await watchingSocket(rig);
    answer((e) => ok(e, 5, null));
    socket.text({ type: 'join', id: 'j1', table });
    await acked(socket, 'j1');
    socket.text({ type: 'pass', id: 'p1' });
    expect(await acked(socket, 'p1')).toMatchObject({ code: 'SPECTATORS_CANNOT_ACT' });
    expect(kinds(suite.tableService.received.filter((e) => e.tableId === table))).toEqual(['watch', 'join']);
  });

  it('a watch the table refuses is answered with its code; the socket watches nothing and follows no chat', async () => {
    const rig = await hubRig(suite, { chat: true });
    answer((e) => ({ ok: false, intentId: e.intentId, code: 'TABLE_NOT_FOUND', message: 'No such table.' }));
    const socket = rig.authed(ANN);
    socket.text({ type: 'watch', id: 'w1', table: newTableCode() });
    expect(await acked(socket, 'w1')).toEqual(errorFrame('w1', 'TABLE_NOT_FOUND', 'No such table.'));
    socket.text({ type: 'sync', id: 's1' });
    expect(await acked(socket, 's1')).toMatchObject({ code: 'NOT_SEATED' });
    expect(rig.chat!.calls).toEqual([]);
  });

  it('a watch that fails is answered INTERNAL and logged', async () => {
    const rig = await hubRig(suite);
    await rig.subscriber.quit();
    await eventually(async () => rig.subscriber.status === 'end');
    const socket = rig.authed(ANN);
    socket.text({ type: 'watch', id: 'w1', table: newTableCode() });
    await failedInternally(rig, socket, 'w1', 'watch failed');
  });
});

describe('SocketHub: talk and the lobby frames', () => {
  const talk = { type: 'chat', id: 'c1', text: 'hello all' };

  it('without a chat relay a talk frame is refused NOT_ALLOWED_NOW; nothing goes to the table-service', async () => {
    const rig = await hubRig(suite);
    const socket = rig.authed(ANN);
    socket.text(talk);
    expect(await acked(socket, 'c1')).toEqual(
      errorFrame('c1', 'NOT_ALLOWED_NOW', 'Chat is not available here.'),
    );
    expect(suite.tableService.received.filter((e) => e.connectionId === connId(rig, 1))).toEqual([]);
  });

  it("with one, a talk frame goes to the relay and is acked (version null), or refused with the relay's code", async () => {
    const rig = await hubRig(suite, { chat: true });
    const socket = rig.authed(ANN);
    socket.text(talk);
    expect(await acked(socket, 'c1')).toEqual({ type: 'ack', id: 'c1', version: null });
    rig.chat!.outcome = { ok: false, code: 'CHAT_RATE_LIMITED', message: 'Slow down.' };
    socket.text({ type: 'react', id: 'r1', reaction: 'clap' });
    expect(await acked(socket, 'r1')).toEqual(errorFrame('r1', 'CHAT_RATE_LIMITED', 'Slow down.'));
    expect(rig.chat!.said).toEqual([
      { conn: connId(rig, 1), frame: talk },
      { conn: connId(rig, 1), frame: { type: 'react', id: 'r1', reaction: 'clap' } },
    ]);
  });

  it('a relay that fails: INTERNAL, logged', async () => {
    const rig = await hubRig(suite, { chat: true });
    rig.chat!.outcome = () => Promise.reject(new Error('redis down'));
    const socket = rig.authed(ANN);
    socket.text(talk);
    await failedInternally(rig, socket, 'c1', 'talk handler failed');
  });

  it('lobby and quickPlay frames on a gateway without a lobby: UNAVAILABLE', async () => {
    const rig = await hubRig(suite);
    const socket = rig.authed(ANN);
    socket.text({ type: 'lobby', id: 'l1', on: true });
    socket.text({ type: 'quickPlay', id: 'q1', variant: 'draw' });
    expect(socket.frames().slice(1)).toEqual(
      ['l1', 'q1'].map((id) => errorFrame(id, 'UNAVAILABLE', 'This gateway has no lobby.')),
    );
  });

  it('lobby frames go to the lobby; its failure is answered INTERNAL', async () => {
    const rig = await hubRig(suite, { lobby: true });
    const socket = rig.authed(ANN);
    socket.text({ type: 'lobby', id: 'l1', on: true });
    socket.text({ type: 'lobby', id: 'l2', on: false });
    expect(rig.lobby!.calls).toEqual([
      `subscribe ${connId(rig, 1)} l1 true`,
      `subscribe ${connId(rig, 1)} l2 false`,
    ]);
    rig.lobby!.subscribeResult = () => Promise.reject(new Error('pg down'));
    socket.text({ type: 'lobby', id: 'l3', on: true });
    await failedInternally(rig, socket, 'l3', 'lobby handler failed');
  });

  it('quick play: the table the lobby found is joined as a join of that id would be; none, nothing; a failure, INTERNAL', async () => {
    const rig = await hubRig(suite, { lobby: true });
    seating(0, 2);
    const table = newTableCode();
    const socket = rig.authed(ANN);
    rig.lobby!.quickPlayResult = () => Promise.resolve(null);
    socket.text({ type: 'quickPlay', id: 'q0', variant: 'draw' });
    rig.lobby!.quickPlayResult = () => Promise.resolve(table);
    socket.text({ type: 'quickPlay', id: 'q1', variant: 'draw' });
    await acked(socket, 'q1');
    const [join] = await received(suite, table, 1);
    expect(join).toMatchObject({ intentId: `${ANN.id}:q1`, intent: { kind: 'join' } });
    expect(socket.frames().filter((f) => f['type'] === 'ack')).toEqual([
      { type: 'ack', id: 'q1', version: 2 },
    ]);
    // The lobby found no table for q0: nothing is joined, nothing is answered by the hub.
    expect(socket.frames().filter((f) => f['id'] === 'q0')).toEqual([]);
    rig.lobby!.quickPlayResult = () => Promise.reject(new Error('pg down'));
    socket.text({ type: 'quickPlay', id: 'q2', variant: 'draw' });
    await failedInternally(rig, socket, 'q2', 'quick play failed');
    expect(rig.lobby!.calls.filter((c) => c.startsWith('quickPlay'))).toHaveLength(3);
  });
});

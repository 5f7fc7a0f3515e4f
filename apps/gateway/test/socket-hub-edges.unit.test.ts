import type { IntentEnvelope } from '@dominoes/protocol';
import { newTableCode } from '../src/lobby/table-opener';
import {
  ANN,
  answers,
  connId,
  hubRig,
  hubSuite,
  ok,
  received,
  seatEvent,
  viewJson,
} from './socket-hub-harness';
import type { HubSocket } from './socket-hub-harness';
import { eventually, sleep, waitFor } from './support';

/**
 * The socket hub's edges, on fake ws sockets and real Redis: a socket evicted while it is still
 * closing, an eviction asked twice (here and by Redis), the heartbeat's tick, a binding's views
 * after a move, the gateway's own sync refused or failing, and a watching socket closing.
 */
const suite = hubSuite('socket_hub_edges');
const { answer, seating } = answers(suite);
const views = (socket: HubSocket) => socket.framesOf('view').map((f) => f['version']);

describe('SocketHub edges: eviction', () => {
  it('a socket evicted but still closing is not counted again: the next hello over the limit closes the next oldest only', async () => {
    const rig = await hubRig(suite, { env: { WS_MAX_SOCKETS_PER_PLAYER: '2' } });
    const first = rig.authed(ANN);
    first.answersClose = false;
    const second = rig.authed(ANN);
    const third = rig.authed(ANN);
    expect(first.closes).toHaveLength(1);
    rig.authed(ANN);
    expect([second.closes.length, third.closes.length]).toEqual([1, 0]);
    expect(await rig.refused('TOO_MANY_SOCKETS')).toBe(2);
  });

  it('a socket closed here that Redis also names over the limit is evicted once (one count, one log line)', async () => {
    const rig = await hubRig(suite, { everywhere: true, env: { WS_MAX_SOCKETS_PER_PLAYER: '2' } });
    const key = rig.names.playerSockets(ANN.id);
    const first = rig.authed(ANN);
    first.answersClose = false;
    rig.clock.t += 1;
    rig.authed(ANN);
    rig.clock.t += 1;
    rig.authed(ANN);
    await eventually(async () => !(await rig.commands!.zrange(key, 0, -1)).includes(connId(rig, 1)));
    expect(await rig.refused('TOO_MANY_SOCKETS')).toBe(1);
    expect(rig.logged('socket closed: too many sockets for one player')).toHaveLength(1);
  });
});

describe('SocketHub edges: the heartbeat', () => {
  it('ticks every fifth of the shorter of WS_PING_INTERVAL_MS and WS_PONG_TIMEOUT_MS (here 500 ms), not every 20 ms', async () => {
    const rig = await hubRig(suite, { env: { WS_PING_INTERVAL_MS: '2500', WS_PONG_TIMEOUT_MS: '10000' } });
    const socket = rig.open();
    rig.clock.t += 2_500;
    await sleep(150);
    expect(socket.pings).toBe(0);
    await waitFor(() => socket.pings === 1, 2000, 'the ping on the next tick');
  });

  it('a heartbeat that fails is logged and the next tick runs', async () => {
    const rig = await hubRig(suite, { env: { WS_PING_INTERVAL_MS: '100', WS_PONG_TIMEOUT_MS: '100' } });
    const socket = rig.open();
    const now = rig.clock.now;
    rig.clock.now = () => {
      throw new Error('no clock');
    };
    await waitFor(() => rig.logged('socket heartbeat failed').length > 0, 1500, 'the failure logged');
    rig.clock.now = now;
    expect(rig.logged('socket heartbeat failed')[0]).toMatchObject({
      level: 50,
      err: expect.objectContaining({ message: 'no clock' }),
    });
    rig.clock.t += 100;
    await waitFor(() => socket.pings === 1, 1500, 'a ping after the failure');
  });
});

describe('SocketHub edges: bindings and the gateway sync', () => {
  it("a socket that moves to another table gets the new seat's views from version 0 up, whatever version the old one reached", async () => {
    const rig = await hubRig(suite);
    seating(1, 3);
    const [old, next] = [newTableCode(), newTableCode()];
    const socket = rig.authed(ANN);
    socket.text({ type: 'join', id: 'j1', table: old });
    await waitFor(() => views(socket).length === 1, 1500, 'the first view');
    await seatEvent(suite, old, 1, 50);
    await waitFor(() => views(socket).includes(50), 1500, 'the seat event');
    socket.text({ type: 'join', id: 'j2', table: next });
    await waitFor(() => views(socket).length === 3, 1500, "the new table's view");
    expect(views(socket)).toEqual([3, 50, 3]);
  });

  it("the gateway's sync refused: no view and nothing logged; its view failing to go out: logged", async () => {
    const rig = await hubRig(suite);
    const syncs: IntentEnvelope[] = [];
    answer((e) => {
      if (e.intent.kind !== 'sync') return ok(e, 2, 1);
      syncs.push(e);
      return null;
    });
    const [a, b] = [rig.authed(ANN), rig.authed(ANN)];
    a.text({ type: 'join', id: 'j1', table: newTableCode() });
    b.text({ type: 'join', id: 'j2', table: newTableCode() });
    await waitFor(() => syncs.length === 2, 1500, 'both syncs');
    await waitFor(() => a.framesOf('ack').length === 1 && b.framesOf('ack').length === 1);
    const [toA, toB] = syncs[0]!.connectionId === connId(rig, 1) ? syncs : [syncs[1]!, syncs[0]!];
    await suite.tableService.publishRaw(
      toA!.replyTo!,
      JSON.stringify({ ok: false, intentId: toA!.intentId, code: 'NOT_SEATED', message: 'Gone.' }),
    );
    b.failing = 1;
    await suite.tableService.publishRaw(
      toB!.replyTo!,
      JSON.stringify(ok(toB!, 2, 1, viewJson(toB!.tableId, 1))),
    );
    const failed = "asking for the seat's view failed";
    await waitFor(() => rig.logged(failed).length === 1, 1500, 'the failure logged');
    expect(rig.logged(failed)[0]).toMatchObject({ level: 50, conn: connId(rig, 2) });
    expect(a.framesOf('view')).toEqual([]);
    expect(a.framesOf('error')).toEqual([]);
  });

  it('a watching socket that closes ends its watch: the table is told (unwatch)', async () => {
    const rig = await hubRig(suite);
    answer((e) => ok(e, 4, null, JSON.stringify({ tableId: e.tableId })));
    const table = newTableCode();
    const socket = rig.authed(ANN);
    socket.text({ type: 'watch', id: 'w1', table });
    await waitFor(() => socket.framesOf('ack').length === 1);
    socket.closed(1000);
    const got = await received(suite, table, 2);
    expect(got.map((e) => [e.intentId, e.intent])).toEqual([
      [`${connId(rig, 1)}:watch:1`, { kind: 'watch', on: true }],
      [`${connId(rig, 1)}:unwatch:1`, { kind: 'watch', on: false }],
    ]);
  });
});

import { encodeSeatEvent, redisNames, viewFrameText, type SeatEvent } from '@dominoes/protocol';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { GatewayMetrics } from '../src/metrics';
import { SeatRouter } from '../src/ws/seat-router';
import { eventually, uniquePrefix, viewFor, waitFor } from './support';
import { fakeConnection, RedisConnections, TestClock } from './unit-fakes';

const redis = new RedisConnections();
afterAll(() => redis.closeAll());

/** A router on its own real Redis subscriber, a publisher, a clock and a recording logger. */
function routerRig() {
  const names = redisNames(uniquePrefix('seat_router'), 4);
  const clock = new TestClock();
  const metrics = new GatewayMetrics(false);
  const { logger, lines } = recordingLogger();
  const subscriber = redis.open('seat-router-test:sub');
  const publisher = redis.open('seat-router-test:pub');
  const router = new SeatRouter(subscriber, names, clock, metrics, logger);
  const subscribers = async (channel: string) =>
    ((await publisher.pubsub('NUMSUB', channel)) as [string, number])[1];
  return { names, clock, metrics, lines, subscriber, publisher, router, subscribers };
}

function seatEvent(
  tableId: string,
  seat: number,
  playerId: string,
  version: number,
  extra: Partial<SeatEvent> = {},
) {
  const event: SeatEvent = {
    tableId,
    seat,
    version,
    view: viewFor(tableId, seat, playerId),
    cause: null,
    ...extra,
  };
  return { text: encodeSeatEvent(event), viewJson: JSON.stringify(event.view) };
}

/** A connection bound to `tableId`'s seat `seat` as the socket hub binds one. */
function seated(tableId: string, seat: number, playerId: string, id = `${playerId}-sock`) {
  const made = fakeConnection(id, { id: playerId, name: playerId });
  made.conn.binding = { tableId, seat, key: SeatRouter.seatKey(tableId, seat) };
  return made;
}

describe('SeatRouter (real Redis pub/sub)', () => {
  it("names a table's views channel and spectator channel as the protocol does, and each seat's key apart", () => {
    const { router, names } = routerRig();
    expect(router.viewsChannelOf('T1')).toBe(names.viewsChannel('T1'));
    const keys = ['T1', 'T2'].flatMap((t) => [0, 1, 2, 3].map((seat) => SeatRouter.seatKey(t, seat)));
    expect(new Set(keys).size).toBe(8);
    expect(router.spectatorChannelOf('T1')).toBe(names.spectatorChannel('T1'));
  });

  it("sends a seat event to the seat's bound socket as a view frame (its version, the server's time, the view's text), once subscribed", async () => {
    const { router, publisher, clock } = routerRig();
    const a = seated('T1', 0, 'pa');
    await router.add(a.conn, a.conn.binding!);
    expect(router.channels).toBe(1);
    const event = seatEvent('T1', 0, 'pa', 4);
    clock.t = 42_000;
    await publisher.publish(router.viewsChannelOf('T1'), event.text);
    await waitFor(() => a.socket.sent.length === 1, 1000, 'the view');
    expect(a.socket.sent).toEqual([viewFrameText(4, 42_000, event.viewJson)]);
    expect(a.conn.lastVersion).toBe(4);
  });

  it("one subscription per table: a second socket of the seat shares it, the channel is left when the seat's last socket goes", async () => {
    const { router, publisher, subscribers } = routerRig();
    const a = seated('T2', 1, 'pb', 'one');
    const b = seated('T2', 1, 'pb', 'two');
    const channel = router.viewsChannelOf(a.conn.binding!.tableId);
    await router.add(a.conn, a.conn.binding!);
    await router.add(b.conn, b.conn.binding!);
    expect(router.channels).toBe(1);
    expect(await subscribers(channel)).toBe(1);
    router.remove(a.conn, a.conn.binding!);
    router.remove(a.conn, a.conn.binding!); // removed already: nothing changes
    expect(router.channels).toBe(1);
    await publisher.publish(channel, seatEvent('T2', 1, 'pb', 1).text);
    await waitFor(() => b.socket.sent.length === 1, 1000, 'the view on the second socket');
    expect(a.socket.sent).toEqual([]);
    router.remove(b.conn, b.conn.binding!);
    expect(router.channels).toBe(0);
    await eventually(async () => (await subscribers(channel)) === 0, 1000, 'the unsubscribe');
    // Bound again: subscribed again.
    await router.add(a.conn, a.conn.binding!);
    expect(await subscribers(channel)).toBe(1);
    expect(router.channels).toBe(1);
  });

  it("every socket of the seat's player gets the view, the first bound as the last", async () => {
    const { router, publisher } = routerRig();
    const sockets = ['s1', 's2', 's3'].map((id) => seated('T14', 3, 'pm', id));
    const channel = router.viewsChannelOf('T14');
    for (const s of sockets) await router.add(s.conn, s.conn.binding!);
    await publisher.publish(channel, seatEvent('T14', 3, 'pm', 1).text);
    await waitFor(() => sockets.every((s) => s.socket.sent.length === 1), 1000, 'the view on every socket');
  });

  it('removing a socket from a channel it was never bound to changes nothing', async () => {
    const { router, subscribers } = routerRig();
    const a = seated('T3', 0, 'pc');
    const other = seated('T3', 0, 'pc', 'other');
    const channel = router.viewsChannelOf(a.conn.binding!.tableId);
    await router.add(a.conn, a.conn.binding!);
    router.remove(other.conn, other.conn.binding!);
    router.remove(other.conn, { tableId: 'T3', seat: 1, key: SeatRouter.seatKey('T3', 1) });
    expect(router.channels).toBe(1);
    expect(await subscribers(channel)).toBe(1);
  });

  it('a view goes only to sockets of the player it was made for, bound to that channel, with a player (the seat changed hands)', async () => {
    const { router, publisher } = routerRig();
    const owner = seated('T4', 0, 'owner');
    const otherPlayer = seated('T4', 0, 'newcomer');
    const noPlayer = seated('T4', 0, 'owner', 'anon');
    noPlayer.conn.player = null;
    const unbound = seated('T4', 0, 'owner', 'unbound');
    const rebound = seated('T4', 0, 'owner', 'rebound');
    const channel = router.viewsChannelOf(owner.conn.binding!.tableId);
    for (const s of [otherPlayer, noPlayer, unbound, rebound, owner])
      await router.add(s.conn, s.conn.binding!);
    unbound.conn.binding = null;
    rebound.conn.binding = { tableId: 'T4', seat: 1, key: SeatRouter.seatKey('T4', 1) };
    await publisher.publish(channel, seatEvent('T4', 0, 'owner', 2).text);
    await waitFor(() => owner.socket.sent.length === 1, 1000, "the owner's view");
    for (const s of [otherPlayer, noPlayer, unbound, rebound]) expect(s.socket.sent).toEqual([]);
  });

  it('skips a view older than the last one sent on the socket; the same version again is sent (a sync)', async () => {
    const { router, publisher } = routerRig();
    const a = seated('T5', 2, 'pd');
    const channel = router.viewsChannelOf(a.conn.binding!.tableId);
    await router.add(a.conn, a.conn.binding!);
    for (const version of [5, 3, 5, 6])
      await publisher.publish(channel, seatEvent('T5', 2, 'pd', version).text);
    await waitFor(() => a.socket.sent.length === 3, 1000, 'three views');
    await publisher.publish(channel, seatEvent('T5', 2, 'pd', 7).text);
    await waitFor(() => a.socket.sent.length === 4, 1000, 'the fourth view');
    expect(a.socket.frames().map((f) => f['version'])).toEqual([5, 5, 6, 7]);
  });

  it("drops a message whose lines do not pair up, a seat event that is not one, and one of another table on this table's channel, each with a warning; the valid part of a message still goes out", async () => {
    const { router, publisher, lines } = routerRig();
    const a = seated('T6', 0, 'pe');
    const channel = router.viewsChannelOf('T6');
    await router.add(a.conn, a.conn.binding!);
    await publisher.publish(channel, 'not json');
    await publisher.publish(channel, `not json\n{}\n${seatEvent('T6', 0, 'pe', 1).text}`);
    await publisher.publish(channel, seatEvent('OTHER', 0, 'pe', 2).text);
    await publisher.publish(channel, seatEvent('T6', 0, 'pe', 3).text);
    await waitFor(() => a.socket.sent.length === 2, 1000, 'the valid views');
    expect(a.socket.frames().map((f) => f['version'])).toEqual([1, 3]);
    const warned = lines.filter((l) => l.level === 40);
    expect(warned.map((l) => l.msg)).toEqual([
      'dropped an invalid views message: its lines do not pair up',
      'dropped an invalid seat event',
      'dropped a seat event published on the wrong channel',
    ]);
    expect(warned[0]).toMatchObject({ channel });
    expect(typeof warned[1]!['reason']).toBe('string');
    expect(warned[2]).toMatchObject({ channel, tableId: 'OTHER', seat: 0 });
  });

  it("one message holding every seat's part: each socket is sent its own seat's part and no other; a seat with no socket here is skipped (decision 0037)", async () => {
    const { router, publisher, subscribers } = routerRig();
    const players = ['p0', 'p1', 'p2', 'p3'];
    const sockets = [0, 2, 3].map((seat) => seated('T15', seat, players[seat]!));
    for (const s of sockets) await router.add(s.conn, s.conn.binding!);
    const channel = router.viewsChannelOf('T15');
    expect(router.channels).toBe(1);
    expect(router.seats).toBe(3);
    expect(await subscribers(channel)).toBe(1);
    const events = players.map((player, seat) => seatEvent('T15', seat, player, 9));
    await publisher.publish(channel, events.map((e) => e.text).join('\n'));
    await waitFor(() => sockets.every((s) => s.socket.sent.length === 1), 1000, 'each seat its view');
    for (const [k, seat] of [0, 2, 3].entries())
      expect(sockets[k]!.socket.sent).toEqual([viewFrameText(9, 1_000_000, events[seat]!.viewJson)]);
    // The table's channel is kept while any of its seats has a socket here.
    router.remove(sockets[0]!.conn, sockets[0]!.conn.binding!);
    router.remove(sockets[1]!.conn, sockets[1]!.conn.binding!);
    expect(router.channels).toBe(1);
    expect(await subscribers(channel)).toBe(1);
    router.remove(sockets[2]!.conn, sockets[2]!.conn.binding!);
    expect(router.channels).toBe(0);
    await eventually(async () => (await subscribers(channel)) === 0, 1000, 'the unsubscribe');
  });

  it('an event on a channel with no socket (left meanwhile) is neither sent nor warned about', async () => {
    const { router, subscriber, lines } = routerRig();
    const a = seated('T7', 0, 'pf');
    const channel = router.viewsChannelOf(a.conn.binding!.tableId);
    await router.add(a.conn, a.conn.binding!);
    router.remove(a.conn, a.conn.binding!);
    // Delivered as if Redis had sent it just before the unsubscribe took effect.
    subscriber.emit('message', channel, 'not json');
    expect(a.socket.sent).toEqual([]);
    expect(lines).toEqual([]);
  });

  it("observes action-to-view latency for an event with a cause (from the intent's sentAt, never negative), and none without", async () => {
    const { router, publisher, clock, metrics, lines } = routerRig();
    const a = seated('T8', 0, 'pg');
    const channel = router.viewsChannelOf(a.conn.binding!.tableId);
    await router.add(a.conn, a.conn.binding!);
    clock.t = 10_000;
    await publisher.publish(channel, seatEvent('T8', 0, 'pg', 1).text);
    await publisher.publish(
      channel,
      seatEvent('T8', 0, 'pg', 2, { cause: { intentId: 'i', sentAt: 9_750 } }).text,
    );
    await publisher.publish(
      channel,
      seatEvent('T8', 0, 'pg', 3, { cause: { intentId: 'j', sentAt: 12_000 } }).text,
    );
    await waitFor(() => a.socket.sent.length === 3, 1000, 'three views');
    const histogram = (await metrics.actionToView.get()).values;
    const count = histogram.find((v) => v.metricName?.endsWith('_count'))!.value;
    const sum = histogram.find((v) => v.metricName?.endsWith('_sum'))!.value;
    expect(count).toBe(2);
    expect(sum).toBeCloseTo(0.25, 6);
    // The event without a cause went out without a failure either.
    expect(lines).toEqual([]);
  });

  it('an event with a trace context is sent as any other (inside its span)', async () => {
    const { router, publisher } = routerRig();
    const a = seated('T9', 0, 'ph');
    const channel = router.viewsChannelOf(a.conn.binding!.tableId);
    await router.add(a.conn, a.conn.binding!);
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const event = seatEvent('T9', 0, 'ph', 1, { traceparent });
    await publisher.publish(channel, event.text);
    await waitFor(() => a.socket.sent.length === 1, 1000, 'the traced view');
    expect(a.socket.sent[0]).toBe(viewFrameText(1, 1_000_000, event.viewJson));
  });

  it("sends a non-seat channel's messages to its listener, never to seats, until unlisten", async () => {
    const { router, publisher, subscribers, names } = routerRig();
    const control = `${names.prefix}:control`;
    const heard: string[] = [];
    await router.listen(control, (message) => heard.push(message));
    expect(await subscribers(control)).toBe(1);
    expect(router.channels).toBe(0);
    await publisher.publish(control, 'hello');
    await waitFor(() => heard.length === 1, 1000, 'the control message');
    expect(heard).toEqual(['hello']);
    router.unlisten(control);
    await eventually(async () => (await subscribers(control)) === 0, 1000, 'the unlisten');
    await publisher.publish(control, 'later');
    router.unlisten(control); // not listening: nothing to undo
    await publisher.publish(control, 'later again');
    expect(heard).toEqual(['hello']);
  });

  it('unlisten of a channel that was never listened to leaves a seat subscription of that name alone', async () => {
    const { router, subscribers } = routerRig();
    const a = seated('T10', 0, 'pi');
    const channel = router.viewsChannelOf(a.conn.binding!.tableId);
    await router.add(a.conn, a.conn.binding!);
    router.unlisten(channel);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await subscribers(channel)).toBe(1);
  });

  it('a listener that throws is logged as a failed delivery, and the router keeps delivering', async () => {
    const { router, publisher, lines, names } = routerRig();
    const a = seated('T13', 0, 'pl');
    await router.add(a.conn, a.conn.binding!);
    const control = `${names.prefix}:control`;
    await router.listen(control, () => {
      throw new Error('listener broke');
    });
    await publisher.publish(control, 'x');
    await waitFor(() => lines.some((l) => l.msg === 'view delivery failed'), 1000, 'the error line');
    const line = lines.find((l) => l.msg === 'view delivery failed')!;
    expect(line).toMatchObject({ level: 50, channel: control });
    expect(line['err']).toMatchObject({ message: 'listener broke' });
    await publisher.publish(router.viewsChannelOf('T13'), seatEvent('T13', 0, 'pl', 1).text);
    await waitFor(() => a.socket.sent.length === 1, 1000, 'a view after the failure');
  });

  it("logs its subscriber's Redis errors as warnings", () => {
    const { subscriber, lines } = routerRig();
    subscriber.emit('error', new Error('connection reset'));
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, msg: 'view subscriber: Redis error', err: 'connection reset' }),
    ]);
  });

  it('close forgets every channel and quits its subscriber', async () => {
    const { router, subscriber, names } = routerRig();
    const a = seated('T11', 0, 'pj');
    await router.add(a.conn, a.conn.binding!);
    await router.listen(`${names.prefix}:control`, () => undefined);
    await router.close();
    expect(router.channels).toBe(0);
    await waitFor(() => subscriber.status === 'end', 1000, 'the subscriber ended');
    await router.close(); // a second close does not throw
  });

  it('an unsubscribe that fails (the subscriber is gone) is logged as a warning', async () => {
    const { router, subscriber, lines, names } = routerRig();
    const a = seated('T12', 0, 'pk');
    const channel = router.viewsChannelOf(a.conn.binding!.tableId);
    await router.add(a.conn, a.conn.binding!);
    const control = `${names.prefix}:control`;
    await router.listen(control, () => undefined);
    subscriber.disconnect();
    await waitFor(() => subscriber.status === 'end', 1000, 'the disconnect');
    router.remove(a.conn, a.conn.binding!);
    router.unlisten(control);
    await waitFor(
      () => lines.filter((l) => l.msg === 'unsubscribe failed').length === 2,
      3000,
      'two warnings',
    );
    const warned = lines.filter((l) => l.msg === 'unsubscribe failed');
    expect(warned.map((l) => l['channel'])).toEqual([channel, control]);
    expect(warned.every((l) => l.level === 40 && typeof l['err'] === 'string')).toBe(true);
  });
});

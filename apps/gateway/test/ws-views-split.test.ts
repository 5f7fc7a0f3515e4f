import { redisNames, type DominoesClient, type SeatEvent, type TableView } from '@dominoes/protocol';
import type { GatewayApp } from '../src/gateway-app';
import {
  FakeTableService,
  SHARDS,
  collectViews,
  connectClient,
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
 * Decision 0027: one message per change carries every seat's view on the table's views channel;
 * each gateway splits it, and a seat's view reaches only the sockets bound to that seat (another
 * seat's view would show its hidden tiles). Two gateways on one Redis, sockets of different seats
 * on each; and a gateway holds the table's subscription exactly while it has a socket bound to a
 * seat of the table.
 */
const prefix = uniquePrefix('gw_split');
const names = redisNames(prefix, SHARDS);
const TABLE = 'KQ7MZPR2T4VZ';
let gateways: GatewayApp[] = [];
let fake: FakeTableService;
const players: Record<string, { token: string; playerId: string }> = {};
const seatOf: Record<string, number> = {};
const clients: DominoesClient[] = [];

const connect = (gateway: GatewayApp, name: string): Promise<DominoesClient> =>
  connectClient(`ws://127.0.0.1:${gateway.port}/ws`, players[name]!.token, clients);
const collect = collectViews;

/** The change's views of every seat, each its own (a hand of its own in `game` would be the secret). */
function change(version: number): SeatEvent[] {
  return ['Ana', 'Bruno', 'Caio', 'Dora'].map((name, seat) => ({
    tableId: TABLE,
    seat,
    version,
    view: { ...viewFor(TABLE, seat, players[name]!.playerId), target: 100 + seat },
    cause: { intentId: `change-${version}`, sentAt: Date.now() },
  }));
}

const subscribers = () => fake.numsub(names.viewsChannel(TABLE));

beforeAll(async () => {
  fake = new FakeTableService(prefix);
  await fake.start();
  fake.respond = (envelope) => ({
    ok: true,
    intentId: envelope.intentId,
    version: 1,
    seat: envelope.intent.kind === 'join' ? (seatOf[envelope.player!.id] ?? null) : null,
  });
  gateways = [
    await startTestGateway(testConfig(prefix, { GATEWAY_ID: `gw-a-${prefix.slice(-6)}` })),
    await startTestGateway(testConfig(prefix, { GATEWAY_ID: `gw-b-${prefix.slice(-6)}` })),
  ];
  const base = `http://127.0.0.1:${gateways[0]!.port}`;
  for (const [seat, name] of ['Ana', 'Bruno', 'Caio', 'Dora'].entries()) {
    players[name] = await identity(base, name);
    seatOf[players[name]!.playerId] = seat;
  }
}, 30_000);

afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

afterAll(async () => {
  for (const gateway of gateways) await gateway.shutdown();
  await fake?.stop();
});

it("one message with every seat's views: on two gateways, each socket gets exactly its own seat's view, never another seat's", async () => {
  const [a, b] = gateways as [GatewayApp, GatewayApp];
  // Gateway A: Ana (seat 0) and Bruno (seat 1). Gateway B: Caio (seat 2) and Ana's second socket.
  // Dora (seat 3) has no socket anywhere.
  const sockets = {
    anaOnA: await connect(a, 'Ana'),
    brunoOnA: await connect(a, 'Bruno'),
    caioOnB: await connect(b, 'Caio'),
    anaOnB: await connect(b, 'Ana'),
  };
  const seen = Object.fromEntries(Object.entries(sockets).map(([k, c]) => [k, collect(c)])) as Record<
    keyof typeof sockets,
    { view: TableView; version: number }[]
  >;
  await Promise.all(Object.values(sockets).map((c) => c.join(TABLE)));
  expect(await subscribers()).toBe(2); // one subscription per gateway, whatever its seats

  const views = change(5);
  await fake.publishViews(prefix, ...views);
  await waitFor(() => Object.values(seen).every((s) => s.length === 1), 2000, 'every socket its view');
  await sleep(100); // nothing else arrives
  expect(seen.anaOnA).toEqual([{ view: views[0]!.view, version: 5 }]);
  expect(seen.brunoOnA).toEqual([{ view: views[1]!.view, version: 5 }]);
  expect(seen.caioOnB).toEqual([{ view: views[2]!.view, version: 5 }]);
  expect(seen.anaOnB).toEqual([{ view: views[0]!.view, version: 5 }]);

  // A message listing fewer seats reaches only those seats' sockets.
  await fake.publishViews(prefix, change(6)[2]!);
  await waitFor(() => seen.caioOnB.length === 2, 2000, "Caio's next view");
  await sleep(100);
  expect(seen.caioOnB.map((v) => v.version)).toEqual([5, 6]);
  for (const k of ['anaOnA', 'brunoOnA', 'anaOnB'] as const) expect(seen[k]).toHaveLength(1);

  // A view of seat 0 made for another player (the seat changed hands) reaches no socket of seat 0.
  await fake.publishViews(prefix, { ...change(7)[0]!, view: viewFor(TABLE, 0, players['Dora']!.playerId) });
  await sleep(200);
  expect(seen.anaOnA).toHaveLength(1);
  expect(seen.anaOnB).toHaveLength(1);
});

it("a gateway unsubscribes from the table when its last socket bound to any of the table's seats goes, not before", async () => {
  const [a, b] = gateways as [GatewayApp, GatewayApp];
  await eventually(async () => (await subscribers()) === 0, 2000, 'the previous test’s sockets gone');
  const anaOnA = await connect(a, 'Ana');
  const brunoOnA = await connect(a, 'Bruno');
  const caioOnB = await connect(b, 'Caio');
  const anaOnB = await connect(b, 'Ana');
  await Promise.all([anaOnA, brunoOnA, caioOnB, anaOnB].map((c) => c.join(TABLE)));
  expect(await subscribers()).toBe(2);

  /** `gone` closes; `stays` (bound to `seat`) keeps its gateway subscribed and still gets its view. */
  const keptAfter = async (
    gone: DominoesClient,
    stays: DominoesClient,
    seat: number,
    subscriptions: number,
  ) => {
    gone.close();
    await sleep(300);
    expect(await subscribers()).toBe(subscriptions);
    const views = collect(stays);
    await fake.publishViews(prefix, ...change(10 + seat));
    await waitFor(() => views.length === 1, 2000, `seat ${seat}'s view after the other socket left`);
    expect(views[0]!.view.you.seat).toBe(seat);
    return views;
  };

  // B: Ana's socket of seat 0 goes; Caio of seat 2 is still bound there, so B keeps the table.
  const caioViews = await keptAfter(anaOnB, caioOnB, 2, 2);

  // B's last bound socket leaves its seat (still connected): B unsubscribes, A stays.
  await caioOnB.leave();
  await eventually(async () => (await subscribers()) === 1, 2000, "B's unsubscribe");

  // A: seat 0's socket closes, seat 1's is still bound: A keeps the table.
  await keptAfter(anaOnA, brunoOnA, 1, 1);
  await sleep(100);
  expect(caioViews).toHaveLength(1); // unbound: nothing more

  // A's last bound socket closes: nobody subscribes to the table any more.
  brunoOnA.close();
  await eventually(async () => (await subscribers()) === 0, 2000, "A's unsubscribe");
});

import { createLogger, createPrisma, createRedis, type PrismaClient, type Redis } from '@dominoes/platform';
import {
  parseConnectionId,
  redisNames,
  type IntentEnvelope,
  type RedisNames,
  type TableIntent,
  type TableView,
} from '@dominoes/protocol';
import { RULE_DURATIONS } from '@dominoes/rules';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { readConfig } from '../src/config';
import { StaleConnectionSweeper } from '../src/presence/stale-connections';
import { DEFAULT_TABLE_LIMITS } from '../src/table/table-policy';
import { TableEngine, type DeadlineScheduler } from '../src/table/table-engine';
import type { TableState } from '../src/table/table-state';
import { RedisSeatPublisher } from '../src/table/seat-publisher';
import { TableStore } from '../src/table/table-store';

/** A gateway's boot epoch: its connection ids are `<gatewayId>:<EPOCH + n>`. */
const EPOCH = 1_700_000_000_000;
const GRACE_MS = 10_000;

describe('parseConnectionId', () => {
  it('reads `<gatewayId>:<seq>` as the gateway makes it and leaves anything else alone', () => {
    expect(parseConnectionId('gw-1.a_b:1700000000001')).toEqual({
      gatewayId: 'gw-1.a_b',
      seq: 1_700_000_000_001,
    });
    for (const other of ['c0', 'gw:', ':12', 'gw:12:closed', 'gw:1e5', 'g w:12', `${'g'.repeat(65)}:1`]) {
      expect(parseConnectionId(other)).toBeNull();
    }
  });
});

describe('stale-connection settings', () => {
  it('PRESENCE_SWEEP_MS and GATEWAY_GONE_GRACE_MS default to 2 s and 10 s and refuse what is not a whole number in range', () => {
    expect(readConfig({})).toMatchObject({ presenceSweepMs: 2000, gatewayGoneGraceMs: 10_000 });
    expect(readConfig({ PRESENCE_SWEEP_MS: '500', GATEWAY_GONE_GRACE_MS: '0' })).toMatchObject({
      presenceSweepMs: 500,
      gatewayGoneGraceMs: 0,
    });
    expect(() => readConfig({ PRESENCE_SWEEP_MS: '0' })).toThrow(/PRESENCE_SWEEP_MS/);
    expect(() => readConfig({ GATEWAY_GONE_GRACE_MS: '-1' })).toThrow(/GATEWAY_GONE_GRACE_MS/);
    expect(() => readConfig({ GATEWAY_GONE_GRACE_MS: '10s' })).toThrow(/GATEWAY_GONE_GRACE_MS/);
  });
});

describe('stale connections: seats of a gateway that died without closing its sockets (P17), on real Postgres and Redis', () => {
  let stores: TestStores;
  let prisma: PrismaClient;
  let redis: Redis;
  let subscriber: Redis;
  let names: RedisNames;
  let engine: TableEngine;
  /** One clock for the engine (deadlines) and the sweeper (the grace). */
  let now = Date.now();
  const clock = { now: () => now };
  const deadlines: DeadlineScheduler = { schedule: async () => undefined };
  const logger = createLogger('test', 'silent');
  let n = 0;

  const playerOf = (i: number) => ({ id: `00000000-0000-4000-8000-0000000000${10 + i}`, name: `P${i}` });
  const envelope = (
    tableId: string,
    i: number,
    intent: TableIntent,
    connectionId: string | null,
    intentId = `s${++n}`,
  ): IntentEnvelope => ({
    intentId,
    tableId,
    player: playerOf(i),
    connectionId,
    replyTo: null,
    sentAt: now,
    intent,
  });
  const sweeper = (
    owns: (tableId: string) => boolean = () => true,
    graceMs = GRACE_MS,
    intervalMs = 60_000,
  ) => new StaleConnectionSweeper({ engine, redis, names, clock, logger, owns, graceMs, intervalMs });
  /** A sweeper with no grace, sweeping every 20 ms once started. */
  const ticking = () => sweeper(() => true, 0, 20);
  /** What a live gateway does every few seconds. */
  const beat = (gatewayId: string, epoch = EPOCH) =>
    redis.set(names.gatewayAlive(gatewayId), String(epoch), 'PX', 600_000);

  /** Four players, player i on socket connectionOf(i); the 4th arrival starts the match. */
  async function playingTable(tableId: string, connectionOf: (i: number) => string): Promise<TableState> {
    const created = await engine.handle(
      envelope(tableId, 0, { kind: 'create', config: { variant: 'partnership' } }, connectionOf(0)),
    );
    expect(created).toMatchObject({ ok: true, seat: 0 });
    for (const i of [1, 2, 3]) {
      expect(await engine.handle(envelope(tableId, i, { kind: 'join' }, connectionOf(i)))).toMatchObject({
        ok: true,
        seat: i,
      });
    }
    const table = (await engine.load(tableId))!;
    expect(table.status).toBe('playing');
    return table;
  }
  const connections = async (tableId: string) =>
    (await engine.load(tableId))!.seats.map((s) => s!.connections);

  beforeAll(async () => {
    stores = await createTestStores('stale_conn');
    prisma = createPrisma(stores.databaseUrl, 4);
    redis = createRedis(stores.redisUrl, 'stale-connections-test');
    subscriber = createRedis(stores.redisUrl, 'stale-connections-test-sub');
    names = redisNames(stores.redisPrefix);
  });
  // An engine per test: its cache (what the sweeper looks at) holds only that test's table.
  beforeEach(() => {
    engine = new TableEngine({
      store: new TableStore(prisma),
      publisher: new RedisSeatPublisher(redis, names),
      clock,
      durations: RULE_DURATIONS,
      deadlines,
      logger,
      // Player 0 hosts one playing table per test: more than MAX_OPEN_TABLES_PER_HOST's default.
      limits: { ...DEFAULT_TABLE_LIMITS, maxOpenTablesPerHost: 100 },
    });
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    redis?.disconnect();
    subscriber?.disconnect();
    await stores?.dispose();
  });

  it("P17: a gateway's heartbeat missing for the grace: its socket's seat is disconnected by the gateway's own `:closed` presence intent, stored and published, and the seat's running 45 s turn drops to 5 s", async () => {
    const tableId = 'GONE01';
    const conn = (i: number) => `gone-gw${i}:${EPOCH + 1 + i}`;
    const table = await playingTable(tableId, conn);
    const turn = table.match!.round!.turn;
    expect(table.deadline).toMatchObject({ kind: 'turn', seat: turn, at: now + RULE_DURATIONS.turnMs });
    // Every gateway beats but the one holding the socket of the seat whose turn it is.
    for (const i of [0, 1, 2, 3]) if (i !== turn) await beat(`gone-gw${i}`);
    const watcher = (turn + 1) % 4;
    const views: TableView[] = [];
    subscriber.on('message', (_channel: string, message: string) =>
      views.push(JSON.parse(message.slice(message.indexOf('\n') + 1)) as TableView),
    );
    await subscriber.subscribe(names.seatChannel(tableId, watcher));

    const s = sweeper();
    expect(await s.sweep()).toBe(0);
    now += GRACE_MS - 1;
    expect(await s.sweep()).toBe(0);
    expect((await connections(tableId))[turn]).toEqual([conn(turn)]);

    now += 1;
    expect(await s.sweep()).toBe(1);
    const after = (await engine.load(tableId))!;
    expect(after.seats.map((seat) => seat!.connections)).toEqual(
      [0, 1, 2, 3].map((i) => (i === turn ? [] : [conn(i)])),
    );
    // P17: min(current deadline, disconnect time + 5 s).
    expect(after.deadline).toMatchObject({
      kind: 'turn',
      seat: turn,
      at: now + RULE_DURATIONS.disconnectedTurnMs,
    });
    const stored = await prisma.tableAction.findMany({
      where: { tableId, intentId: `${conn(turn)}:closed` },
    });
    expect(stored.map((row) => row.kind)).toEqual(['presence']);
    for (let i = 0; i < 100 && !views.some((v) => v.seats[turn]?.connected === false); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const published = views.find((v) => v.seats[turn]?.connected === false);
    expect(published?.clock).toMatchObject({ seat: turn, deadline: now + RULE_DURATIONS.disconnectedTurnMs });
    expect(published?.seats.filter((seat) => seat?.connected)).toHaveLength(3);

    // The gateway's own note, had it come late, is the same intent: applied at most once.
    const late = await engine.handle(
      envelope(tableId, turn, { kind: 'presence', connected: false }, conn(turn), `${conn(turn)}:closed`),
    );
    expect(late).toMatchObject({ ok: true, version: after.version });
    // Nothing is left to close.
    now += GRACE_MS;
    expect(await s.sweep()).toBe(0);
  });

  it('a heartbeat missing for less than the grace closes nothing (a restarted, empty Redis until the gateways beat again); the grace starts over once the key is back', async () => {
    const tableId = 'BLIP01';
    const conn = (i: number) => `blip-gw${i % 2}:${EPOCH + 1 + i}`;
    await playingTable(tableId, conn);
    const s = sweeper();
    expect(await s.sweep()).toBe(0);
    now += GRACE_MS - 1;
    expect(await s.sweep()).toBe(0);
    // The gateways beat again: they were alive all along.
    await beat('blip-gw0');
    await beat('blip-gw1');
    expect(await s.sweep()).toBe(0);
    // Missing again: a new grace, not the rest of the old one.
    await redis.del(names.gatewayAlive('blip-gw0'), names.gatewayAlive('blip-gw1'));
    now += 1;
    expect(await s.sweep()).toBe(0);
    now += GRACE_MS - 1;
    expect(await s.sweep()).toBe(0);
    expect(await connections(tableId)).toEqual([0, 1, 2, 3].map((i) => [conn(i)]));
  });

  it('a gateway that restarted under the same id (a larger epoch in its key): the connections of its previous life are closed at once, those it made since are kept', async () => {
    const tableId = 'REBO01';
    const conn = (i: number) => (i < 2 ? `rebooted-gw:${EPOCH + 1 + i}` : `steady-gw:${EPOCH + 1 + i}`);
    await playingTable(tableId, conn);
    await beat('steady-gw');
    // It comes back at EPOCH + 1000; player 1 reconnected through it before the sweep.
    const reborn = EPOCH + 1000;
    await beat('rebooted-gw', reborn);
    const fresh = `rebooted-gw:${reborn + 1}`;
    expect(await engine.handle(envelope(tableId, 1, { kind: 'join' }, fresh))).toMatchObject({
      ok: true,
      seat: 1,
    });

    expect(await sweeper().sweep()).toBe(2);
    expect(await connections(tableId)).toEqual([[], [fresh], [conn(2)], [conn(3)]]);
    const view = (await engine.load(tableId))!;
    expect(view.seats.map((seat) => seat!.connections.length > 0)).toEqual([false, true, true, true]);
  });

  it("live gateways' connections are left alone, and so are tables of shards this replica does not own (until it owns them)", async () => {
    const live = 'LIVE01';
    const liveConn = (i: number) => `live-gw${i % 2}:${EPOCH + 1 + i}`;
    await playingTable(live, liveConn);
    await beat('live-gw0');
    await beat('live-gw1');
    const other = 'ELSE01';
    const otherConn = (i: number) => `elsewhere-gw:${EPOCH + 1 + i}`;
    await playingTable(other, otherConn);

    let owned = false;
    const s = sweeper((tableId) => tableId !== other || owned);
    for (let i = 0; i < 4; i++) {
      expect(await s.sweep()).toBe(0);
      now += GRACE_MS;
    }
    expect(await connections(live)).toEqual([0, 1, 2, 3].map((i) => [liveConn(i)]));
    expect(await connections(other)).toEqual([0, 1, 2, 3].map((i) => [otherConn(i)]));

    // The shard is taken by this replica: the grace runs from when it first sees the gateway missing.
    owned = true;
    expect(await s.sweep()).toBe(0);
    now += GRACE_MS;
    expect(await s.sweep()).toBe(4);
    expect(await connections(other)).toEqual([[], [], [], []]);
    expect(await connections(live)).toEqual([0, 1, 2, 3].map((i) => [liveConn(i)]));
  });

  it('start() sweeps every interval and stop() ends it', async () => {
    const tableId = 'TICK01';
    const conn = (i: number) => `tick-gw:${EPOCH + 1 + i}`;
    await playingTable(tableId, conn);
    const s = ticking();
    s.start();
    try {
      for (let i = 0; i < 250 && (await connections(tableId)).some((c) => c.length > 0); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await s.stop();
    }
    expect(await connections(tableId)).toEqual([[], [], [], []]);
  });

  it('a seat connection id that is not a gateway socket’s is left alone and does not stop the sweep; a shard lost between the read and the close keeps its connections (the new owner closes them)', async () => {
    const tableId = 'ODD001';
    const conn = (i: number) => (i === 0 ? 'not-a-gateway-socket' : `odd-gw:${EPOCH + 1 + i}`);
    await playingTable(tableId, conn);
    // Owned while the sweep reads the seats, lost by the time it closes them.
    let reads = 0;
    const s = sweeper(() => ++reads <= 1);
    expect(await s.sweep()).toBe(0);
    now += GRACE_MS;
    reads = 0;
    expect(await s.sweep()).toBe(0);
    expect(await connections(tableId)).toEqual([0, 1, 2, 3].map((i) => [conn(i)]));
    // Owned throughout: the gone gateway's three sockets are closed, the odd one stays.
    const owner = sweeper();
    expect(await owner.sweep()).toBe(0);
    now += GRACE_MS;
    expect(await owner.sweep()).toBe(3);
    expect(await connections(tableId)).toEqual([['not-a-gateway-socket'], [], [], []]);
  });

  it('stop() ends the sweeps for good: a gateway gone after it closes nothing', async () => {
    const tableId = 'STOP01';
    const conn = (i: number) => `stop-gw:${EPOCH + 1 + i}`;
    await playingTable(tableId, conn);
    const s = ticking();
    s.start();
    await s.stop();
    s.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(await connections(tableId)).toEqual([0, 1, 2, 3].map((i) => [conn(i)]));
  });
});

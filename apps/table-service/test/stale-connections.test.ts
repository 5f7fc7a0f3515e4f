import { createLogger, createPrisma, createRedis, type PrismaClient, type Redis } from '@dominoes/platform';
import {
  parseConnectionId,
  redisNames,
  SeatEventReader,
  type IntentEnvelope,
  type IntentReply,
  type RedisNames,
  type TableIntent,
  type TableView,
} from '@dominoes/protocol';
import { RULE_DURATIONS } from '@dominoes/rules';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { readConfig } from '../src/config';
import {
  StaleConnectionSweeper,
  type StaleConnectionOptions,
  type SweptEngine,
} from '../src/presence/stale-connections';
import { DEFAULT_TABLE_LIMITS } from '../src/table/table-policy';
import { TableEngine, type DeadlineScheduler } from '../src/table/table-engine';
import type { TableState } from '../src/table/table-state';
import { tableView } from '../src/table/table-views';
import { RedisSeatPublisher } from '../src/table/seat-publisher';
import { TableStore } from '../src/table/table-store';
import { sleep } from './support/until';

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
    more: Partial<StaleConnectionOptions> = {},
  ) =>
    new StaleConnectionSweeper({ engine, redis, names, clock, logger, owns, graceMs, intervalMs, ...more });
  /** A sweeper with no grace (a sweep every 20 ms once started) logging into `lines`, with `more`. */
  const recorded = (more: Partial<StaleConnectionOptions> = {}) => {
    const { logger: recording, lines } = recordingLogger();
    return { s: sweeper(() => true, 0, 20, { logger: recording, ...more }), lines };
  };
  /**
   * The test's engine as the sweeper sees it, counting its calls (and the closes under way at once):
   * `tables` runs before each read of the cached tables, `before` before each close is handed on,
   * to `handle` (the test's engine unless given).
   */
  const seen = (
    hooks: {
      tables?: () => void;
      before?: (envelope: IntentEnvelope) => Promise<unknown> | void;
      handle?: (envelope: IntentEnvelope) => Promise<IntentReply>;
    } = {},
  ) => {
    const calls = { tables: 0, handles: 0, inFlight: 0, peak: 0 };
    const swept: SweptEngine = {
      cachedTables: () => {
        calls.tables++;
        hooks.tables?.();
        return engine.cachedTables();
      },
      handle: async (e) => {
        calls.handles++;
        calls.peak = Math.max(calls.peak, ++calls.inFlight);
        try {
          await hooks.before?.(e);
          return await (hooks.handle ?? ((x: IntentEnvelope) => engine.handle(x)))(e);
        } finally {
          calls.inFlight--;
        }
      },
    };
    return { swept, calls };
  };
  /** Waits (polling every 20 ms, 5 s at most) until `condition` holds. */
  const waitFor = async (condition: () => boolean | Promise<boolean>) => {
    for (let i = 0; i < 250 && !(await condition()); i++) await sleep(20);
  };
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
  const engineOn = (store: TableStore) =>
    new TableEngine({
      store,
      publisher: new RedisSeatPublisher(redis, names),
      clock,
      durations: RULE_DURATIONS,
      deadlines,
      logger,
      // Player 0 hosts one playing table per test: more than MAX_OPEN_TABLES_PER_HOST's default.
      limits: { ...DEFAULT_TABLE_LIMITS, maxOpenTablesPerHost: 100 },
    });
  // An engine per test: its cache (what the sweeper looks at) holds only that test's table.
  beforeEach(() => {
    engine = engineOn(new TableStore(prisma));
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
    // The watcher's socket holds the seat's view now; what is published next is a change of it (decision 0036).
    const reader = new SeatEventReader();
    reader.hold({ tableId, seat: watcher, version: table.version, view: tableView(table, watcher) });
    subscriber.on('message', (_channel: string, message: string) =>
      views.push(...reader.readAll(message, [watcher]).map((event) => event.view)),
    );
    await subscriber.subscribe(names.viewsChannel(tableId));

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

  it("a waiting table's empty seats are passed over: its host's socket on a gone gateway is closed, and the sweep logs the gateway gone (warn), each close (debug) and the count (info)", async () => {
    const tableId = 'WAIT01';
    const conn = `wait-gw:${EPOCH + 1}`;
    const created = await engine.handle(
      envelope(tableId, 0, { kind: 'create', config: { variant: 'partnership' } }, conn),
    );
    expect(created).toMatchObject({ ok: true, seat: 0 });
    const { logger: recording, lines } = recordingLogger();
    const s = sweeper(() => true, GRACE_MS, 60_000, { logger: recording });
    expect(await s.sweep()).toBe(0);
    expect(lines).toEqual([]);
    now += GRACE_MS;
    expect(await s.sweep()).toBe(1);
    const after = (await engine.load(tableId))!;
    expect(after.seats.map((seat) => seat?.connections ?? null)).toEqual([[], null, null, null]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'gateway heartbeat gone: closing its connections',
        gatewayId: 'wait-gw',
        missingMs: GRACE_MS,
        connections: 1,
      }),
      expect.objectContaining({
        level: 20,
        msg: 'stale connection closed',
        tableId,
        seat: 0,
        conn,
        gatewayId: 'wait-gw',
        reason: 'gateway-gone',
        version: after.version,
      }),
      expect.objectContaining({ level: 30, msg: 'stale connections closed', closed: 1, stale: 1 }),
    ]);
  });

  it('a restarted gateway closes only the connections numbered below its new epoch (one numbered at it is kept), as gateway-restarted; a heartbeat that is not a finite number closes nothing', async () => {
    const tableId = 'EPOC01';
    const reborn = EPOCH + 500;
    const conn = (i: number) =>
      i === 0 ? `epoch-gw:${reborn - 1}` : i === 1 ? `epoch-gw:${reborn}` : `odd-beat-gw:${EPOCH + i}`;
    await playingTable(tableId, conn);
    await beat('epoch-gw', reborn);
    await redis.set(names.gatewayAlive('odd-beat-gw'), 'Infinity', 'PX', 600_000);
    const { logger: recording, lines } = recordingLogger();
    const s = sweeper(() => true, GRACE_MS, 60_000, { logger: recording });
    expect(await s.sweep()).toBe(1);
    now += GRACE_MS;
    expect(await s.sweep()).toBe(0);
    expect(await connections(tableId)).toEqual([[], [conn(1)], [conn(2)], [conn(3)]]);
    expect(lines.filter((l) => l.msg === 'stale connection closed')).toEqual([
      expect.objectContaining({ seat: 0, conn: conn(0), gatewayId: 'epoch-gw', reason: 'gateway-restarted' }),
    ]);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });

  it('a gateway that no seat names any more is forgotten: named again later while still missing, it gets a whole new grace', async () => {
    const tableId = 'FORG01';
    const conn = (i: number) => (i === 0 ? `forgot-gw:${EPOCH + 1}` : `forgot-live:${EPOCH + 1 + i}`);
    await playingTable(tableId, conn);
    await beat('forgot-live');
    const s = sweeper();
    expect(await s.sweep()).toBe(0);
    // Its one socket closes the ordinary way: the gateway said so before it went.
    const closed = envelope(tableId, 0, { kind: 'presence', connected: false }, conn(0), `${conn(0)}:closed`);
    expect(await engine.handle(closed)).toMatchObject({ ok: true });
    now += GRACE_MS / 2;
    expect(await s.sweep()).toBe(0);
    // Player 0 comes back through the same gateway id, its heartbeat still missing.
    const back = `forgot-gw:${EPOCH + 9}`;
    expect(await engine.handle(envelope(tableId, 0, { kind: 'join' }, back))).toMatchObject({
      ok: true,
      seat: 0,
    });
    now += GRACE_MS / 2;
    // The first grace would end here; the new one has just begun.
    expect(await s.sweep()).toBe(0);
    expect((await connections(tableId))[0]).toEqual([back]);
    now += GRACE_MS;
    expect(await s.sweep()).toBe(1);
    expect((await connections(tableId))[0]).toEqual([]);
  });

  it('stop() during a sweep: one stopped while it reads the heartbeats closes nothing and logs nothing; one stopped during its closes hands the engine no further close', async () => {
    const tableId = 'HALT01';
    const conn = (i: number) => `halt-gw:${EPOCH + 1 + i}`;
    await playingTable(tableId, conn);
    const first = recorded();
    const sweep = first.s.sweep();
    await first.s.stop();
    expect(await sweep).toBe(0);
    expect(first.lines).toEqual([]);
    expect(await connections(tableId)).toEqual([0, 1, 2, 3].map((i) => [conn(i)]));

    // One close at a time; stopped as the first is handed to the engine.
    const hold: { s?: StaleConnectionSweeper } = {};
    const { swept, calls } = seen({ before: () => void hold.s!.stop() });
    const second = recorded({ engine: swept, concurrency: 1 });
    hold.s = second.s;
    expect(await second.s.sweep()).toBe(1);
    expect(calls.handles).toBe(1);
    expect((await connections(tableId)).filter((c) => c.length === 0)).toHaveLength(1);
    expect(second.lines.at(-1)).toMatchObject({ msg: 'stale connections closed', closed: 1, stale: 4 });
  });

  it('the closes run `concurrency` at a time, 8 by default; a concurrency under 1 is one at a time', async () => {
    const tableId = 'CONC01';
    let life = 0;
    const conn = (i: number) => `conc-gw:${EPOCH + 1 + i + 10 * life}`;
    await playingTable(tableId, conn);
    for (const [concurrency, peak] of [
      [2, 2],
      [0, 1],
      [undefined, 4],
    ] as const) {
      const { swept, calls } = seen();
      expect(await sweeper(() => true, 0, 60_000, { engine: swept, concurrency }).sweep()).toBe(4);
      expect(calls.peak).toBe(peak);
      expect(await connections(tableId)).toEqual([[], [], [], []]);
      // The four come back, through the same (still gone) gateway.
      life++;
      for (const i of [0, 1, 2, 3]) await engine.handle(envelope(tableId, i, { kind: 'join' }, conn(i)));
    }
  });

  it('a close the engine refuses (the player left meanwhile) or fails (its store is down) is logged and not counted; a failed one is tried again at the next sweep', async () => {
    const tableId = 'REFU01';
    const hostConn = `refuse-live:${EPOCH + 1}`;
    const goneConn = `refuse-gw:${EPOCH + 2}`;
    await engine.handle(
      envelope(tableId, 0, { kind: 'create', config: { variant: 'partnership' } }, hostConn),
    );
    await beat('refuse-live');
    expect(await engine.handle(envelope(tableId, 1, { kind: 'join' }, goneConn))).toMatchObject({
      ok: true,
      seat: 1,
    });
    const leaving = seen({ before: () => engine.handle(envelope(tableId, 1, { kind: 'leave' }, goneConn)) });
    const refused = recorded({ engine: leaving.swept });
    expect(await refused.s.sweep()).toBe(0);
    expect(refused.lines.filter((l) => l.msg.startsWith('stale connection not'))).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'stale connection not closed; trying again next sweep',
        tableId,
        seat: 1,
        conn: goneConn,
        gatewayId: 'refuse-gw',
        reason: 'gateway-gone',
        code: 'NOT_SEATED',
      }),
    ]);
    expect(refused.lines.at(-1)).toMatchObject({ msg: 'stale connections closed', closed: 0, stale: 1 });

    // The host's gateway goes; the engine that closes is one whose Postgres database does not exist.
    await redis.del(names.gatewayAlive('refuse-live'));
    const missing = createPrisma(stores.databaseUrl.replace(/\/[^/?]+(\?|$)/, '/no_such_database$1'), 1);
    try {
      const broken = engineOn(new TableStore(missing));
      const failing = seen({ handle: (e) => broken.handle(e) });
      const failed = recorded({ engine: failing.swept });
      expect(await failed.s.sweep()).toBe(0);
      expect(failing.calls.handles).toBe(1);
      expect(failed.lines.filter((l) => l.msg.startsWith('stale connection not'))).toEqual([
        expect.objectContaining({
          level: 50,
          msg: 'stale connection not closed; trying again next sweep',
          tableId,
          seat: 0,
          conn: hostConn,
          reason: 'gateway-gone',
          err: expect.objectContaining({ message: expect.any(String) }),
        }),
      ]);
      expect((await engine.load(tableId))!.seats[0]!.connections).toEqual([hostConn]);
      expect(await recorded().s.sweep()).toBe(1);
      expect((await engine.load(tableId))!.seats[0]!.connections).toEqual([]);
    } finally {
      await missing.$disconnect();
    }
  });

  it('start(): a sweep that fails is logged and the next interval sweeps again; its timer does not hold the process open', async () => {
    const tableId = 'FAIL01';
    const conn = (i: number) => `fail-gw:${EPOCH + 1 + i}`;
    await playingTable(tableId, conn);
    const { swept, calls } = seen({
      tables: () => {
        if (calls.tables === 1) throw new Error('cache unreadable');
      },
    });
    const { s, lines } = recorded({ engine: swept });
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    s.start();
    expect(timers()).toBe(before);
    try {
      await waitFor(async () => (await connections(tableId)).every((c) => c.length === 0));
    } finally {
      await s.stop();
    }
    expect(await connections(tableId)).toEqual([[], [], [], []]);
    expect(calls.tables).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: 'stale-connection sweep failed',
      err: expect.objectContaining({ message: 'cache unreadable' }),
    });
  });

  it('start() twice still sweeps on one timer, which stop() ends; a sweep that fails after stop() is not logged', async () => {
    const tableId = 'TWIC01';
    await playingTable(tableId, (i) => `twice-gw:${EPOCH + 1 + i}`);
    const idle = seen();
    const twice = recorded({ engine: idle.swept });
    twice.s.start();
    twice.s.start();
    await twice.s.stop();
    await sleep(200);
    expect(idle.calls.tables).toBe(0);

    // Its Redis client closed: the heartbeats' read fails, after stop() was called.
    const closed = createRedis(stores.redisUrl, 'stale-connections-closed');
    closed.disconnect();
    const hold: { s?: StaleConnectionSweeper } = {};
    const stopping = seen({ tables: () => void hold.s!.stop() });
    const late = recorded({ engine: stopping.swept, redis: closed });
    hold.s = late.s;
    late.s.start();
    await waitFor(() => stopping.calls.tables > 0);
    await late.s.stop();
    expect(stopping.calls.tables).toBe(1);
    expect(late.lines).toEqual([]);
  });

  it('stop() waits for the sweep under way to end', async () => {
    const tableId = 'WAIT02';
    await playingTable(tableId, (i) => `wait2-gw:${EPOCH + 1 + i}`);
    let entered = false;
    const slow = seen({
      before: async () => {
        entered = true;
        await sleep(100);
      },
    });
    const { s, lines } = recorded({ engine: slow.swept, concurrency: 1 });
    s.start();
    await waitFor(() => entered);
    await s.stop();
    expect(lines.at(-1)).toMatchObject({ msg: 'stale connections closed', closed: 1, stale: 4 });
  });
});

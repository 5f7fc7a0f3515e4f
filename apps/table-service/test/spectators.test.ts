import { createLogger, createRedis, systemClock, type Redis } from '@dominoes/platform';
import {
  parseSpectatorEvent,
  shardOf,
  SpectatorViewSchema,
  TableViewSchema,
  type IntentEnvelope,
  type SpectatorEvent,
} from '@dominoes/protocol';
import { StaleWatcherSweeper } from '../src/spectators/stale-watchers';
import { TableSpectators } from '../src/spectators/table-spectators';
import { TableWatchers } from '../src/spectators/table-watchers';
import { RedisSeatPublisher } from '../src/table/seat-publisher';
import type { TableEngine } from '../src/table/table-engine';
import { tableView } from '../src/table/table-views';
import { envelopes, startEngineHarness, type EngineHarness } from './support/engine-harness';
import { watchSeatChannels, type SeatChannels } from './support/seat-channels';

const SHARDS = 16;

/**
 * Spectators on the table-service (decision 0018, issue 12), on real Postgres and Redis: the
 * spectator channel carries the public view (P10, P12) of every stored change while someone
 * watches, and nothing at all while nobody does.
 */
describe('spectators: the public view on the spectator channel, after the store, only while someone watches', () => {
  let harness: EngineHarness;
  let seats: SeatChannels;
  let subscriber: Redis;
  const spectatorEvents: SpectatorEvent[] = [];
  const TABLES = ['SPQUIET', 'SPWATCH', 'SPMOVE', 'SPFULL', 'SPGONE'];
  const settle = (ms = 150) => new Promise((r) => setTimeout(r, ms));
  const waitUntil = async (done: () => boolean, ms = 3_000) => {
    for (const end = Date.now() + ms; !done(); await settle(20))
      if (Date.now() > end) throw new Error('timed out waiting');
  };

  /** An engine and its spectators, as the table-service wires them (one replica). */
  const replica = (maxPerTable?: number) => {
    const spectators = new TableSpectators(
      new TableWatchers(harness.redis, harness.names, SHARDS, maxPerTable),
      (channel, message) => harness.redis.publish(channel, message),
      harness.names,
      new RedisSeatPublisher(harness.redis, harness.names),
      createLogger('test', 'silent'),
    );
    const engine = harness.engine({ spectators });
    spectators.attach(engine);
    return { engine, spectators };
  };

  /** The stale-watcher sweep of one replica's spectators. */
  const watcherSweeper = (spectators: TableSpectators, graceMs: number, intervalMs: number) =>
    new StaleWatcherSweeper({
      spectators,
      redis: harness.redis,
      names: harness.names,
      clock: systemClock,
      logger: createLogger('test', 'silent'),
      graceMs,
      intervalMs,
    });

  /** Opens a partnership table and seats four players: its first round is dealt. */
  const startedTable = async (engine: TableEngine, tableId: string) => {
    const intent = envelopes(tableId, `${tableId}-`);
    expect(
      await engine.handle(intent(0, { kind: 'create', config: { variant: 'partnership' } })),
    ).toMatchObject({
      ok: true,
    });
    for (const p of [1, 2, 3])
      expect(await engine.handle(intent(p, { kind: 'join' }))).toMatchObject({ ok: true });
    const table = (await engine.load(tableId))!;
    expect(table.status).toBe('playing');
    return intent;
  };

  /** The seat whose turn it is makes its first legal move. */
  const move = async (engine: TableEngine, tableId: string, intent: ReturnType<typeof envelopes>) => {
    const table = (await engine.load(tableId))!;
    const seat = table.match!.round!.turn;
    const action = tableView(table, seat).game!.legal[0]!;
    expect(await engine.handle(intent(seat, { kind: 'action', action }))).toMatchObject({ ok: true });
  };

  const watch = (tableId: string, connectionId: string, player: number, on = true): IntentEnvelope => ({
    intentId: `${connectionId}:watch:${on}`,
    tableId,
    player: {
      id: `00000000-0000-4000-8000-0000000009${String(player).padStart(2, '0')}`,
      name: `W${player}`,
    },
    connectionId,
    replyTo: null,
    sentAt: Date.now(),
    intent: { kind: 'watch', on },
  });

  const versionInPostgres = async (id: string) =>
    Number(
      (
        await harness.prisma.$queryRawUnsafe<{ version: bigint }[]>(
          'select version from game_tables where id = $1',
          id,
        )
      )[0]!.version,
    );

  /**
   * Counts the PUBLISH commands on this suite's channels while `work` runs, as Redis itself sees them
   * (MONITOR: the shared Redis serves other suites too, whose commands are left out by the prefix).
   */
  const publishesDuring = async (work: () => Promise<void>): Promise<number> => {
    const client = createRedis(harness.stores.redisUrl, 'spectators-monitor');
    const monitor = await client.monitor();
    let count = 0;
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'publish' && args[1]?.startsWith(harness.names.prefix)) count++;
    });
    try {
      await work();
      await settle();
    } finally {
      monitor.disconnect();
      client.disconnect();
    }
    return count;
  };

  beforeAll(async () => {
    harness = await startEngineHarness('spectators');
    seats = await watchSeatChannels(harness.stores.redisUrl, harness.names, TABLES);
    subscriber = createRedis(harness.stores.redisUrl, 'spectator-channel-test');
    subscriber.on('message', (_channel: string, message: string) =>
      spectatorEvents.push(parseSpectatorEvent(message)),
    );
    await subscriber.subscribe(...TABLES.map((t) => harness.names.spectatorChannel(t)));
  });
  afterAll(async () => {
    seats?.close();
    subscriber?.disconnect();
    await harness?.dispose();
  });
  beforeEach(async () => {
    await settle(50);
    spectatorEvents.splice(0);
    seats.take();
  });

  it('a table nobody watches pays nothing: no spectator event, not one PUBLISH beyond its seats’ views, and the hook sends nothing', async () => {
    const { engine, spectators } = replica();
    const published = await publishesDuring(async () => {
      const intent = await startedTable(engine, 'SPQUIET');
      for (let i = 0; i < 6; i++) await move(engine, 'SPQUIET', intent);
    });
    const seatViews = seats.take().filter((e) => e.tableId === 'SPQUIET');
    expect(spectatorEvents).toEqual([]);
    // Every PUBLISH of this stretch on this suite's channels is one change's seat views, all of them
    // in one message on the table's views channel (decision 0037).
    expect(seatViews.length).toBeGreaterThan(20);
    expect(published).toBe(new Set(seatViews.map((e) => e.version)).size);
    expect(seatViews.every((e) => e.view.watchers === 0)).toBe(true);
    // The engine's hook for an unwatched table sends nothing at all (its cost is a Map lookup: no
    // timing here, speed claims come from the bench scripts).
    const table = (await engine.load('SPQUIET'))!;
    const hookPublishes = await publishesDuring(async () => {
      for (let i = 0; i < 1_000; i++) {
        expect(spectators.watchers(table.id)).toBe(0);
        await spectators.published(table);
      }
    });
    expect(hookPublishes).toBe(0);
    expect(spectatorEvents).toEqual([]);
  });

  it('a watcher gets its first view in the reply, then the public view of every stored change, after the store, of the version stored; no hand, no hidden tile (P10, P12); the players see the count go up and down', async () => {
    const { engine, spectators } = replica();
    const intent = await startedTable(engine, 'SPWATCH');
    await settle();
    seats.take();

    const reply = await spectators.handle(watch('SPWATCH', 'gw-a:1', 1));
    expect(reply).toMatchObject({ ok: true, seat: null, version: await versionInPostgres('SPWATCH') });
    const first = SpectatorViewSchema.parse(JSON.parse((reply as { view: string }).view));
    expect(first.watchers).toBe(1);
    expect(first.game).not.toHaveProperty('hand');
    expect(first.game).not.toHaveProperty('legal');
    await settle();
    // The players see one watcher (the same version again, with the new count).
    const counted = seats.take().filter((e) => e.tableId === 'SPWATCH');
    expect(counted.map((e) => e.seat).sort()).toEqual([0, 1, 2, 3]);
    expect(counted.every((e) => e.view.watchers === 1 && TableViewSchema.safeParse(e.view).success)).toBe(
      true,
    );

    await move(engine, 'SPWATCH', intent);
    await settle();
    const stored = await versionInPostgres('SPWATCH');
    const after = spectatorEvents.filter((e) => e.tableId === 'SPWATCH');
    expect(after.map((e) => e.version)).toContain(stored);
    const last = after.at(-1)!;
    expect(last.version).toBe(stored);
    expect(last.view.game!.board.placements.length).toBeGreaterThan(0);
    expect(last.view.game).not.toHaveProperty('hand');
    // The hands are counts only, before the reveal.
    const table = (await engine.load('SPWATCH'))!;
    expect(last.view.game!.handCounts).toEqual(table.match!.round!.hands.map((h) => h.length));
    expect(JSON.stringify(last.view)).not.toContain('"hand"');

    // A second socket of another player: two watchers; the first one leaves: one.
    await spectators.handle(watch('SPWATCH', 'gw-b:7', 2));
    expect(spectators.watchers('SPWATCH')).toBe(2);
    expect(await spectators.handle(watch('SPWATCH', 'gw-a:1', 1, false))).toMatchObject({ ok: true });
    await spectators.handle(watch('SPWATCH', 'gw-b:7', 2, false));
    expect(spectators.watchers('SPWATCH')).toBe(0);
    await settle();
    const down = seats.take().filter((e) => e.tableId === 'SPWATCH');
    expect(down.at(-1)!.view.watchers).toBe(0);

    // Nobody watches any more: the next change goes to the seats only.
    spectatorEvents.splice(0);
    await move(engine, 'SPWATCH', intent);
    await settle();
    expect(spectatorEvents.filter((e) => e.tableId === 'SPWATCH')).toEqual([]);
  });

  it('another replica that takes the shard reads the watchers back from Redis and goes on publishing to them', async () => {
    const a = replica();
    const intent = await startedTable(a.engine, 'SPMOVE');
    await a.spectators.handle(watch('SPMOVE', 'gw-a:2', 3));
    a.spectators.registry.shardLost(shardOf('SPMOVE', SHARDS));
    expect(a.spectators.watchers('SPMOVE')).toBe(0);

    const b = replica();
    await b.spectators.registry.shardAcquired(shardOf('SPMOVE', SHARDS));
    expect(b.spectators.watchers('SPMOVE')).toBe(1);
    spectatorEvents.splice(0);
    await move(b.engine, 'SPMOVE', intent);
    await settle();
    const events = spectatorEvents.filter((e) => e.tableId === 'SPMOVE');
    expect(events.map((e) => e.version)).toEqual([await versionInPostgres('SPMOVE')]);
    expect(events[0]!.view.watchers).toBe(1);
  });

  it('hostile: a table that does not exist, a watch without a player or socket, too many watchers: refused, nothing counted', async () => {
    const { engine, spectators } = replica(2);
    expect(await spectators.handle(watch('NOSUCH', 'gw-a:3', 1))).toMatchObject({
      ok: false,
      code: 'TABLE_NOT_FOUND',
    });
    expect(spectators.watchers('NOSUCH')).toBe(0);
    await startedTable(engine, 'SPFULL');
    expect(await spectators.handle({ ...watch('SPFULL', 'gw-a:4', 1), player: null })).toMatchObject({
      ok: false,
      code: 'UNAUTHENTICATED',
    });
    expect(await spectators.handle({ ...watch('SPFULL', 'gw-a:4', 1), connectionId: null })).toMatchObject({
      ok: false,
      code: 'UNAUTHENTICATED',
    });
    expect(await spectators.handle(watch('SPFULL', 'gw-a:5', 1))).toMatchObject({ ok: true });
    expect(await spectators.handle(watch('SPFULL', 'gw-a:6', 2))).toMatchObject({ ok: true });
    // A third player is one too many; a second socket of a player already watching is not.
    expect(await spectators.handle(watch('SPFULL', 'gw-a:7', 3))).toMatchObject({
      ok: false,
      code: 'TOO_MANY_WATCHERS',
    });
    expect(await spectators.handle(watch('SPFULL', 'gw-b:8', 2))).toMatchObject({ ok: true });
    expect(spectators.watchers('SPFULL')).toBe(2);
    // The engine never applies a watch itself: it changes no table.
    const version = await versionInPostgres('SPFULL');
    expect(await engine.handle(watch('SPFULL', 'gw-a:9', 4))).toMatchObject({ ok: false });
    expect(
      await engine.handle({
        ...watch('SPFULL', 'gw-a:9', 0),
        player: { id: '00000000-0000-4000-8000-000000000000', name: 'P0' },
      }),
    ).toMatchObject({
      ok: false,
      code: 'NOT_ALLOWED_NOW',
    });
    expect(await versionInPostgres('SPFULL')).toBe(version);
  });

  it('the watchers of a gateway that died without saying so are dropped once its heartbeat is gone for the grace; a live gateway’s stay', async () => {
    const { engine, spectators } = replica();
    await startedTable(engine, 'SPGONE');
    await harness.redis.set(harness.names.gatewayAlive('gw-live'), '1');
    await spectators.handle(watch('SPGONE', 'gw-dead:5', 1));
    await spectators.handle(watch('SPGONE', 'gw-live:5', 2));
    const sweeper = watcherSweeper(spectators, 100, 60_000);
    expect(await sweeper.sweep()).toBe(0); // missing, but not for the grace yet
    await settle(150);
    expect(await sweeper.sweep()).toBe(1);
    expect(spectators.watchers('SPGONE')).toBe(1);
    expect(spectators.registry.watching('gw-live:5')).toBeDefined();
    await settle();
    expect(
      seats
        .take()
        .filter((e) => e.tableId === 'SPGONE')
        .at(-1)!.view.watchers,
    ).toBe(1);
    sweeper.stop();
  });

  it('a gateway that restarted (its heartbeat holds a later boot epoch than a socket’s number) loses that socket’s watch at the first sweep, not after the grace; its sockets of the current epoch stay; the started sweeper runs by its interval until stopped', async () => {
    // The table of the test above (a host opens only so many tables), with a replica of its own.
    const { spectators } = replica();
    await harness.redis.set(harness.names.gatewayAlive('gw-boot'), '7');
    await spectators.handle(watch('SPGONE', 'gw-boot:6', 1));
    await spectators.handle(watch('SPGONE', 'gw-boot:7', 2));
    await spectators.handle(watch('SPGONE', 'not-a-connection-id', 3));
    expect(spectators.watchers('SPGONE')).toBe(3);
    const sweeper = watcherSweeper(spectators, 60_000, 50);
    sweeper.start();
    await waitUntil(() => spectators.watchers('SPGONE') === 2);
    expect(spectators.registry.watching('gw-boot:6')).toBeUndefined();
    expect(spectators.registry.watching('gw-boot:7')).toBeDefined();
    // A connection id the sweep cannot read is left alone (it is not a gateway's socket).
    expect(spectators.registry.watching('not-a-connection-id')).toBeDefined();
    sweeper.stop();
    // Stopped: a socket that goes stale now stays until a sweeper runs again.
    await harness.redis.set(harness.names.gatewayAlive('gw-boot'), '8');
    await settle(200);
    expect(spectators.watchers('SPGONE')).toBe(2);
    expect(await sweeper.sweep()).toBe(0);
  });

  it('a socket that moves from one table to another: the first table’s players see its count go down, the second’s go up; watching the same table again sends nothing', async () => {
    // Two tables of the tests above, with a replica of its own (its registry starts empty).
    const { spectators } = replica();
    await spectators.handle(watch('SPWATCH', 'gw-move:1', 5));
    await settle();
    seats.take();
    expect(await spectators.handle(watch('SPWATCH', 'gw-move:1', 5))).toMatchObject({ ok: true });
    await settle();
    expect(seats.take()).toEqual([]);
    expect(await spectators.handle(watch('SPGONE', 'gw-move:1', 5))).toMatchObject({ ok: true });
    await settle();
    const events = seats.take();
    const last = (tableId: string) => events.filter((e) => e.tableId === tableId).at(-1)?.view.watchers;
    expect(last('SPWATCH')).toBe(0);
    expect(last('SPGONE')).toBe(1);
    expect(spectators.watchers('SPWATCH')).toBe(0);
  });
});

import { createLogger, createRedis, type Redis } from '@dominoes/platform';
import { parseSpectatorEvent, type IntentEnvelope, type SpectatorEvent } from '@dominoes/protocol';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { TableSpectators, type WatchedTables } from '../src/spectators/table-spectators';
import { TableWatchers } from '../src/spectators/table-watchers';
import { RedisSeatPublisher } from '../src/table/seat-publisher';
import type { TableEngine } from '../src/table/table-engine';
import { envelopes, startEngineHarness, type EngineHarness } from './support/engine-harness';
import { until } from './support/until';

const SHARDS = 16;
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/**
 * The edges of TableSpectators (table-spectators.ts) on real Postgres and Redis, from the mutation
 * run's survivors: what each refusal says, a watch before the engine is attached or of another
 * intent, the trace a published view carries, the newest copy in a watch's reply, the count's change
 * on the spectator channel, a count that cannot be published, a table gone when its watcher leaves.
 */
describe('spectators: refusals, traces, the newest copy and failures to publish', () => {
  let harness: EngineHarness;
  let subscriber: Redis;
  const events: SpectatorEvent[] = [];
  const TABLES = ['SPEDGE1', 'SPEDGE2', 'SPEDGE3', 'SPEDGE4'];

  /** Spectators as the table-service wires them, on `tables` (the engine's load by default). */
  const spectatorsOf = (
    options: {
      maxPerTable?: number;
      seats?: RedisSeatPublisher;
      logger?: ReturnType<typeof recordingLogger>['logger'];
    } = {},
  ) =>
    new TableSpectators(
      new TableWatchers(harness.redis, harness.names, SHARDS, options.maxPerTable),
      (channel, message) => harness.redis.publish(channel, message),
      harness.names,
      options.seats ?? new RedisSeatPublisher(harness.redis, harness.names),
      options.logger ?? createLogger('test', 'silent'),
    );

  /** A table created by player `host` (one of its own: a host opens only so many tables). */
  const opened = async (engine: TableEngine, tableId: string, host: number) => {
    const intent = envelopes(tableId, `${tableId}-`);
    expect(
      await engine.handle(intent(host, { kind: 'create', config: { variant: 'partnership' } })),
    ).toMatchObject({ ok: true });
    return intent;
  };

  const watch = (tableId: string, connectionId: string, player: number, on = true): IntentEnvelope => ({
    intentId: `${connectionId}:watch:${on}`,
    tableId,
    player: {
      id: `00000000-0000-4000-8000-0000000008${String(player).padStart(2, '0')}`,
      name: `S${player}`,
    },
    connectionId,
    replyTo: null,
    sentAt: Date.now(),
    intent: { kind: 'watch', on },
  });

  beforeAll(async () => {
    harness = await startEngineHarness('spectators-edges');
    subscriber = createRedis(harness.stores.redisUrl, 'spectators-edges-channel');
    subscriber.on('message', (_channel: string, message: string) =>
      events.push(parseSpectatorEvent(message)),
    );
    await subscriber.subscribe(...TABLES.map((t) => harness.names.spectatorChannel(t)));
  });
  afterAll(async () => {
    subscriber?.disconnect();
    await harness?.dispose();
  });

  it('a watch before the engine is attached is an error saying so; an intent that is not a watch is an error naming its kind', async () => {
    const spectators = spectatorsOf();
    await expect(spectators.handle(watch('SPEDGE1', 'gw-e:1', 1))).rejects.toThrow(
      'TableSpectators used before the engine was attached',
    );
    spectators.attach(harness.engine({ spectators }));
    await expect(
      spectators.handle({ ...watch('SPEDGE1', 'gw-e:1', 1), intent: { kind: 'join' } }),
    ).rejects.toThrow('not a watch intent: join');
    expect(spectators.watchers('SPEDGE1')).toBe(0);
  });

  it('each refusal says why: no player or socket, no such table, a table at its limit of watchers', async () => {
    const spectators = spectatorsOf({ maxPerTable: 1 });
    const engine = harness.engine({ spectators });
    spectators.attach(engine);
    expect(await spectators.handle({ ...watch('SPEDGE1', 'gw-e:2', 1), player: null })).toEqual({
      ok: false,
      intentId: 'gw-e:2:watch:true',
      code: 'UNAUTHENTICATED',
      message: 'Watching needs a player and a socket.',
    });
    expect(await spectators.handle(watch('SPNOSUCH', 'gw-e:2', 1))).toEqual({
      ok: false,
      intentId: 'gw-e:2:watch:true',
      code: 'TABLE_NOT_FOUND',
      message: 'There is no table SPNOSUCH.',
    });
    await opened(engine, 'SPEDGE1', 1);
    expect(await spectators.handle(watch('SPEDGE1', 'gw-e:3', 1))).toMatchObject({ ok: true });
    expect(await spectators.handle(watch('SPEDGE1', 'gw-e:4', 2))).toEqual({
      ok: false,
      intentId: 'gw-e:4:watch:true',
      code: 'TOO_MANY_WATCHERS',
      message: 'This table has as many watchers as it can take.',
    });
  });

  it('a view published with the trace of its change carries it on the spectator channel, one without carries none; a new watcher’s count goes to the spectators too, at the same version', async () => {
    const spectators = spectatorsOf();
    const engine = harness.engine({ spectators });
    spectators.attach(engine);
    await opened(engine, 'SPEDGE2', 2);
    events.splice(0);
    await spectators.handle(watch('SPEDGE2', 'gw-t:1', 1));
    await until('the first count', () => events.length >= 1);
    const table = (await engine.load('SPEDGE2'))!;
    events.splice(0);
    await spectators.published(table, TRACEPARENT);
    await spectators.published(table);
    await until('two spectator events', () => events.length >= 2);
    expect(events.map((e) => e.traceparent)).toEqual([TRACEPARENT, undefined]);
    expect(events[1]).not.toHaveProperty('traceparent');

    events.splice(0);
    await spectators.handle(watch('SPEDGE2', 'gw-t:2', 2));
    await until('the new count', () => events.length >= 1);
    expect(events.map((e) => [e.version, e.view.watchers])).toEqual([[table.version, 2]]);
  });

  it('the reply holds the newest copy: a change stored while the watcher was being added is in its view and version', async () => {
    const spectators = spectatorsOf();
    const engine = harness.engine({ spectators });
    const intent = await opened(engine, 'SPEDGE3', 3);
    const before = (await engine.load('SPEDGE3'))!.version;
    let loads = 0;
    const tables: WatchedTables = {
      load: async (tableId) => {
        const table = await engine.load(tableId);
        // The first copy is read; then another player joins and the change is stored.
        if (++loads === 1)
          expect(await engine.handle(intent(4, { kind: 'join' }))).toMatchObject({ ok: true });
        return table;
      },
    };
    spectators.attach(tables);
    const reply = await spectators.handle(watch('SPEDGE3', 'gw-n:1', 1));
    const stored = await harness.storedVersion('SPEDGE3');
    expect(stored).toBeGreaterThan(before);
    expect(reply).toMatchObject({ ok: true, version: stored });
    // Its view shows the player who joined meanwhile (seated besides the host).
    const view = JSON.parse((reply as { view: string }).view) as { seats: unknown[] };
    expect(view.seats.filter(Boolean)).toHaveLength(2);
  });

  it('a new count that cannot be published is logged with its table, and the watch still succeeds; a watcher leaving a table that is gone is let go, no count sent', async () => {
    const closed = createRedis(harness.stores.redisUrl, 'spectators-edges-closed');
    await closed.quit();
    const { logger, lines } = recordingLogger();
    const spectators = spectatorsOf({ seats: new RedisSeatPublisher(closed, harness.names), logger });
    const engine = harness.engine({ spectators });
    await opened(engine, 'SPEDGE4', 4);
    let gone = false;
    spectators.attach({ load: (tableId) => (gone ? Promise.resolve(null) : engine.load(tableId)) });
    expect(await spectators.handle(watch('SPEDGE4', 'gw-f:1', 1))).toMatchObject({ ok: true });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        tableId: 'SPEDGE4',
        msg: 'the new number of watchers was not published',
      }),
    );
    gone = true;
    const warned = lines.length;
    expect(await spectators.handle(watch('SPEDGE4', 'gw-f:1', 1, false))).toEqual({
      ok: true,
      intentId: 'gw-f:1:watch:false',
      version: null,
      seat: null,
    });
    expect(spectators.watchers('SPEDGE4')).toBe(0);
    expect(lines).toHaveLength(warned);
  });
});

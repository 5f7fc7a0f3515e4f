import {
  createDeadlineQueue,
  createRedis,
  DEADLINE_LEAD_MS,
  type Clock,
  type DeadlineQueue,
  type Redis,
} from '@dominoes/platform';
import {
  INTENT_FIELD,
  redisNames,
  shardOf,
  type IntentEnvelope,
  type IntentReply,
  type TableIntent,
} from '@dominoes/protocol';
import { Client } from 'pg';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { readConfig } from '../src/config';
import { startTableService, type TableServiceApp } from '../src/table-app';
import { sleep, until } from './support/until';

/*
 * What TableServiceModule wires, through the app as main.ts starts it (startTableService) on a fresh
 * database and Redis prefix: the shard transport feeding the controller and the engine (views, the
 * lobby, deadline jobs), the spectators, the sweeps, the metrics and readiness, and the shutdown.
 * One app for the suite (a mutant re-runs every test), shut down by the last test.
 */

const SHARDS = 2;
const REPLICA = 'replica-module';
/** A gateway whose heartbeat this suite keeps, and one that never had any (its sockets are stale). */
const LIVE_GW = 'gwlive';
const DEAD_GW = 'gwdead';

describe('TableServiceModule through startTableService (real Postgres and Redis)', () => {
  const { logger, lines } = recordingLogger();
  /**
   * The service's clock stands still, a day ahead: a deadline's delay is exactly its duration, and
   * a table closed now is idle past ARCHIVE_AFTER_MS (1 ms) as Postgres's updated_at counts.
   */
  const now = Date.now() + 86_400_000;
  const clock: Clock = { now: () => now };
  let stores: TestStores;
  let service: TableServiceApp;
  let names: ReturnType<typeof redisNames>;
  let admin: Redis;
  let subscriber: Redis;
  let queue: DeadlineQueue;
  let pg: Client;
  let databaseName: string;
  /** This suite's own (pub/sub channels ignore the key prefix): set once the prefix is known. */
  let replyTo = '';
  const replies: IntentReply[] = [];
  const messages: { channel: string; message: string }[] = [];
  let n = 0;
  const base = () => `http://127.0.0.1:${service.port}`;
  const scrape = async () => (await fetch(`${base()}/metrics`)).text();
  const untilMetric = async (line: string) => {
    for (let i = 0; i < 100 && !(await scrape()).includes(line); i++) await sleep(50);
    expect(await scrape()).toContain(line);
  };

  const envelope = (
    tableId: string,
    player: string | null,
    intent: TableIntent,
    connectionId: string | null = null,
    traceparent?: string,
  ): IntentEnvelope => ({
    intentId: `m${++n}`,
    tableId,
    player: player ? { id: player, name: player } : null,
    connectionId,
    replyTo,
    sentAt: now,
    ...(traceparent ? { traceparent } : {}),
    intent,
  });
  const answer = async (e: IntentEnvelope): Promise<IntentReply> => {
    await admin.xadd(names.intentStream(shardOf(e.tableId, SHARDS)), '*', INTENT_FIELD, JSON.stringify(e));
    await until(`the reply to ${e.intentId} (${e.intent.kind})`, () =>
      replies.some((r) => r.intentId === e.intentId),
    );
    return replies.find((r) => r.intentId === e.intentId)!;
  };
  /** A table id of the given shard. */
  const tableOf = (shard: number, tag: string): string => {
    for (let i = 0; ; i++) {
      const id = `${tag}${i}`;
      if (shardOf(id, SHARDS) === shard) return id;
    }
  };
  const players = [1, 2, 3, 4].map((i) => `00000000-0000-4000-8000-00000000000${i}`);
  const WATCHER = '00000000-0000-4000-8000-000000000009';
  /** A partnership table, opened by its host and joined by three more: playing. */
  /** The sender's span of the last join (the gateway's ws.intent): the deadline job it causes carries it. */
  const TRACE = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const openAndFill = async (tableId: string, connection: (seat: number) => string | null = () => null) => {
    const opened = await answer(
      envelope(
        tableId,
        players[0]!,
        { kind: 'create', config: { variant: 'partnership', public: true } },
        connection(0),
      ),
    );
    expect(opened).toMatchObject({ ok: true, seat: 0 });
    for (let seat = 1; seat < 4; seat++)
      expect(
        await answer(
          envelope(
            tableId,
            players[seat]!,
            { kind: 'join' },
            connection(seat),
            seat === 3 ? TRACE : undefined,
          ),
        ),
      ).toMatchObject({
        ok: true,
        seat,
      });
  };
  const PLAYING = tableOf(0, 'PLAY');
  const delayedOf = async (tableId: string) =>
    (await queue.getDelayed()).filter((j) => j.data.tableId === tableId);

  beforeAll(async () => {
    stores = await createTestStores('table_service_module');
    names = redisNames(stores.redisPrefix, SHARDS);
    replyTo = `${stores.redisPrefix}:replies`;
    databaseName = new URL(stores.databaseUrl).pathname.slice(1);
    admin = createRedis(stores.redisUrl, `${stores.redisPrefix}:admin`);
    subscriber = createRedis(stores.redisUrl, `${stores.redisPrefix}:subscriber`);
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === replyTo) replies.push(JSON.parse(message) as IntentReply);
      else messages.push({ channel, message });
    });
    await subscriber.subscribe(replyTo, names.lobbyChannel, names.viewsChannel(PLAYING));
    queue = createDeadlineQueue(stores.redisUrl, stores.redisPrefix, 0);
    pg = new Client({ connectionString: stores.databaseUrl });
    await pg.connect();
    await admin.set(names.gatewayAlive(LIVE_GW), '1', 'PX', 600_000);
    const config = readConfig({
      DATABASE_URL: stores.databaseUrl,
      REDIS_URL: stores.redisUrl,
      REDIS_PREFIX: stores.redisPrefix,
      TABLE_SHARDS: String(SHARDS),
      REPLICA_ID: REPLICA,
      PORT: '0',
      PRESENCE_SWEEP_MS: '100',
      GATEWAY_GONE_GRACE_MS: '0',
      ARCHIVE_AFTER_MS: '1',
      ARCHIVE_INTERVAL_MS: '100',
    });
    service = await startTableService(config, { logger, clock, defaultMetrics: false });
    await until('both shards', () => lines.filter((l) => l.msg === 'shard lease acquired').length === SHARDS);
    // And their deadlines rebuilt (none yet): a rebuild that ran after this suite's first table started
    // would set its job again, without the change's trace.
    await until(
      'both shards rebuilt',
      () =>
        new Set(
          lines
            .filter((l) => l.msg === 'deadlines rebuilt from Postgres')
            .flatMap((l) => l['shards'] as number[]),
        ).size === SHARDS,
    );
  }, 30_000);

  afterAll(async () => {
    await service?.shutdown();
    await queue?.close();
    await pg?.end();
    subscriber?.disconnect();
    admin?.disconnect();
    await stores?.dispose();
  });

  it('logs that it is ready, with its port, replica id and shards', () => {
    const ready = lines.find((l) => l.msg === 'table-service ready');
    expect(ready).toMatchObject({ port: 0, replicaId: REPLICA, shards: SHARDS });
    expect(ready).toHaveProperty('durations');
    expect(ready).toHaveProperty('tableLimits');
    expect(ready).toHaveProperty('presenceSweepMs', 100);
    expect(ready).toHaveProperty('gatewayGoneGraceMs', 0);
    expect(service.port).toBeGreaterThan(0);
  });

  it('takes every shard (its leases, and OwnedShards in the metrics) and is ready while Postgres and Redis answer', async () => {
    for (let shard = 0; shard < SHARDS; shard++)
      expect(await admin.get(names.shardLease(shard))).toBe(REPLICA);
    await untilMetric(`dominoes_owned_shards ${SHARDS}`);
    const ready = await fetch(`${base()}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', postgres: 'up', redis: 'up' });
  });

  it('an intent on a shard stream reaches the engine and is answered: a table opened, filled and playing, stored in Postgres, its views and lobby entry published, its turn deadline set as a job', async () => {
    await openAndFill(PLAYING);
    const row = await pg.query<{ status: string }>('select status from game_tables where id = $1', [PLAYING]);
    expect(row.rows).toEqual([{ status: 'playing' }]);
    await until('a seat view', () => messages.some((m) => m.channel === names.viewsChannel(PLAYING)));
    await until('a lobby update', () =>
      messages.some((m) => m.channel === names.lobbyChannel && m.message.includes(PLAYING)),
    );
    let jobs = await delayedOf(PLAYING);
    for (let i = 0; i < 50 && jobs.length === 0; i++) {
      await sleep(20);
      jobs = await delayedOf(PLAYING);
    }
    expect(jobs).toHaveLength(1);
    const job = jobs[0]!;
    expect(job.data.tableId).toBe(PLAYING);
    expect(typeof job.data.key).toBe('string');
    expect(job.data.dueAt).toBeGreaterThan(now);
    expect(job.data.traceparent).toBe(TRACE);
    // Due at the deadline's time less the timer's lead, counted on the service's clock.
    expect(job.opts.delay).toBe(job.data.dueAt - now - DEADLINE_LEAD_MS);
    await untilMetric('dominoes_intents_total{kind="create",outcome="applied"} 1');
    await untilMetric('dominoes_intents_total{kind="join",outcome="applied"} 3');
    await untilMetric('dominoes_active_tables{state="playing"} 1');
  });

  it('an intent for a table that does not exist is answered by the engine: TABLE_NOT_FOUND', async () => {
    const missing = tableOf(1, 'NONE');
    expect(await answer(envelope(missing, players[0]!, { kind: 'join' }))).toMatchObject({
      ok: false,
      code: 'TABLE_NOT_FOUND',
    });
    await untilMetric('dominoes_intents_total{kind="join",outcome="TABLE_NOT_FOUND"} 1');
  });

  it('a watch intent goes to the spectators, not the engine: the watcher is registered and gets the first view', async () => {
    const watch = envelope(PLAYING, WATCHER, { kind: 'watch', on: true }, `${LIVE_GW}:7`);
    const reply = await answer(watch);
    expect(reply).toMatchObject({ ok: true, seat: null });
    expect(reply.ok && typeof reply.view).toBe('string');
    const watchers = await admin.hgetall(names.shardWatchers(shardOf(PLAYING, SHARDS)));
    expect(Object.keys(watchers)).toEqual([`${LIVE_GW}:7`]);
    expect(await scrape()).not.toContain('kind="watch"'); // the engine counts what it handles
  });

  it("the sweeps run: a seat's socket on a gateway with no heartbeat is closed, a watcher on one is removed", async () => {
    const table = tableOf(1, 'STALE');
    expect(
      await answer(
        envelope(table, players[0]!, { kind: 'create', config: { variant: 'partnership' } }, `${DEAD_GW}:1`),
      ),
    ).toMatchObject({ ok: true, seat: 0 });
    await untilMetric('dominoes_intents_total{kind="presence",outcome="applied"} 1');
    const stored = await pg.query<{ state: string }>(
      'select state::text as state from game_tables where id = $1',
      [table],
    );
    expect(stored.rows[0]?.state).not.toContain(`${DEAD_GW}:1`);
    await answer(envelope(table, WATCHER, { kind: 'watch', on: true }, `${DEAD_GW}:2`));
    const watchers = () => admin.hkeys(names.shardWatchers(1));
    for (let i = 0; i < 100 && (await watchers()).includes(`${DEAD_GW}:2`); i++) await sleep(50);
    expect(await watchers()).not.toContain(`${DEAD_GW}:2`);
  });

  it('a shard taken by another replica: its tables are forgotten (metrics), and taken back, its deadlines are set again from Postgres and its intents answered', async () => {
    const shard = shardOf(PLAYING, SHARDS);
    await queue.remove((await delayedOf(PLAYING))[0]!.id!);
    await admin.set(names.shardLease(shard), 'replica-other', 'PX', 600_000);
    await untilMetric(`dominoes_owned_shards ${SHARDS - 1}`);
    await untilMetric('dominoes_active_tables{state="playing"} 0');
    await admin.del(names.shardLease(shard));
    await untilMetric(`dominoes_owned_shards ${SHARDS}`);
    for (let i = 0; i < 100 && (await delayedOf(PLAYING)).length === 0; i++) await sleep(50);
    expect(await delayedOf(PLAYING)).toHaveLength(1);
    const synced = await answer(envelope(PLAYING, players[1]!, { kind: 'sync' }));
    expect(synced).toMatchObject({ ok: true, seat: 1 });
    // The shard's watchers were read back from Redis: the watcher of the test above is counted.
    expect(synced.ok && (JSON.parse(synced.view!) as { watchers: number }).watchers).toBe(1);
    await untilMetric('dominoes_active_tables{state="playing"} 1');
  });

  it('the archiver runs: a table closed (its waiting time ran out) is moved to the archive and forgotten', async () => {
    const table = tableOf(1, 'GONE');
    expect(
      await answer(envelope(table, players[1]!, { kind: 'create', config: { variant: 'partnership' } })),
    ).toMatchObject({ ok: true, seat: 0 });
    // Two waiting tables held now (this one and the one of the sweeps test): each counted.
    await untilMetric('dominoes_active_tables{state="waiting"} 2');
    let jobs = await delayedOf(table);
    for (let i = 0; i < 50 && jobs.length === 0; i++) {
      await sleep(20);
      jobs = await delayedOf(table);
    }
    const { key, dueAt } = jobs[0]!.data;
    expect(await answer(envelope(table, null, { kind: 'deadline', key, dueAt }))).toMatchObject({ ok: true });
    const archived = async () =>
      Number(
        (
          await pg.query<{ n: string }>('select count(*) as n from archive.game_tables where id = $1', [
            table,
          ])
        ).rows[0]!.n,
      );
    for (let i = 0; i < 100 && (await archived()) === 0; i++) await sleep(50);
    expect(await archived()).toBe(1);
    expect((await pg.query('select id from game_tables where id = $1', [table])).rows).toEqual([]);
    // Forgotten: not answered from memory, but looked up in Postgres, where it is no more.
    expect(await answer(envelope(table, players[1]!, { kind: 'sync' }))).toMatchObject({
      ok: false,
      code: 'TABLE_NOT_FOUND',
    });
  });

  it('shuts down once, however often asked: every shard given back, its port and its Postgres connections closed, the sweeps stopped', async () => {
    const before = lines.length;
    const first = service.shutdown();
    expect(service.shutdown()).toBe(first);
    await first;
    for (let shard = 0; shard < SHARDS; shard++) expect(await admin.get(names.shardLease(shard))).toBeNull();
    expect(await admin.zscore(names.replicaSet, REPLICA)).toBeNull();
    await expect(fetch(`${base()}/health/live`)).rejects.toThrow();
    const others = async () =>
      Number(
        (
          await pg.query<{ n: string }>(
            'select count(*) as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
            [databaseName],
          )
        ).rows[0]!.n,
      );
    for (let i = 0; i < 50 && (await others()) > 0; i++) await sleep(20);
    expect(await others()).toBe(0);
    // A sweep still running (every 100 ms) would fail on the closed Redis, or open Postgres again.
    await sleep(500);
    expect(lines.slice(before).filter((l) => l.level >= 40)).toEqual([]);
    expect(await others()).toBe(0);
  });
});

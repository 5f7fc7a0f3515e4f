import { randomBytes } from 'node:crypto';
import { of } from 'rxjs';
import { createRedis, type Redis } from '@dominoes/platform';
import {
  INTENT_FIELD,
  INTENT_GROUP,
  INTENT_PATTERN,
  redisNames,
  type IntentEnvelope,
  type IntentReply,
} from '@dominoes/protocol';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { StoreUnavailableError, WriteOutcomeUnknownError } from '../src/table/table-ports';
import {
  isNoGroup,
  MAX_IN_FLIGHT_PER_SHARD,
  ShardedStreamsServer,
} from '../src/transport/sharded-streams.server';
import { appliedReply, dropPrefix } from './support/shard-transport';
import { sleep, until } from './support/until';

/*
 * The table-service's shard transport alone (no Nest app): two shards on the real Redis under a
 * prefix of this suite's own, a handler added as the controller's would be, a recording logger.
 * One server for the whole suite (started once: a mutant re-runs every test), closed by the last test.
 */

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REPLICA = 'replica-t';

type Behaviour = (e: IntentEnvelope) => unknown;

describe('ShardedStreamsServer: shard consumers on real Redis streams', () => {
  const prefix = `test_streams_${randomBytes(4).toString('hex')}`;
  const names = redisNames(prefix, 2);
  const replyTo = `${prefix}:replies`;
  const connectionName = `${prefix}:table-service`;
  const { logger, lines } = recordingLogger();
  let redis: Redis;
  let admin: Redis;
  let subscriber: Redis;
  let server: ShardedStreamsServer;
  const got: IntentReply[] = [];
  const handled: string[] = [];
  const acquired: number[] = [];
  const lost: number[] = [];
  const behaviour = new Map<string, Behaviour>();
  let listened = 0;
  /** The server's answers (reply and ack): the next this many fail, as on a dropped connection. */
  let failAnswers = 0;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  let n = 0;

  const envelope = (shardTable: string, withReply = true): IntentEnvelope => ({
    intentId: `s${++n}`,
    tableId: shardTable,
    player: null,
    connectionId: null,
    replyTo: withReply ? replyTo : null,
    sentAt: Date.now(),
    intent: { kind: 'deadline', key: `k${n}`, dueAt: Date.now() },
  });
  /** Tables of shard 0 and shard 1 (the stream is chosen by the sender; these only name them). */
  const T0 = 'TABLE0';
  const T1 = 'TABLE1';
  const send = (shard: number, e: IntentEnvelope) =>
    admin.xadd(names.intentStream(shard), '*', INTENT_FIELD, JSON.stringify(e));
  const replyOf = (e: IntentEnvelope) => got.find((r) => r.intentId === e.intentId);
  const answerTo = async (shard: number, e: IntentEnvelope): Promise<IntentReply | undefined> => {
    await send(shard, e);
    await until(`the reply to ${e.intentId}`, () => replyOf(e) !== undefined);
    return replyOf(e);
  };
  const pending = async (shard: number) =>
    ((await admin.xpending(names.intentStream(shard), INTENT_GROUP)) as [number])[0];
  const untilNonePending = async (shard: number) => {
    for (let i = 0; i < 100 && (await pending(shard)) !== 0; i++) await sleep(20);
    expect(await pending(shard)).toBe(0);
  };
  const timesHandled = (e: IntentEnvelope) => handled.filter((id) => id === e.intentId).length;
  const logged = (msg: string) => lines.filter((l) => l.msg === msg);
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { open, opened };
  };

  /** Entries a replica that died had read and never acknowledged, on shard 1, over a page of XAUTOCLAIM. */
  const stalled: IntentEnvelope[] = [];

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    redis = createRedis(REDIS_URL, connectionName);
    admin = createRedis(REDIS_URL, `${prefix}:admin`);
    subscriber = createRedis(REDIS_URL, `${prefix}:replies`);
    subscriber.on('message', (_c: string, m: string) => got.push(JSON.parse(m) as IntentReply));
    await subscriber.subscribe(replyTo);
    // Shard 1 already has its group (another replica made it) and 150 entries read by a dead replica.
    await admin.xgroup('CREATE', names.intentStream(1), INTENT_GROUP, '0', 'MKSTREAM');
    for (let i = 0; i < 150; i++) {
      const e = envelope(T1);
      stalled.push(e);
      await send(1, e);
    }
    await admin.xreadgroup(
      'GROUP',
      INTENT_GROUP,
      'replica-dead',
      'COUNT',
      150,
      'STREAMS',
      names.intentStream(1),
      '>',
    );
    // A dropped connection fails the answer's reply and its ack alike (they go out together): nothing is sent.
    const realPublish = redis.publish.bind(redis);
    const realXack = redis.xack.bind(redis);
    let failAck = 0;
    redis.publish = ((...args: Parameters<Redis['publish']>) => {
      if (failAnswers > 0) {
        failAnswers--;
        failAck++;
        return Promise.reject(new Error('Connection is closed.'));
      }
      return realPublish(...args);
    }) as Redis['publish'];
    redis.xack = ((...args: Parameters<Redis['xack']>) => {
      if (failAck > 0) {
        failAck--;
        return Promise.reject(new Error('Connection is closed.'));
      }
      return realXack(...args);
    }) as Redis['xack'];
    server = new ShardedStreamsServer({
      redis,
      names,
      shards: 2,
      replicaId: REPLICA,
      logger,
      // A long TTL: one test moves the clock 11 s on, which must not expire a lease.
      leaseTiming: { ttlMs: 60_000, tickMs: 100 },
      onShardAcquired: (shard) => acquired.push(shard),
      onShardLost: (shard) => lost.push(shard),
    });
    server.addHandler(INTENT_PATTERN, async (e: IntentEnvelope) => {
      handled.push(e.intentId);
      const b = behaviour.get(e.intentId);
      if (b) return b(e);
      return appliedReply(e);
    });
    expect(server.ownedShards().size).toBe(0);
    server.listen(() => listened++);
    await until('both shard leases', () => server.ownedShards().size === 2);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await server?.close();
    await dropPrefix(prefix, admin, subscriber, redis);
    process.off('unhandledRejection', onUnhandled);
  });

  it('isNoGroup: only an Error whose message starts with NOGROUP', () => {
    expect(isNoGroup(new Error('NOGROUP No such key or consumer group'))).toBe(true);
    expect(isNoGroup(new Error('ERR NOGROUP later in the text'))).toBe(false);
    expect(isNoGroup(new Error('WRONGTYPE Operation'))).toBe(false);
    expect(isNoGroup({ message: 'NOGROUP' })).toBe(false);
  });

  it('listen calls back once and takes every shard lease, telling the owner of each', async () => {
    expect(listened).toBe(1);
    expect([...server.ownedShards()].sort()).toEqual([0, 1]);
    expect([...acquired].sort()).toEqual([0, 1]);
    expect(await admin.get(names.shardLease(0))).toBe(REPLICA);
    expect(await admin.get(names.shardLease(1))).toBe(REPLICA);
  });

  it('makes the consumer group of a shard stream that had none, and keeps one that exists (BUSYGROUP)', async () => {
    const groups = async (shard: number) =>
      ((await admin.xinfo('GROUPS', names.intentStream(shard))) as unknown[][]).map((g) => g[1]);
    expect(await groups(0)).toEqual([INTENT_GROUP]);
    expect(await groups(1)).toEqual([INTENT_GROUP]);
    const e0 = envelope(T0);
    const e1 = envelope(T1);
    expect((await answerTo(0, e0))?.ok).toBe(true);
    expect((await answerTo(1, e1))?.ok).toBe(true);
  });

  it('claims at start what a dead replica read and never acknowledged (every page of 100), and answers it', async () => {
    await until('the stalled entries answered', () => stalled.every((e) => replyOf(e) !== undefined));
    for (const e of stalled) expect(timesHandled(e)).toBe(1);
    await untilNonePending(1);
  });

  it('answers an intent on its reply channel with what the handler returned, then acknowledges it', async () => {
    const e = envelope(T0);
    behaviour.set(e.intentId, () => ({ ok: true, intentId: e.intentId, version: 7, seat: 2 }));
    expect(await answerTo(0, e)).toEqual({ ok: true, intentId: e.intentId, version: 7, seat: 2 });
    expect(timesHandled(e)).toBe(1);
    await untilNonePending(0);
  });

  it('an intent without a reply channel is handled and acknowledged, and nothing is published', async () => {
    const e = envelope(T0, false);
    await send(0, e);
    await until('handled', () => timesHandled(e) === 1);
    await untilNonePending(0);
    // The next one's reply arrives after anything the first could have published.
    await answerTo(0, envelope(T0));
    expect(replyOf(e)).toBeUndefined();
  });

  it('an Observable from the handler: its last value is the reply', async () => {
    const e = envelope(T0);
    behaviour.set(e.intentId, () =>
      of<IntentReply[]>(
        { ok: true, intentId: e.intentId, version: 1, seat: null },
        { ok: true, intentId: e.intentId, version: 2, seat: 0 },
      ),
    );
    expect(await answerTo(0, e)).toEqual({ ok: true, intentId: e.intentId, version: 2, seat: 0 });
  });

  it('malformed entries (not JSON, not an envelope, no intent field) are dropped and acknowledged unseen by the handler', async () => {
    const stream = names.intentStream(0);
    const before = handled.length;
    const ids = [
      await admin.xadd(stream, '*', INTENT_FIELD, '{not json'),
      await admin.xadd(stream, '*', INTENT_FIELD, JSON.stringify({ intentId: 'x1', tableId: T0 })),
      await admin.xadd(stream, '*', 'other', JSON.stringify(envelope(T0))),
    ];
    await until('three dropped', () => logged('dropping a malformed intent').length === 3);
    expect(logged('dropping a malformed intent').map((l) => l.id)).toEqual(ids);
    expect(logged('dropping a malformed intent').every((l) => l.shard === 0 && l.level === 50)).toBe(true);
    expect(handled.length).toBe(before);
    await untilNonePending(0);
  });

  it('a handler error: StoreUnavailableError is answered UNAVAILABLE (warned), any other INTERNAL (logged as an error), both acknowledged', async () => {
    const a = envelope(T0);
    const b = envelope(T0);
    behaviour.set(a.intentId, () => {
      throw new StoreUnavailableError(a.tableId, new Error("Can't reach database server"));
    });
    behaviour.set(b.intentId, () => {
      throw new TypeError('a bug');
    });
    expect(await answerTo(0, a)).toEqual({
      ok: false,
      intentId: a.intentId,
      code: 'UNAVAILABLE',
      message: 'The table cannot be read right now; nothing was changed. Try again.',
    });
    expect(await answerTo(0, b)).toEqual({
      ok: false,
      intentId: b.intentId,
      code: 'INTERNAL',
      message: 'The table could not apply this.',
    });
    const refused = logged('intent refused: the store does not answer');
    expect(refused.map((l) => [l.level, l.intentId, l.tableId])).toEqual([[40, a.intentId, T0]]);
    const failed = logged('intent failed');
    expect(failed.map((l) => [l.level, l.intentId, l.tableId])).toEqual([[50, b.intentId, T0]]);
    await untilNonePending(0);
  });

  it('keeps reading while an intent of the shard is under way (a slow table does not hold up the next)', async () => {
    const slow = envelope(T0);
    const g = gate();
    behaviour.set(slow.intentId, async () => {
      await g.opened;
      return { ok: true, intentId: slow.intentId, version: 1, seat: null };
    });
    await send(0, slow);
    await until('the slow one started', () => timesHandled(slow) === 1);
    expect((await answerTo(0, envelope(T0)))?.ok).toBe(true);
    expect(replyOf(slow)).toBeUndefined();
    g.open();
    await until('the slow one answered', () => replyOf(slow) !== undefined);
  });

  it(`reads no more of a shard while ${MAX_IN_FLIGHT_PER_SHARD} of its intents are under way, and reads on once they finish`, async () => {
    const g = gate();
    const batch: IntentEnvelope[] = [];
    const pipeline = admin.pipeline();
    for (let i = 0; i < MAX_IN_FLIGHT_PER_SHARD; i++) {
      const e = envelope(T0);
      batch.push(e);
      behaviour.set(e.intentId, async () => {
        await g.opened;
        return { ok: true, intentId: e.intentId, version: 1, seat: null };
      });
      pipeline.xadd(names.intentStream(0), '*', INTENT_FIELD, JSON.stringify(e));
    }
    await pipeline.exec();
    await until('all started', () => batch.every((e) => timesHandled(e) === 1));
    const next = envelope(T0);
    await send(0, next);
    await sleep(1200);
    expect(timesHandled(next)).toBe(0);
    g.open();
    await until('the one after read and answered', () => replyOf(next) !== undefined);
    await until('the batch answered', () => batch.every((e) => replyOf(e) !== undefined));
    await untilNonePending(0);
  });

  it('an answer whose reply and ack fail (the connection dropped) acknowledges nothing: the entry is read again and answered once, no unhandled rejection', async () => {
    const e = envelope(T0);
    failAnswers = 1;
    expect((await answerTo(0, e))?.ok).toBe(true);
    expect(timesHandled(e)).toBe(2);
    expect(got.filter((r) => r.intentId === e.intentId)).toHaveLength(1);
    await untilNonePending(0);
    expect(unhandled).toEqual([]);
  });

  it('a write whose outcome is unknown is neither answered nor acknowledged; it is claimed again only once idle over 10 s, on the 10 s round', async () => {
    const old = envelope(T0);
    const fresh = envelope(T0);
    const unknown = (e: IntentEnvelope) => () => {
      throw new WriteOutcomeUnknownError(e.tableId, new Error('Connection terminated unexpectedly'));
    };
    behaviour.set(old.intentId, unknown(old));
    behaviour.set(fresh.intentId, unknown(fresh));
    const oldId = await send(0, old);
    const freshId = await send(0, fresh);
    await until('both handled', () => timesHandled(old) === 1 && timesHandled(fresh) === 1);
    await until(
      'both warned',
      () =>
        logged('the store did not say whether the change was written; the intent stays pending').length === 2,
    );
    expect(
      logged('the store did not say whether the change was written; the intent stays pending').map((l) => [
        l.level,
        l.intentId,
        l.tableId,
      ]),
    ).toEqual([
      [40, old.intentId, T0],
      [40, fresh.intentId, T0],
    ]);
    expect(await pending(0)).toBe(2);
    // `old` has waited 20 s as far as Redis knows; `fresh` just now.
    await admin.xclaim(names.intentStream(0), INTENT_GROUP, REPLICA, 0, oldId!, 'IDLE', 20_000, 'JUSTID');
    behaviour.delete(old.intentId);
    await sleep(1200); // a few reads: none claims before its 10 s round
    expect(timesHandled(old)).toBe(1);
    const realNow = Date.now.bind(Date);
    jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 11_000);
    await until('the old one read again and answered', () => replyOf(old) !== undefined);
    jest.restoreAllMocks();
    expect(timesHandled(old)).toBe(2);
    expect(timesHandled(fresh)).toBe(1);
    expect(replyOf(fresh)).toBeUndefined();
    await admin.xack(names.intentStream(0), INTENT_GROUP, freshId!);
    await untilNonePending(0);
  });

  it('a consumer group that vanished (NOGROUP) is made again with a warning, and reading goes on', async () => {
    await admin.xtrim(names.intentStream(0), 'MAXLEN', 0); // (made again from the start: nothing old to re-read)
    await admin.xgroup('DESTROY', names.intentStream(0), INTENT_GROUP);
    const e = envelope(T0);
    expect((await answerTo(0, e))?.ok).toBe(true);
    const warned = logged('intent stream or its consumer group is gone; creating it again');
    expect(warned.length).toBeGreaterThan(0);
    expect(warned[0]).toMatchObject({ shard: 0, stream: names.intentStream(0), level: 40 });
  });

  it('any other read error is logged and the consumer retries; once the stream can be read, it reads on', async () => {
    await admin.del(names.intentStream(0));
    await admin.set(names.intentStream(0), 'not a stream');
    await until('the failure logged', () => logged('shard consumer failed; retrying').length > 0);
    expect(logged('shard consumer failed; retrying')[0]).toMatchObject({ shard: 0, level: 50 });
    await admin.del(names.intentStream(0));
    expect((await answerTo(0, envelope(T0)))?.ok).toBe(true);
    expect(server.ownedShards().has(0)).toBe(true);
  });

  it('a shard another replica took is not read (the owner is told); taken back, it is read again', async () => {
    const lostBefore = lost.length;
    const acquiredBefore = acquired.length;
    await admin.set(names.shardLease(1), 'replica-other', 'PX', 60_000);
    await until('the shard lost', () => lost.length > lostBefore);
    expect(lost.slice(lostBefore)).toEqual([1]);
    expect([...server.ownedShards()]).toEqual([0]);
    await sleep(700); // the consumer's blocked read ends and it sees the shard is not its own
    const e = envelope(T1);
    await send(1, e);
    await sleep(700);
    expect(timesHandled(e)).toBe(0);
    await admin.del(names.shardLease(1));
    await until('the shard taken back', () => acquired.length > acquiredBefore);
    expect(acquired.slice(acquiredBefore)).toEqual([1]);
    await until('the intent read after the shard came back', () => replyOf(e) !== undefined);
  });

  it('on() is refused and unwrap() is the Redis connection', () => {
    expect(() => server.on()).toThrow('ShardedStreamsServer has no events to listen to.');
    expect(server.unwrap()).toBe(redis);
  });

  it('close finishes the intents in hand, then gives every shard back and closes its readers; nothing is read after', async () => {
    const inHand = envelope(T0);
    const g = gate();
    behaviour.set(inHand.intentId, async () => {
      await g.opened;
      return { ok: true, intentId: inHand.intentId, version: 3, seat: null };
    });
    await send(0, inHand);
    await until('in hand', () => timesHandled(inHand) === 1);
    const lostBefore = lost.length;
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await sleep(700);
    expect(closed).toBe(false);
    expect(lost.length).toBe(lostBefore);
    g.open();
    await closing;
    expect(replyOf(inHand)).toEqual({ ok: true, intentId: inHand.intentId, version: 3, seat: null });
    await untilNonePending(0);
    expect(lost.slice(lostBefore).sort()).toEqual([0, 1]);
    expect(server.ownedShards().size).toBe(0);
    expect(await admin.exists(names.shardLease(0), names.shardLease(1))).toBe(0);
    expect(await admin.zscore(names.replicaSet, REPLICA)).toBeNull();
    const readers = async () =>
      ((await admin.client('LIST')) as string)
        .split('\n')
        .filter((line) => line.includes(` name=${connectionName} `)).length;
    for (let i = 0; i < 50 && (await readers()) > 1; i++) await sleep(20);
    expect(await readers()).toBe(1); // the main connection only
    const after = envelope(T0);
    await send(0, after);
    await sleep(700);
    expect(timesHandled(after)).toBe(0);
  });
});

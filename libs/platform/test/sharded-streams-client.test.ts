import { randomBytes } from 'node:crypto';
import { IntentEnvelopeSchema, redisNames, shardOf, type IntentEnvelope } from '@dominoes/protocol';
import { createRedis, type Redis } from '../src/redis';
import { ShardedStreamsClient } from '../src/transport/sharded-streams.client';
import { TestRedisServer } from '../../../e2e/src/redis-server';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A `sync` of table K7M2QX with no player: the smallest intent a client sends with a reply. */
const syncIntent = (intentId: string): IntentEnvelope => ({
  intentId,
  tableId: 'K7M2QX',
  player: null,
  connectionId: null,
  replyTo: null,
  sentAt: Date.now(),
  intent: { kind: 'sync' },
});

/** The id of the connection named `name` (CLIENT LIST), to kill it as a dropped connection would be. */
async function connectionId(admin: Redis, name: string): Promise<string> {
  const list = (await admin.client('LIST')) as string;
  const line = list.split('\n').find((l) => l.includes(` name=${name} `));
  if (!line) throw new Error(`no connection named ${name}`);
  return /\bid=(\d+)/.exec(line)![1]!;
}

describe('the intent client when its reply subscription drops', () => {
  const prefix = `test_client_${randomBytes(4).toString('hex')}`;
  const names = redisNames(prefix);
  const replyChannel = names.replyChannel('gw1');
  let admin: Redis;
  let responder: Redis;
  let client: ShardedStreamsClient;
  let running = true;
  let n = 0;

  const envelope = (): IntentEnvelope => ({
    intentId: `p:${++n}`,
    tableId: 'K7M2QX',
    player: null,
    connectionId: null,
    replyTo: null,
    sentAt: Date.now(),
    intent: { kind: 'deadline', key: `k${n}`, dueAt: Date.now() },
  });

  /** A table-service that answers every intent the moment it is in the stream. */
  async function respond(): Promise<void> {
    let last = '$';
    while (running) {
      const result = (await responder.xread('BLOCK', 200, 'STREAMS', names.intentStream(0), last)) as
        [string, [string, string[]][]][] | null;
      for (const [id, fields] of result?.[0]?.[1] ?? []) {
        last = id;
        const e = IntentEnvelopeSchema.parse(JSON.parse(fields[1]!));
        await admin.publish(
          e.replyTo!,
          JSON.stringify({ ok: true, intentId: e.intentId, version: 1, seat: null }),
        );
      }
    }
  }

  let responding: Promise<void>;
  beforeAll(async () => {
    admin = createRedis(REDIS_URL, `${prefix}:admin`);
    responder = createRedis(REDIS_URL, `${prefix}:responder`);
    client = new ShardedStreamsClient({
      redisUrl: REDIS_URL,
      prefix,
      shards: 1,
      replyChannel,
      replyTimeoutMs: 3000,
      connectionName: prefix,
    });
    await client.connect();
    responding = respond();
    await sleep(50);
  });
  afterAll(async () => {
    running = false;
    await responding;
    await client.close();
    await admin.del(names.intentStream(0));
    admin.disconnect();
    responder.disconnect();
  });

  it('answers a request', async () => {
    await expect(client.request(envelope())).resolves.toMatchObject({ ok: true });
  });

  it('a request sent while the subscriber reconnects waits for the subscription: its reply is not lost', async () => {
    for (let i = 0; i < 3; i++) {
      await admin.client('KILL', 'ID', await connectionId(admin, `${prefix}:replies`));
      // Once the client has seen its subscriber drop (as it has by the time a restarted Redis takes
      // writes again), but at once: the table-service answers within a millisecond, and the
      // subscriber needs ~100 ms to be back.
      await sleep(20);
      await expect(client.request(envelope())).resolves.toMatchObject({ ok: true });
    }
  });
});

describe('the intent client: expiry of what it sends (issue 11)', () => {
  it('refuses an expiry that leaves less than EXPIRY_MARGIN_MS before the reply timeout', () => {
    const options = { redisUrl: REDIS_URL, prefix: 'x', shards: 1, replyChannel: 'r', replyTimeoutMs: 4000 };
    expect(() => new ShardedStreamsClient({ ...options, intentExpiryMs: 3500 })).toThrow(
      /at least 1000 ms shorter/,
    );
    expect(() => new ShardedStreamsClient({ ...options, intentExpiryMs: 3000 })).not.toThrow();
  });

  it('stamps every request with expiresAt = sent + intentExpiryMs (and keeps one already set)', async () => {
    const prefix = `test_expiry_${randomBytes(4).toString('hex')}`;
    const names = redisNames(prefix);
    const reader = createRedis(REDIS_URL, `${prefix}:reader`);
    const client = new ShardedStreamsClient({
      redisUrl: REDIS_URL,
      prefix,
      shards: 1,
      replyChannel: names.replyChannel('gw'),
      replyTimeoutMs: 1500,
      intentExpiryMs: 400,
    });
    await client.connect();
    try {
      const base = syncIntent('p:1');
      const before = Date.now();
      // Nobody answers: both time out; what matters is what reached the stream.
      await Promise.allSettled([
        client.request(base),
        client.request({ ...base, intentId: 'p:2', expiresAt: 42 }),
      ]);
      const entries = await reader.xrange(names.intentStream(0), '-', '+');
      const sent = entries.map(([, fields]) => IntentEnvelopeSchema.parse(JSON.parse(fields[1]!)));
      const first = sent.find((e) => e.intentId === 'p:1')!;
      expect(first.expiresAt).toBeGreaterThanOrEqual(before + 400);
      expect(first.expiresAt).toBeLessThanOrEqual(Date.now() + 400);
      expect(sent.find((e) => e.intentId === 'p:2')!.expiresAt).toBe(42);
    } finally {
      await client.close();
      await reader.del(names.intentStream(0));
      reader.disconnect();
    }
  });
});

describe('the intent client when Redis stalls for less than the expiry (found by the chaos test)', () => {
  it('a request whose XADD timed out waits on for the reply: Redis runs the XADD once it answers, and the intent is applied, so it is not reported as not sent', async () => {
    const redis = await TestRedisServer.start('intent-client-stall');
    const prefix = `test_stall_${randomBytes(4).toString('hex')}`;
    const names = redisNames(prefix);
    const responder = createRedis(redis.url, `${prefix}:responder`);
    const admin = createRedis(redis.url, `${prefix}:admin`);
    const client = new ShardedStreamsClient({
      redisUrl: redis.url,
      prefix,
      shards: 1,
      replyChannel: names.replyChannel('gw'),
      replyTimeoutMs: 4000,
      intentExpiryMs: 3000,
      commandTimeoutMs: 300,
    });
    let running = true;
    // A table-service that applies (answers) every intent the moment it is in the stream.
    const responding = (async () => {
      let last = '0-0'; // the stream is new: every entry in it
      while (running) {
        const result = (await responder
          .xread('BLOCK', 200, 'STREAMS', names.intentStream(0), last)
          .catch(() => null)) as [string, [string, string[]][]][] | null;
        for (const [id, fields] of result?.[0]?.[1] ?? []) {
          last = id;
          const e = IntentEnvelopeSchema.parse(JSON.parse(fields[1]!));
          await admin.publish(
            e.replyTo!,
            JSON.stringify({ ok: true, intentId: e.intentId, version: 7, seat: 0 }),
          );
        }
      }
    })();
    try {
      await client.connect();
      await sleep(50);
      redis.freeze();
      const answer = client.request(syncIntent('p:stall')).then(
        (reply) => reply,
        (error: unknown) => error as Error,
      );
      await sleep(1000); // the XADD timed out after 300 ms
      redis.thaw();
      // Before the fix: rejected with "Command timed out" after 300 ms (the gateway said UNAVAILABLE,
      // "try again", for an intent the table-service then applied).
      expect(await answer).toMatchObject({ ok: true, intentId: 'p:stall', version: 7 });
    } finally {
      redis.thaw();
      running = false;
      await responding;
      await client.close();
      responder.disconnect();
      admin.disconnect();
      await redis.stop();
    }
  }, 30_000);
});

describe("the intent client of a service's configuration (forService)", () => {
  it("sends to the configuration's prefix and shard count, with the options given (here: no reply channel)", async () => {
    const prefix = `test_client_cfg_${randomBytes(4).toString('hex')}`;
    const shards = 3;
    const names = redisNames(prefix, shards);
    const admin = createRedis(REDIS_URL, `${prefix}:admin`);
    const client = ShardedStreamsClient.forService(
      { redisUrl: REDIS_URL, redisClusterNodes: [], redisPrefix: prefix, tableShards: shards },
      { replyChannel: null, connectionName: `${prefix}:emitter` },
    );
    try {
      const tableIds = ['K7M2QX', 'A2B3C4', 'ZZZZZZ', 'QWERTY', 'M4N5P6', 'T7V8W9'];
      for (const [i, tableId] of tableIds.entries()) {
        await client.dispatch({ ...syncIntent(`cfg:${i}`), tableId });
      }
      for (const [i, tableId] of tableIds.entries()) {
        const entries = await admin.xrange(names.intentStream(shardOf(tableId, shards)), '-', '+');
        const ids = entries.map(([, fields]) => IntentEnvelopeSchema.parse(JSON.parse(fields[1]!)).intentId);
        expect(ids).toContain(`cfg:${i}`);
      }
      // No reply channel: a request fails at once instead of waiting for a reply nobody will send.
      await expect(client.request(syncIntent('cfg:request'))).rejects.toThrow();
    } finally {
      await client.close();
      await admin.del(...[0, 1, 2].map((shard) => names.intentStream(shard)));
      admin.disconnect();
    }
  });
});

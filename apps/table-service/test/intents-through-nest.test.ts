import { randomBytes } from 'node:crypto';
import { Test } from '@nestjs/testing';
import type { INestMicroservice } from '@nestjs/common';
import { createRedis, type Redis } from '@dominoes/platform';
import { INTENT_FIELD, redisNames, type IntentEnvelope, type IntentReply } from '@dominoes/protocol';
import { IntentsController } from '../src/app.controllers';
import { TableSpectators } from '../src/spectators/table-spectators';
import { TableEngine } from '../src/table/table-engine';
import { StoreUnavailableError, WriteOutcomeUnknownError } from '../src/table/table-ports';
import { appliedReply, dropPrefix, quietTransport } from './support/shard-transport';
import { sleep, until } from './support/until';

/*
 * An intent's error as the table-service wires it: the shard transport on real Redis, Nest's
 * microservice layer and the real controller (with an engine that fails as told). Nest's own RPC
 * filter would turn every error into "Internal server error" before the transport saw it.
 */

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('intent errors through Nest to the shard transport (real Redis)', () => {
  const prefix = `test_nesterrors_${randomBytes(4).toString('hex')}`;
  const names = redisNames(prefix);
  const stream = names.intentStream(0);
  const replyTo = `${prefix}:replies`;
  let redis: Redis;
  let admin: Redis;
  let replies: Redis;
  let app: INestMicroservice;
  const got: IntentReply[] = [];
  /** What the engine does with each intent id: throw this, or answer applied. */
  const failures = new Map<string, Error>();
  let n = 0;

  const envelope = (): IntentEnvelope => ({
    intentId: `n${++n}`,
    tableId: 'K7M2QX',
    player: null,
    connectionId: null,
    replyTo,
    sentAt: Date.now(),
    intent: { kind: 'deadline', key: `k${n}`, dueAt: Date.now() },
  });
  const send = (e: IntentEnvelope) => admin.xadd(stream, '*', INTENT_FIELD, JSON.stringify(e));
  /** Sends `e` and waits for its reply. */
  const answerTo = async (e: IntentEnvelope): Promise<IntentReply | undefined> => {
    await send(e);
    await until('the reply', () => got.some((r) => r.intentId === e.intentId));
    return got.find((r) => r.intentId === e.intentId);
  };
  const pending = async () => ((await admin.xpending(stream, 'table-service')) as [number])[0];

  beforeAll(async () => {
    redis = createRedis(REDIS_URL, `${prefix}:table-service`);
    admin = createRedis(REDIS_URL, `${prefix}:admin`);
    replies = createRedis(REDIS_URL, `${prefix}:replies`);
    replies.on('message', (_c: string, m: string) => got.push(JSON.parse(m) as IntentReply));
    await replies.subscribe(replyTo);
    const engine = {
      handle: async (e: IntentEnvelope): Promise<IntentReply> => {
        const failure = failures.get(e.intentId);
        if (failure) throw failure;
        return appliedReply(e);
      },
    };
    const moduleRef = await Test.createTestingModule({
      controllers: [IntentsController],
      providers: [
        { provide: TableEngine, useValue: engine },
        { provide: TableSpectators, useValue: {} },
      ],
    }).compile();
    const server = quietTransport('nest-errors-test', {
      redis,
      names,
      shards: 1,
      replicaId: 'replica-nest',
      ttlMs: 1000,
    });
    app = moduleRef.createNestMicroservice({ strategy: server, logger: false });
    await app.listen();
    await until('the shard lease', () => server.ownedShards().size === 1);
  });

  afterAll(async () => {
    await app?.close();
    await dropPrefix(prefix, admin, replies, redis);
  });

  it('an applied intent is answered and acknowledged', async () => {
    const e = envelope();
    expect(await answerTo(e)).toEqual({
      ok: true,
      intentId: e.intentId,
      version: 1,
      seat: null,
    });
  });

  it('a write whose outcome is unknown (WriteOutcomeUnknownError) reaches the transport as itself: no answer, left pending', async () => {
    const e = envelope();
    failures.set(
      e.intentId,
      new WriteOutcomeUnknownError(e.tableId, new Error('Connection terminated unexpectedly')),
    );
    const before = got.length;
    await send(e);
    await sleep(1000);
    expect(got.slice(before)).toEqual([]);
    expect(await pending()).toBe(1);
    failures.delete(e.intentId);
  });

  it('a read that failed before anything was written (StoreUnavailableError) is answered UNAVAILABLE, try again', async () => {
    const e = envelope();
    failures.set(e.intentId, new StoreUnavailableError(e.tableId, new Error("Can't reach database server")));
    expect(await answerTo(e)).toEqual({
      ok: false,
      intentId: e.intentId,
      code: 'UNAVAILABLE',
      message: 'The table cannot be read right now; nothing was changed. Try again.',
    });
  });

  it('any other error is answered INTERNAL "could not apply" and acknowledged', async () => {
    const e = envelope();
    failures.set(e.intentId, new TypeError('a bug'));
    expect(await answerTo(e)).toEqual({
      ok: false,
      intentId: e.intentId,
      code: 'INTERNAL',
      message: 'The table could not apply this.',
    });
  });
});

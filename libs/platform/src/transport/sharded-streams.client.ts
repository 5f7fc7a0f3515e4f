import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import {
  INTENT_FIELD,
  INTENT_PATTERN,
  INTENT_STREAM_MAXLEN,
  IntentEnvelopeSchema,
  IntentReplySchema,
  redisNames,
  shardOf,
  type IntentEnvelope,
  type IntentReply,
} from '@dominoes/protocol';
import { lastValueFrom } from 'rxjs';
import type { BaseConfig } from '../config';
import { createRedis, subscriberOf, type RedisClient } from '../redis';

export const DEFAULT_REPLY_TIMEOUT_MS = 10_000;
/** A writer command (XADD, PING) that Redis has not answered in this long fails (ioredis commandTimeout). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2_000;
/** An XADD unanswered for this long means Redis is not taking intents: new ones are refused at once. */
export const DEFAULT_STALL_MS = 1_000;
/** The reply timeout must leave at least this much after an intent's expiry (a commit under way, a reply in flight). */
export const EXPIRY_MARGIN_MS = 1_000;

export interface ShardedStreamsClientOptions {
  readonly redisUrl: string;
  /** REDIS_CLUSTER_NODES: when any, a Redis Cluster instead of redisUrl (createRedis). */
  readonly redisClusterNodes?: readonly string[];
  /** REDIS_PREFIX: stream names come from `redisNames(prefix)`. */
  readonly prefix: string;
  /** TABLE_SHARDS: a table's intents go to stream `shardOf(tableId, shards)`. */
  readonly shards: number;
  /**
   * The pub/sub channel the table-service publishes replies on (`names.replyChannel(id)`).
   * Null for a client that only emits (the timer-service): `send` then fails at once.
   */
  readonly replyChannel: string | null;
  readonly replyTimeoutMs?: number;
  /** `XADD ... MAXLEN ~ maxLen`: how many entries a shard stream keeps at most (roughly). */
  readonly maxLen?: number;
  /** Shown in `CLIENT LIST`. */
  readonly connectionName?: string;
  /**
   * When set, every `send` carries `expiresAt = now + intentExpiryMs` (unless it has one): the
   * table-service applies it only before then. Must be at least EXPIRY_MARGIN_MS below the reply timeout.
   */
  readonly intentExpiryMs?: number;
  /** Writer command timeout (DEFAULT_COMMAND_TIMEOUT_MS). */
  readonly commandTimeoutMs?: number;
  /** How long an unanswered XADD may wait before new `send`s are refused at once (DEFAULT_STALL_MS). */
  readonly stallMs?: number;
}

/** No reply came within the timeout. The intent may still be applied later (it stays in the stream). */
export class IntentTimeoutError extends Error {
  constructor(
    readonly intentId: string,
    timeoutMs: number,
  ) {
    super(`No reply to intent ${intentId} within ${timeoutMs} ms.`);
    this.name = 'IntentTimeoutError';
  }
}

/** The envelope failed IntentEnvelopeSchema: a bug of the sender, never of the player. */
export class InvalidEnvelopeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidEnvelopeError';
  }
}

/** The reply channel is not subscribed (Redis is away): the intent was not sent. */
export class RepliesUnavailableError extends Error {
  constructor(waitedMs: number) {
    super(
      `The reply channel was not subscribed within ${waitedMs} ms (Redis unreachable); nothing was sent.`,
    );
    this.name = 'RepliesUnavailableError';
  }
}

/**
 * Redis is not answering the writer (frozen, overloaded, a network that drops packets): the intent
 * was not sent. Refused at once, instead of queueing behind the commands already waiting.
 */
export class DeliveryStalledError extends Error {
  constructor(stalledMs: number) {
    super(`Redis has not answered the intent writer for ${stalledMs} ms; nothing was sent.`);
    this.name = 'DeliveryStalledError';
  }
}

/** ioredis's commandTimeout error: the command was written, and Redis may yet run it. */
const isCommandTimeout = (error: unknown): boolean =>
  error instanceof Error && /timed out/i.test(error.message);

/** How long a `send` waits for the reply channel to be subscribed again before it fails. */
export const REPLIES_WAIT_MS = 3000;

type Callback = (packet: WritePacket) => void;

/**
 * The sending side of the intent transport (docs/decisions: Redis Streams, one stream per shard).
 *
 * - `send('intent', envelope)` XADDs the envelope to its table's shard stream and resolves with the
 *   IntentReply the table-service publishes on `envelope.replyTo` (this client's reply channel).
 * - `emit('intent', envelope)` XADDs and resolves with the stream entry id, without waiting for
 *   anything else (the timer-service's deadlines, the gateway's presence notes).
 *
 * One writer connection and one subscriber connection per client, whatever the number of intents
 * in flight: replies are matched to their callers by `intentId`.
 */
export class ShardedStreamsClient extends ClientProxy {
  private writer: RedisClient | null = null;
  private subscriber: RedisClient | null = null;
  /**
   * Resolved while the reply channel is subscribed; a pending promise while the subscriber
   * reconnects (after Redis went away, and came back perhaps empty): a `send` waits for it before
   * its XADD, so that its reply cannot be published to nobody.
   */
  private repliesReady: Promise<void> = Promise.resolve();
  private markRepliesReady: (() => void) | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;
  private readonly pending = new Map<string, Set<Callback>>();
  private readonly names;
  private readonly replyTimeoutMs: number;
  private readonly maxLen: number;
  private readonly stallMs: number;
  /** When each XADD under way was sent (by a sequence number). */
  private readonly xaddsUnderWay = new Map<number, number>();
  private xaddSeq = 0;
  /** Since when the writer has not answered (a command timed out), until a PING gets through. */
  private stalledSince: number | null = null;
  private probing = false;

  /** A service's client: its Redis (one, or a cluster), prefix and shard count from its configuration. */
  static forService(
    config: Pick<BaseConfig, 'redisUrl' | 'redisClusterNodes' | 'redisPrefix' | 'tableShards'>,
    options: Omit<ShardedStreamsClientOptions, 'redisUrl' | 'redisClusterNodes' | 'prefix' | 'shards'>,
  ): ShardedStreamsClient {
    return new ShardedStreamsClient({
      redisUrl: config.redisUrl,
      redisClusterNodes: config.redisClusterNodes,
      prefix: config.redisPrefix,
      shards: config.tableShards,
      ...options,
    });
  }

  constructor(private readonly options: ShardedStreamsClientOptions) {
    super();
    this.names = redisNames(options.prefix, options.shards);
    this.replyTimeoutMs = options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
    this.maxLen = options.maxLen ?? INTENT_STREAM_MAXLEN;
    this.stallMs = options.stallMs ?? DEFAULT_STALL_MS;
    const expiry = options.intentExpiryMs;
    if (expiry !== undefined && expiry > this.replyTimeoutMs - EXPIRY_MARGIN_MS) {
      throw new Error(
        `The intent expiry (${expiry} ms) must be at least ${EXPIRY_MARGIN_MS} ms shorter than the reply timeout (${this.replyTimeoutMs} ms).`,
      );
    }
  }

  /**
   * Whether Redis is not taking intents now: an XADD has waited longer than the stall time, or a
   * writer command timed out and no PING has got through since. A probe PING is sent meanwhile.
   */
  stalled(now = Date.now()): boolean {
    let oldest = Number.POSITIVE_INFINITY;
    for (const at of this.xaddsUnderWay.values()) oldest = Math.min(oldest, at);
    if (now - oldest > this.stallMs) this.stalledSince ??= oldest;
    if (this.stalledSince === null) return false;
    this.probe();
    return true;
  }

  private probe(): void {
    const writer = this.writer;
    if (this.probing || !writer) return;
    this.probing = true;
    writer
      .ping()
      .then(() => {
        // Answered: what waited has been answered too (Redis answers in order).
        this.stalledSince = null;
      })
      .catch(() => undefined)
      .finally(() => (this.probing = false));
  }

  /** The stream a table's intents go to. */
  streamOf(tableId: string): string {
    return this.names.intentStream(shardOf(tableId, this.options.shards));
  }

  get replyChannel(): string | null {
    return this.options.replyChannel;
  }

  /** How many `send`s wait for their reply now. */
  get inFlight(): number {
    let n = 0;
    for (const set of this.pending.values()) n += set.size;
    return n;
  }

  connect(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('The intent client is closed.'));
    if (!this.connecting) {
      this.connecting = this.open().catch((error: unknown) => {
        this.connecting = null;
        this.disconnectAll();
        throw error;
      });
    }
    return this.connecting;
  }

  private async open(): Promise<void> {
    const name = this.options.connectionName ?? 'intents';
    // A writer fails a command after one reconnect attempt instead of queueing it forever: the
    // caller then answers UNAVAILABLE (gateway) or lets BullMQ retry the job (timer-service).
    // A command Redis does not answer in time fails too (a frozen Redis keeps the connection open).
    // The intents of one turn of the event loop (many sockets' frames) leave in one write (0033).
    const writer = createRedis(this.options, `${name}:writer`, {
      writesTogether: 'turn',
      maxRetriesPerRequest: 1,
      commandTimeout: this.options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    });
    this.writer = writer;
    await writer.ping();
    const replyChannel = this.options.replyChannel;
    if (replyChannel) {
      // Subscribed here on every (re)connect, rather than by ioredis's own resubscription, so that
      // this client knows when replies can reach it again.
      // On a cluster a sharded channel (SSUBSCRIBE on the node of the gateway's tag).
      const subscriber = createRedis(this.options, `${name}:replies`, {
        autoResubscribe: false,
        sharded: true,
      });
      const channels = subscriberOf(subscriber);
      this.subscriber = subscriber;
      this.repliesPending();
      channels.onMessage((_channel: string, message: string) => this.onReply(message));
      subscriber.on('close', () => this.repliesPending());
      const subscribe = (): Promise<void> =>
        channels.subscribe(replyChannel).then(() => {
          if (this.subscriber === subscriber) this.markRepliesReady?.();
        });
      let first = true;
      subscriber.on('ready', () => {
        // After a reconnect (the first subscription is awaited below).
        if (!first) subscribe().catch(() => undefined);
      });
      await subscribe();
      first = false;
    }
    this._status$.next('connected');
  }

  /** From now until the reply channel is subscribed again, sends wait. */
  private repliesPending(): void {
    if (this.markRepliesReady) return;
    this.repliesReady = new Promise<void>((resolve) => {
      this.markRepliesReady = () => {
        this.markRepliesReady = null;
        resolve();
      };
    });
  }

  private onReply(message: string): void {
    let json: unknown;
    try {
      json = JSON.parse(message);
    } catch {
      return;
    }
    const parsed = IntentReplySchema.safeParse(json);
    if (!parsed.success) return;
    const callbacks = this.pending.get(parsed.data.intentId);
    if (!callbacks) return;
    this.pending.delete(parsed.data.intentId);
    for (const callback of callbacks) callback({ response: parsed.data, isDisposed: true });
  }

  private check(data: unknown): IntentEnvelope {
    const parsed = IntentEnvelopeSchema.safeParse(data);
    if (!parsed.success) throw new InvalidEnvelopeError(`Invalid intent envelope: ${parsed.error.message}`);
    return parsed.data;
  }

  private xadd(envelope: IntentEnvelope): Promise<string> {
    const writer = this.writer;
    if (!writer) return Promise.reject(new Error('The intent client is not connected.'));
    const seq = ++this.xaddSeq;
    this.xaddsUnderWay.set(seq, Date.now());
    return writer
      .xadd(
        this.streamOf(envelope.tableId),
        'MAXLEN',
        '~',
        this.maxLen,
        '*',
        INTENT_FIELD,
        JSON.stringify(envelope),
      )
      .then(
        (id) => id ?? '',
        (error: unknown) => {
          if (isCommandTimeout(error)) this.stalledSince ??= Date.now();
          throw error;
        },
      )
      .finally(() => this.xaddsUnderWay.delete(seq));
  }

  protected publish(packet: ReadPacket<unknown>, callback: Callback): () => void {
    let envelope: IntentEnvelope;
    try {
      envelope = this.check(packet.data);
      if (!this.options.replyChannel) throw new Error('This intent client has no reply channel; use emit.');
    } catch (error) {
      callback({ err: error, isDisposed: true });
      return () => undefined;
    }
    if (this.stalled()) {
      callback({
        err: new DeliveryStalledError(Date.now() - (this.stalledSince ?? Date.now())),
        isDisposed: true,
      });
      return () => undefined;
    }
    const expiry = this.options.intentExpiryMs;
    const withReply: IntentEnvelope = {
      ...envelope,
      replyTo: this.options.replyChannel,
      ...(expiry !== undefined && envelope.expiresAt === undefined ? { expiresAt: Date.now() + expiry } : {}),
    };
    const intentId = withReply.intentId;
    let done = false;
    const cleanup = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const set = this.pending.get(intentId);
      if (set) {
        set.delete(settle);
        if (set.size === 0) this.pending.delete(intentId);
      }
    };
    const settle: Callback = (reply) => {
      cleanup();
      callback(reply);
    };
    const timer = setTimeout(
      () => settle({ err: new IntentTimeoutError(intentId, this.replyTimeoutMs), isDisposed: true }),
      this.replyTimeoutMs,
    );
    const set = this.pending.get(intentId) ?? new Set<Callback>();
    set.add(settle);
    this.pending.set(intentId, set);
    // Sent once the reply channel is subscribed (at once, but for the moments after Redis came back
    // while the subscriber reconnects): a reply published before that would reach nobody, and the
    // player would wait the whole timeout for an intent that was applied.
    this.whenRepliesReady(() => done)
      .then(() => (done ? undefined : this.xadd(withReply)))
      .catch((error: unknown) => {
        // A timed-out XADD may still be run by Redis once it answers again, and the intent applied
        // before its expiry: the outcome is unknown, so this waits on for the reply, and at the reply
        // timeout (past the expiry) the caller asks the log (found by the chaos test, e2e/chaos).
        if (isCommandTimeout(error)) return;
        settle({ err: error, isDisposed: true });
      });
    return cleanup;
  }

  /** Resolves once replies can reach this client; rejects if they cannot within REPLIES_WAIT_MS. */
  private async whenRepliesReady(abandoned: () => boolean): Promise<void> {
    if (!this.markRepliesReady) return;
    const waitMs = Math.min(this.replyTimeoutMs, REPLIES_WAIT_MS);
    let timer: NodeJS.Timeout | undefined;
    const ready = await Promise.race([
      this.repliesReady.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
    ]);
    clearTimeout(timer);
    if (!ready && !abandoned()) throw new RepliesUnavailableError(waitMs);
  }

  protected async dispatchEvent<T = string>(packet: ReadPacket<unknown>): Promise<T> {
    const envelope = this.check(packet.data);
    return (await this.xadd(envelope)) as T;
  }

  /**
   * `send` as a promise: the table-service's reply, or IntentTimeoutError. What `send` does, without
   * its Observable: connect, then `publish` with a callback that settles the promise (the gateway's
   * every intent; RxJS's subscribe and operators were a twentieth of its CPU, issue 14).
   */
  request(envelope: IntentEnvelope): Promise<IntentReply> {
    return this.connect().then(
      () =>
        new Promise<IntentReply>((resolve, reject) => {
          this.publish({ pattern: INTENT_PATTERN, data: envelope }, ({ err, response }) =>
            err === undefined || err === null ? resolve(response as IntentReply) : reject(err),
          );
        }),
    );
  }

  /**
   * `emit` as a promise (Nest's `dispatchEvent`): the intent goes on its stream, and no reply is
   * waited for. Resolves with the stream entry id once Redis has it.
   */
  dispatch(envelope: IntentEnvelope): Promise<string> {
    return lastValueFrom(this.emit<string, IntentEnvelope>(INTENT_PATTERN, envelope));
  }

  unwrap<T>(): T {
    if (!this.writer) throw new Error('Not connected: call connect() first.');
    return { writer: this.writer, subscriber: this.subscriber } as T;
  }

  /** Answers PING on the writer connection (readiness). */
  async ping(): Promise<boolean> {
    try {
      await this.connect();
      return (await this.writer!.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  private disconnectAll(): void {
    this.writer?.disconnect();
    this.subscriber?.disconnect();
    this.writer = null;
    this.subscriber = null;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const [intentId, callbacks] of [...this.pending]) {
      for (const callback of callbacks)
        callback({ err: new Error(`Closed before the reply to ${intentId}.`), isDisposed: true });
    }
    this.pending.clear();
    const writer = this.writer;
    const subscriber = this.subscriber;
    this.writer = null;
    this.subscriber = null;
    this.connecting = null;
    await Promise.all([endConnection(writer), endConnection(subscriber)]);
    this._status$.next('disconnected');
  }
}

/**
 * Ends a connection for good: QUIT when Redis answers (at most 1 s), then a disconnect, which also
 * stops the reconnecting of a connection whose Redis is away (a QUIT then is only queued, and the
 * connection would try to reconnect forever, keeping the process alive).
 */
async function endConnection(connection: RedisClient | null): Promise<void> {
  if (!connection) return;
  if (connection.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    const cut = new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)));
    await Promise.race([connection.quit().catch(() => undefined), cut]);
    clearTimeout(timer);
  }
  connection.disconnect();
}

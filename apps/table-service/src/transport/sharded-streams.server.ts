import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import {
  onCluster,
  publishOn,
  SpanKind,
  withRemoteParent,
  type Logger,
  type RedisClient,
} from '@dominoes/platform';
import {
  INTENT_FIELD,
  INTENT_GROUP,
  INTENT_PATTERN,
  IntentEnvelopeSchema,
  intentName,
  type IntentEnvelope,
  type IntentReply,
  type RedisNames,
} from '@dominoes/protocol';
import { ShardLeases, type LeaseTiming } from '../shards/shard-leases';
import { StoreUnavailableError, WriteOutcomeUnknownError } from '../table/table-ports';

export interface ShardedStreamsOptions {
  readonly redis: RedisClient;
  readonly names: RedisNames;
  readonly shards: number;
  readonly replicaId: string;
  readonly logger: Logger;
  readonly leaseTiming?: LeaseTiming;
  /** Called when this replica takes or loses a shard (caches, deadline rebuild). */
  readonly onShardAcquired?: (shard: number) => void;
  readonly onShardLost?: (shard: number) => void;
}

type StreamEntry = [id: string, fields: string[]];

/** Intents of one shard read and not yet answered, at most: the next read waits below this. */
export const MAX_IN_FLIGHT_PER_SHARD = 256;

/** How long a shard consumer waits after an unexpected error before it reads again. */
const CONSUMER_RETRY_MS = 500;

/** XREADGROUP / XAUTOCLAIM on a stream or group that does not exist (any more). */
export function isNoGroup(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOGROUP');
}

/**
 * A NestJS transport that routes by shard: intents for table T wait in the Redis stream of shard
 * hash(T) mod S, and only the replica holding that shard's lease reads them (a consumer group, so
 * what a dead replica had read but not acknowledged is claimed by the next owner). The handler of
 * the `intent` pattern applies it; the reply goes to the sender's reply channel; then XACK.
 */
export class ShardedStreamsServer extends Server implements CustomTransportStrategy {
  private leases: ShardLeases | null = null;
  private readonly loops = new Map<number, Promise<void>>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private intentHandler: ReturnType<Server['getHandlerByPattern']> | undefined;
  private closing = false;

  constructor(private readonly options: ShardedStreamsOptions) {
    super();
  }

  listen(callback: (...optionalParams: unknown[]) => unknown): void {
    const { redis, names, shards, replicaId, logger } = this.options;
    this.leases = new ShardLeases(
      redis,
      names,
      shards,
      replicaId,
      {
        acquired: (shard) => {
          this.options.onShardAcquired?.(shard);
          this.startConsumer(shard);
        },
        lost: (shard) => this.options.onShardLost?.(shard),
      },
      logger,
      this.options.leaseTiming,
    );
    this.leases.start();
    callback();
  }

  ownedShards(): ReadonlySet<number> {
    return this.leases?.owned ?? new Set();
  }

  private owns(shard: number): boolean {
    return !this.closing && (this.leases?.owned.has(shard) ?? false);
  }

  /**
   * One consumer loop per owned shard. A loop that ends while the shard is owned again (lost and
   * taken back while the old loop was still blocked in a read) is started again.
   */
  private startConsumer(shard: number): void {
    if (this.loops.has(shard) || !this.owns(shard)) return;
    const loop = this.consume(shard)
      .catch((error: unknown) => this.options.logger.error({ err: error, shard }, 'shard consumer stopped'))
      .finally(() => {
        this.loops.delete(shard);
        this.startConsumer(shard);
      });
    this.loops.set(shard, loop);
  }

  private async consume(shard: number): Promise<void> {
    const { redis, names, replicaId, logger } = this.options;
    const stream = names.intentStream(shard);
    const reader = redis.duplicate();
    reader.on('error', () => undefined); // reported by the main connection; this one just reconnects
    /** The group must be made (again): at the start, and after Redis lost the stream (NOGROUP). */
    let needGroup = true;
    let lastClaim = Date.now();
    /** This shard's intents under way: reading goes on while they run, up to MAX_IN_FLIGHT_PER_SHARD. */
    const pending = new Set<Promise<void>>();
    /** An intent failed before its ack (Redis dropped mid-answer): read what is unacknowledged again. */
    let failed = false;
    const onFailure = (): void => void (failed = true);
    try {
      while (this.owns(shard)) {
        try {
          if (needGroup) {
            await this.ensureGroup(reader, stream);
            // What the previous owner read but never acknowledged is ours now.
            await this.claimPending(reader, stream, shard, 0);
            needGroup = false;
            lastClaim = Date.now();
          }
          const result = (await reader.xreadgroup(
            'GROUP',
            INTENT_GROUP,
            replicaId,
            'COUNT',
            100,
            'BLOCK',
            500,
            'STREAMS',
            stream,
            '>',
          )) as [string, StreamEntry[]][] | null;
          const entries = result?.[0]?.[1] ?? [];
          await this.startAll(stream, shard, entries, pending, onFailure);
          if (failed) {
            // Once this shard's intents under way are done, so that none of them is claimed twice.
            await Promise.allSettled([...pending]);
            failed = false;
            await this.claimPending(reader, stream, shard, 0);
            lastClaim = Date.now();
          }
          if (Date.now() - lastClaim > 10_000) {
            // Retry what failed here (a fenced write) once it has waited a while.
            await this.claimPending(reader, stream, shard, 10_000);
            lastClaim = Date.now();
          }
        } catch (error) {
          if (!this.owns(shard)) break;
          needGroup = true;
          if (isNoGroup(error)) {
            // Redis lost the stream and its group (restarted empty, or the key was deleted): make
            // them again and read on. Entries added since it came back are read from the start.
            logger.warn({ shard, stream }, 'intent stream or its consumer group is gone; creating it again');
            continue;
          }
          logger.error({ err: error, shard }, 'shard consumer failed; retrying');
          await new Promise((r) => setTimeout(r, CONSUMER_RETRY_MS));
        }
      }
    } finally {
      reader.disconnect();
    }
  }

  /** XGROUP CREATE from the stream's start, making the stream if needed; an existing group is kept. */
  private async ensureGroup(reader: RedisClient, stream: string): Promise<void> {
    await reader.xgroup('CREATE', stream, INTENT_GROUP, '0', 'MKSTREAM').catch((error: Error) => {
      if (!error.message.includes('BUSYGROUP')) throw error;
    });
  }

  private async claimPending(
    reader: RedisClient,
    stream: string,
    shard: number,
    minIdleMs: number,
  ): Promise<void> {
    let cursor = '0-0';
    do {
      const [next, entries] = (await reader.xautoclaim(
        stream,
        INTENT_GROUP,
        this.options.replicaId,
        minIdleMs,
        cursor,
        'COUNT',
        100,
      )) as [string, StreamEntry[], string[]?];
      await this.processAll(
        stream,
        shard,
        entries.filter((e) => e !== null && Array.isArray(e[1])),
      );
      cursor = next;
    } while (cursor !== '0-0' && this.owns(shard));
  }

  /**
   * Starts `entries` and returns without waiting for them, unless the shard already has
   * MAX_IN_FLIGHT_PER_SHARD under way. Waiting for a whole batch before reading the next made every
   * table of the shard wait for the slowest intent of the batch (docs/performance.md).
   */
  private async startAll(
    stream: string,
    shard: number,
    entries: StreamEntry[],
    pending: Set<Promise<void>>,
    onFailure: () => void,
  ): Promise<void> {
    for (const entry of entries) {
      const work = this.track(this.process(stream, shard, entry));
      pending.add(work);
      const done = (): void => void pending.delete(work);
      work.then(done, () => {
        done();
        onFailure();
      });
    }
    while (pending.size >= MAX_IN_FLIGHT_PER_SHARD) await Promise.race(pending).catch(() => undefined);
  }

  private async processAll(stream: string, shard: number, entries: StreamEntry[]): Promise<void> {
    if (entries.length === 0) return;
    // Started in stream order; the engine keeps each table's intents in that order.
    const work = entries.map((entry) => this.track(this.process(stream, shard, entry)));
    await Promise.all(work);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    // Both ways: a `finally` chain would be a second promise whose rejection nobody handles.
    const untrack = (): void => void this.inFlight.delete(promise);
    promise.then(untrack, untrack);
    return promise;
  }

  private async process(stream: string, shard: number, [id, fields]: StreamEntry): Promise<void> {
    const { logger } = this.options;
    const raw = fields[fields.indexOf(INTENT_FIELD) + 1];
    let envelope: IntentEnvelope;
    try {
      const parsed = IntentEnvelopeSchema.safeParse(JSON.parse(raw ?? ''));
      if (!parsed.success) throw new Error(parsed.error.message);
      envelope = parsed.data;
    } catch (error) {
      logger.error({ err: error, id, shard }, 'dropping a malformed intent');
      await this.options.redis.xack(stream, INTENT_GROUP, id);
      return;
    }
    // A child of the sender's span (the gateway's ws.intent, the timer's deadline.fire).
    await withRemoteParent(
      envelope.traceparent,
      `table.intent ${intentName(envelope.intent)}`,
      () => this.answer(stream, id, envelope),
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'dominoes.table': envelope.tableId,
          'dominoes.intent.id': envelope.intentId,
          'dominoes.shard': shard,
        },
      },
    );
  }

  private async answer(stream: string, id: string, envelope: IntentEnvelope): Promise<void> {
    const { logger, redis } = this.options;
    let reply: IntentReply;
    try {
      const handler = (this.intentHandler ??= this.getHandlerByPattern(INTENT_PATTERN));
      if (!handler) throw new Error('no handler for intents');
      const result = await handler(envelope);
      reply = (isObservable(result) ? await lastValueFrom(result) : result) as IntentReply;
    } catch (error) {
      if (error instanceof WriteOutcomeUnknownError) {
        // Neither answered nor acknowledged: read again after 10 s (claimPending), once the table is
        // loaded again, the stored log answers it (at most once); the gateway asks Postgres meanwhile.
        logger.warn(
          { err: error, intentId: envelope.intentId, tableId: envelope.tableId },
          'the store did not say whether the change was written; the intent stays pending',
        );
        return;
      }
      if (error instanceof StoreUnavailableError) {
        // Nothing was written: "not applied, try again" is true.
        logger.warn(
          { err: error, intentId: envelope.intentId, tableId: envelope.tableId },
          'intent refused: the store does not answer',
        );
        reply = {
          ok: false,
          intentId: envelope.intentId,
          code: 'UNAVAILABLE',
          message: 'The table cannot be read right now; nothing was changed. Try again.',
        };
      } else {
        logger.error({ err: error, intentId: envelope.intentId, tableId: envelope.tableId }, 'intent failed');
        reply = {
          ok: false,
          intentId: envelope.intentId,
          code: 'INTERNAL',
          message: 'The table could not apply this.',
        };
      }
    }
    // On a cluster the reply channel (the gateway's tag) and the stream (the shard's) are on
    // different slots, so no pipeline: the reply, and once it is out, the ack (a reply that could
    // not be published leaves the intent pending, to be read and answered again).
    if (onCluster(redis)) {
      if (envelope.replyTo) await publishOn(redis, true, envelope.replyTo, JSON.stringify(reply));
      await redis.xack(stream, INTENT_GROUP, id);
      return;
    }
    // The reply, then the ack, issued together on the main connection (`reader` may be blocked in the
    // shard's next XREADGROUP by now): written together (decision 0033), they go out in one write with
    // the change's views and whatever else this tick issued (issue 14).
    const sent = [
      envelope.replyTo ? redis.publish(envelope.replyTo, JSON.stringify(reply)) : null,
      redis.xack(stream, INTENT_GROUP, id),
    ];
    await Promise.all(sent);
  }

  /** Finishes the intents in hand, then gives every shard back. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.loops.values()]);
    await Promise.allSettled([...this.inFlight]);
    await this.leases?.stop();
  }

  on(): never {
    throw new Error('ShardedStreamsServer has no events to listen to.');
  }

  unwrap<T>(): T {
    return this.options.redis as T;
  }
}

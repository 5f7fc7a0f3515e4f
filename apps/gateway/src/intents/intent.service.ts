import { Inject, Injectable } from '@nestjs/common';
import {
  DeliveryStalledError,
  injectTraceparent,
  IntentTimeoutError,
  setSpanAttributes,
  ShardedStreamsClient,
  type Logger,
} from '@dominoes/platform';
import { intentName, type ErrorCode, type IntentEnvelope, type IntentReply } from '@dominoes/protocol';
import { GatewayMetrics } from '../metrics';
import { TableReader } from '../tables/table-reader';
import { LOGGER } from '../di';

export const INTENTS_CLIENT = Symbol('INTENTS_CLIENT');

export type IntentOutcome =
  | { readonly ok: true; readonly reply: Extract<IntentReply, { ok: true }> }
  | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

/** The envelope with the active span's trace context (ws.intent, an API request), so the trace goes on. */
function traced(envelope: IntentEnvelope): IntentEnvelope {
  if (envelope.traceparent) return envelope;
  const traceparent = injectTraceparent();
  return traceparent ? { ...envelope, traceparent } : envelope;
}

/**
 * Sends intents to the table-service through the sharded-streams transport, counts them, and turns
 * every failure into an error code: a player only ever sees a code and a message.
 */
@Injectable()
export class IntentService {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    @Inject(INTENTS_CLIENT) private readonly client: ShardedStreamsClient,
    @Inject(GatewayMetrics) private readonly metrics: GatewayMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(TableReader) private readonly tables: TableReader,
  ) {}

  get replyChannel(): string {
    return this.client.replyChannel ?? '';
  }

  async request(unsent: IntentEnvelope): Promise<IntentOutcome> {
    const envelope = traced(unsent);
    const type = intentName(envelope.intent);
    setSpanAttributes({ 'dominoes.table': envelope.tableId, 'dominoes.intent.id': envelope.intentId });
    try {
      const reply = await this.client.request(envelope);
      this.metrics.intents.inc({ type, outcome: reply.ok ? 'ok' : reply.code });
      setSpanAttributes({ 'dominoes.intent.outcome': reply.ok ? 'ok' : reply.code });
      if (reply.ok) return { ok: true, reply };
      return { ok: false, code: reply.code, message: reply.message };
    } catch (error) {
      if (error instanceof IntentTimeoutError) {
        this.metrics.intents.inc({ type, outcome: 'timeout' });
        setSpanAttributes({ 'dominoes.intent.outcome': 'timeout' });
        this.logger.warn(
          { intentId: envelope.intentId, tableId: envelope.tableId, type },
          'no reply from the table-service; asking Postgres',
        );
        return this.confirm(envelope);
      }
      if (error instanceof DeliveryStalledError) {
        // Refused at once rather than queued behind commands Redis is not answering.
        this.metrics.intents.inc({ type, outcome: 'stalled' });
        setSpanAttributes({ 'dominoes.intent.outcome': 'stalled' });
        return {
          ok: false,
          code: 'UNAVAILABLE',
          message: 'The table service cannot take moves right now; nothing was sent. Try again in a moment.',
        };
      }
      this.metrics.intents.inc({ type, outcome: 'unavailable' });
      setSpanAttributes({ 'dominoes.intent.outcome': 'unavailable' });
      this.logger.error({ err: error, intentId: envelope.intentId, type }, 'intent could not be sent');
      return { ok: false, code: 'UNAVAILABLE', message: 'The table service cannot be reached; try again.' };
    }
  }

  /**
   * The reply is overdue, and so is the intent's expiry: nothing can apply it any more. Whether it
   * was applied (its reply lost on the way: Redis froze after the commit) is in the log.
   */
  private async confirm(envelope: IntentEnvelope): Promise<IntentOutcome> {
    try {
      const stored = await this.tables.storedIntent(
        envelope.tableId,
        envelope.intentId,
        envelope.player?.id ?? null,
      );
      if (stored) {
        this.logger.info(
          { intentId: envelope.intentId },
          'reply lost, but the intent is stored: acknowledged',
        );
        return {
          ok: true,
          reply: { ok: true, intentId: envelope.intentId, version: stored.version, seat: stored.seat },
        };
      }
      return {
        ok: false,
        code: 'UNAVAILABLE',
        message: 'The table service did not answer in time, and this was not applied; try again.',
      };
    } catch (error) {
      this.logger.error(
        { err: error, intentId: envelope.intentId },
        'could not confirm an unanswered intent',
      );
      return {
        ok: false,
        code: 'UNAVAILABLE',
        message:
          'The table service did not answer in time and the outcome could not be confirmed; the table will show whether it was made.',
      };
    }
  }

  /**
   * Dispatches: puts the intent on its stream and waits for no reply (the presence notes of sockets
   * that left or closed), as the transport's `dispatch`. Never rejects.
   */
  dispatch(unsent: IntentEnvelope): Promise<void> {
    const envelope = traced(unsent);
    const type = intentName(envelope.intent);
    const sending = this.client
      .dispatch(envelope)
      .then(() => {
        this.metrics.intents.inc({ type, outcome: 'sent' });
      })
      .catch((error: unknown) => {
        this.metrics.intents.inc({ type, outcome: 'unavailable' });
        this.logger.error({ err: error, intentId: envelope.intentId, type }, 'intent could not be sent');
      })
      .finally(() => this.inFlight.delete(sending));
    this.inFlight.add(sending);
    return sending;
  }

  /** Waits (at most `timeoutMs`) for every dispatched intent to reach Redis. */
  async flush(timeoutMs: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.inFlight]),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }

  ping(): Promise<boolean> {
    return this.client.ping();
  }

  connect(): Promise<void> {
    return this.client.connect();
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

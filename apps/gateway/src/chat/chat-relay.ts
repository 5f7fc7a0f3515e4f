import { randomBytes } from 'node:crypto';
import {
  CHAT_HISTORY_KEPT,
  CHAT_HISTORY_TTL_MS,
  chatBodyOf,
  chatFrameText,
  ChatMessageSchema,
  type ChatMessage,
  type ErrorCode,
  type RedisNames,
  type ServerMessage,
  type TalkMessage,
} from '@dominoes/protocol';
import { onCluster, publishOn, subscriberOf, type Clock, type Logger } from '@dominoes/platform';
import type { ChatRate, ChatRedis } from './chat-rate';

/** A socket that reads a table's chat (a seated player's, or a spectator's). */
export interface ChatReader {
  readonly id: string;
  send(frame: ServerMessage): void;
  sendText(text: string): void;
}

/** Who sends: the socket's player and its seat binding (null: not seated, a spectator included). */
export interface ChatSender {
  /** The socket's connection id: it must be on the seat (the table-service's presence), not only bound. */
  readonly id: string;
  readonly player: { readonly id: string; readonly name: string } | null;
  readonly binding: { readonly tableId: string; readonly seat: number } | null;
  /** The table the socket watches (decision 0018), if it does: a spectator reads and never writes. */
  readonly watching?: { readonly tableId: string } | null;
}

export type SayOutcome = { ok: true; message: ChatMessage } | { ok: false; code: ErrorCode; message: string };

/** Tables whose chat setting this gateway remembers (it never changes once a table is open). */
const SETTINGS_KEPT = 10_000;

export interface ChatRelayOptions {
  /** Commands: the rate counters, the recent messages, PUBLISH. */
  readonly redis: ChatRedis;
  /** A connection of its own, in subscriber mode: the chat channels of the tables this gateway's sockets read. */
  readonly subscriber: ChatRedis;
  readonly names: RedisNames;
  readonly rate: ChatRate;
  /** Whether a table's host left text chat on (Postgres; null: no such table). */
  readonly chatEnabled: (tableId: string) => Promise<boolean | null>;
  /**
   * Whether the seat is the player's with this connection on it, as the table-service last stored it
   * (Postgres). A socket's binding outlives its seat when the seat is freed or taken back on another
   * socket (the table-service tells no gateway), so the binding alone does not say it sits there.
   */
  readonly seatHeld: (
    tableId: string,
    seat: number,
    playerId: string,
    connectionId: string,
  ) => Promise<boolean>;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * A table's chat, beside its game and never through it (decision 0020): no intent, no table-service,
 * no version. The gateway checks that the sender is seated at the table (its socket's binding, and
 * its connection on that seat in the table's stored state: a socket whose seat was freed, or taken
 * back on another socket, is NOT_SEATED), that
 * the host left text chat on, and the player's rate (Redis, shared by every gateway); it publishes on
 * the table's chat channel and keeps the last CHAT_HISTORY_KEPT messages. Every gateway listens on
 * the chat channel of each table one of its sockets reads (its seated players and its spectators) and
 * passes every message on, as it came, to those sockets.
 */
export class ChatRelay {
  /** The sockets reading each table's chat on this gateway. */
  private readonly readers = new Map<string, Set<ChatReader>>();
  /** The table each socket reads: one at a time. */
  private readonly reading = new Map<ChatReader, string>();
  private readonly subscribed = new Map<string, Promise<unknown>>();
  private readonly tableOfChannel = new Map<string, string>();
  private readonly settings = new Map<string, boolean>();
  /** SSUBSCRIBE on a cluster (a table's chat channel is on its shard's node), SUBSCRIBE on one Redis. */
  private readonly channels: ReturnType<typeof subscriberOf>;

  constructor(private readonly options: ChatRelayOptions) {
    this.channels = subscriberOf(options.subscriber);
    this.channels.onMessage((channel: string, text: string) => {
      try {
        this.deliver(channel, text);
      } catch (error) {
        options.logger.error({ err: error, channel }, 'chat delivery failed');
      }
    });
    options.subscriber.on('error', (error: Error) =>
      options.logger.warn({ err: error.message }, 'chat subscriber: Redis error'),
    );
  }

  /**
   * `reader` reads table `tableId`'s chat from now on (and no other table's): it is sent the recent
   * messages and the table's setting once the subscription holds, so nothing said meanwhile is lost
   * (a message in both is told apart by its id).
   */
  async follow(reader: ChatReader, tableId: string): Promise<void> {
    if (this.reading.get(reader) !== tableId) {
      this.unfollow(reader);
      this.reading.set(reader, tableId);
      let set = this.readers.get(tableId);
      if (!set) {
        set = new Set();
        this.readers.set(tableId, set);
        const channel = this.options.names.chatChannel(tableId);
        this.tableOfChannel.set(channel, tableId);
        this.subscribed.set(tableId, this.channels.subscribe(channel));
      }
      set.add(reader);
    }
    try {
      await this.subscribed.get(tableId);
      const [enabled, recent] = await Promise.all([
        this.enabled(tableId),
        this.options.redis.lrange(this.options.names.chatRecent(tableId), 0, CHAT_HISTORY_KEPT - 1),
      ]);
      if (this.reading.get(reader) !== tableId) return;
      const messages = recent.flatMap((text) => {
        const message = this.parse(text, tableId);
        return message ? [message] : [];
      });
      reader.send({ type: 'chatHistory', tableId, enabled: enabled === true, messages: messages.reverse() });
    } catch (error) {
      this.options.logger.warn({ err: error, tableId, conn: reader.id }, 'chat history not sent');
    }
  }

  /** `reader` stops reading the chat it read (of table `only`, when given): its seat or watch ended, or it closed. */
  unfollow(reader: ChatReader, only?: string): void {
    const tableId = this.reading.get(reader);
    if (tableId === undefined || (only !== undefined && only !== tableId)) return;
    this.reading.delete(reader);
    const set = this.readers.get(tableId);
    if (!set || !set.delete(reader) || set.size > 0) return;
    this.readers.delete(tableId);
    this.subscribed.delete(tableId);
    const channel = this.options.names.chatChannel(tableId);
    this.tableOfChannel.delete(channel);
    this.channels
      .unsubscribe(channel)
      .catch((error: Error) =>
        this.options.logger.warn({ err: error.message, channel }, 'unsubscribe failed'),
      );
  }

  /** Checks and publishes one talk frame of `sender`; nothing is published when it is refused. */
  async say(sender: ChatSender, frame: TalkMessage): Promise<SayOutcome> {
    const { player, binding } = sender;
    if (player === null) return refused('UNAUTHENTICATED', 'Say hello with your token first.');
    if (binding === null)
      return sender.watching
        ? refused(
            'SPECTATORS_CANNOT_ACT',
            'Spectators read the chat; only the players seated at the table write.',
          )
        : refused('NOT_SEATED', 'Only the players seated at a table talk there.');
    const { tableId, seat } = binding;
    try {
      if (!(await this.options.seatHeld(tableId, seat, player.id, sender.id)))
        return refused('NOT_SEATED', 'You are no longer seated at this table: join it again to talk.');
      if (frame.type === 'chat' && (await this.enabled(tableId)) !== true)
        return refused(
          'CHAT_OFF',
          'The host turned text chat off at this table; quick phrases and reactions work.',
        );
      if (!(await this.options.rate.take(player.id)))
        return refused('CHAT_RATE_LIMITED', 'Too many messages: wait a few seconds.');
      const at = this.options.clock.now();
      const message: ChatMessage = {
        id: `${at.toString(36)}-${randomBytes(6).toString('hex')}`,
        tableId,
        seat,
        playerId: player.id,
        name: player.name,
        at,
        body: chatBodyOf(frame),
      };
      const text = JSON.stringify(message);
      const { names, redis } = this.options;
      // The channel and the recent list share the table's shard tag: one slot, one MULTI on a cluster too.
      const batch = redis.multi();
      publishOn(batch, onCluster(redis), names.chatChannel(tableId), text);
      // Reactions are of the moment: a reload does not show them again.
      if (message.body.kind !== 'reaction') {
        const recent = names.chatRecent(tableId);
        batch
          .lpush(recent, text)
          .ltrim(recent, 0, CHAT_HISTORY_KEPT - 1)
          .pexpire(recent, CHAT_HISTORY_TTL_MS);
      }
      await batch.exec();
      return { ok: true, message };
    } catch (error) {
      this.options.logger.warn({ err: error, tableId, player: player.id }, 'chat message not sent');
      return refused('UNAVAILABLE', 'The chat is not available right now; try again.');
    }
  }

  /** Tables with at least one local reader. */
  get tables(): number {
    return this.readers.size;
  }

  async close(): Promise<void> {
    this.readers.clear();
    this.reading.clear();
    this.subscribed.clear();
    await Promise.all([
      this.options.subscriber.quit().catch(() => undefined),
      this.options.redis.quit().catch(() => undefined),
    ]);
  }

  private async enabled(tableId: string): Promise<boolean | null> {
    const known = this.settings.get(tableId);
    if (known !== undefined) return known;
    const enabled = await this.options.chatEnabled(tableId);
    if (enabled === null) return null;
    if (this.settings.size >= SETTINGS_KEPT) {
      const oldest = this.settings.keys().next().value;
      if (oldest !== undefined) this.settings.delete(oldest);
    }
    this.settings.set(tableId, enabled);
    return enabled;
  }

  /** A message of table `tableId` from Redis, or null when it is not one (it is dropped). */
  private parse(text: string, tableId: string): ChatMessage | null {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return null;
    }
    const message = ChatMessageSchema.safeParse(json);
    return message.success && message.data.tableId === tableId ? message.data : null;
  }

  private deliver(channel: string, text: string): void {
    const tableId = this.tableOfChannel.get(channel);
    const readers = tableId === undefined ? undefined : this.readers.get(tableId);
    if (tableId === undefined || !readers || readers.size === 0) return;
    // Checked once per gateway, then passed on as it came: the channel names the table.
    if (this.parse(text, tableId) === null) {
      this.options.logger.warn({ channel }, 'dropped an invalid chat message');
      return;
    }
    const frame = chatFrameText(text);
    for (const reader of readers) reader.sendText(frame);
  }
}

function refused(code: ErrorCode, message: string): SayOutcome {
  return { ok: false, code, message };
}

import { z } from 'zod';
import { ErrorCodeSchema, CreateTableRequestSchema } from './messages';
import { ActionSchema } from './actions';
import { TableViewSchema, type TableView } from './views';
import { applyViewChange, ViewChangeSchema } from './view-changes';
import { decodeHeaderLine, type DecodedHeaderLine } from './header-line';

/*
 * Messages between the services. They travel over Redis: intents on one stream per shard
 * (gateway/timer → table-service), replies and views on pub/sub channels (table-service → gateway).
 */

export const TableIntentSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('create'), config: CreateTableRequestSchema }),
  z.object({ kind: z.literal('join') }),
  z.object({ kind: z.literal('leave') }),
  /** A move: the rules' action, of the seat the sending socket is bound to (the table checks it is the player's). */
  z.object({ kind: z.literal('action'), action: ActionSchema }),
  z.object({ kind: z.literal('autoPass'), on: z.boolean() }),
  z.object({ kind: z.literal('startRound') }),
  z.object({ kind: z.literal('newMatch') }),
  z.object({ kind: z.literal('sync') }),
  /** A socket starts (`on`) or stops watching the table (decision 0018); never stored, never in the log. */
  z.object({ kind: z.literal('watch'), on: z.boolean() }),
  /** A socket of this player opened or closed (P17). */
  z.object({ kind: z.literal('presence'), connected: z.boolean() }),
  /** From the timer-service: the deadline named `key` is due (P16, P18). */
  z.object({ kind: z.literal('deadline'), key: z.string(), dueAt: z.number() }),
]);
export type TableIntent = z.infer<typeof TableIntentSchema>;

/** An intent's name in metrics, logs and spans: a move by its action's type (`play`, `pass`, `draw`), any other by its kind. */
export const intentName = (intent: TableIntent): string =>
  intent.kind === 'action' ? intent.action.type : intent.kind;

export const IntentEnvelopeSchema = z.object({
  /** Unique per table: `<playerId>:<client id>` for players, `deadline:<key>` for the timer. */
  intentId: z.string().min(1).max(160),
  tableId: z.string(),
  player: z.object({ id: z.string(), name: z.string() }).nullable(),
  /** The socket that sent it, for presence. */
  connectionId: z.string().nullable(),
  /** The pub/sub channel that wants the reply, or null. */
  replyTo: z.string().nullable(),
  sentAt: z.number(),
  /**
   * When set (ms since the epoch): the table-service applies the intent only before then, checked
   * again by Postgres inside the write itself. The gateway waits for the reply until after it, so
   * its UNAVAILABLE answer means "not applied" (issue 11). Presence and deadlines have none.
   */
  expiresAt: z.number().optional(),
  /** W3C trace context of the sender. */
  traceparent: z.string().optional(),
  intent: TableIntentSchema,
});
export type IntentEnvelope = z.infer<typeof IntentEnvelopeSchema>;

export const IntentReplySchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    intentId: z.string(),
    version: z.number().int().nullable(),
    seat: z.number().int().nullable(),
    /**
     * For an intent that changed nothing from a seated player (a sync): the asker's seat view as
     * JSON text (as in a seat event), for the asking socket alone. Published on the seat channel,
     * it went to every socket of the seat.
     */
    view: z.string().optional(),
  }),
  z.object({ ok: z.literal(false), intentId: z.string(), code: ErrorCodeSchema, message: z.string() }),
]);
export type IntentReply = z.infer<typeof IntentReplySchema>;

/**
 * From one gateway to another, on the other's control channel: close one of your sockets, the
 * player holds more than WS_MAX_SOCKETS_PER_PLAYER across the gateways and this one is the oldest.
 */
export const GatewayControlSchema = z.object({
  kind: z.literal('too-many-sockets'),
  connectionId: z.string(),
  max: z.number().int(),
});
export type GatewayControl = z.infer<typeof GatewayControlSchema>;

/** One seat's new view, published on that seat's channel after the change is stored. */
export const SeatEventSchema = z.object({
  tableId: z.string(),
  seat: z.number().int(),
  version: z.number().int(),
  view: TableViewSchema,
  /** The intent that caused it, for action-to-view latency. */
  cause: z.object({ intentId: z.string(), sentAt: z.number() }).nullable(),
  traceparent: z.string().optional(),
});
export type SeatEvent = z.infer<typeof SeatEventSchema>;

/**
 * What the gateway needs of a seat event to route it: everything but the view. On the wire a seat
 * event is this header as one JSON line, a newline, then the view as JSON (`encodeSeatEvent`), so
 * that the gateway checks the small header and passes the view's text on to the sockets without
 * parsing, checking and writing it out again (docs/performance.md: that was half the gateway's CPU).
 */
export const SeatEventHeaderSchema = z.object({
  tableId: z.string(),
  seat: z.number().int(),
  version: z.number().int(),
  /** The player the view was made for (`view.you.playerId`). */
  playerId: z.string().nullable(),
  cause: SeatEventSchema.shape.cause,
  traceparent: z.string().optional(),
  /**
   * Present when the body is not the whole view but a change (`ViewChange` JSON, decision 0036) from
   * the seat's view at version `base`, the version the table had before this change.
   */
  base: z.number().int().optional(),
});
export type SeatEventHeader = z.infer<typeof SeatEventHeaderSchema>;

/** A seat event as published: header line, newline, view JSON. */
export function encodeSeatEvent(event: SeatEvent): string {
  if (event.view.you.seat !== event.seat)
    throw new Error(`a view of seat ${event.view.you.seat} cannot be published for seat ${event.seat}`);
  const header: SeatEventHeader = {
    tableId: event.tableId,
    seat: event.seat,
    version: event.version,
    playerId: event.view.you.playerId,
    cause: event.cause,
    ...(event.traceparent ? { traceparent: event.traceparent } : {}),
  };
  return encodeSeatMessage({ header, viewJson: JSON.stringify(event.view) });
}

/**
 * A seat event whose view is already JSON text (the table-service writes the part every seat's view
 * shares once per change): what `encodeSeatEvent` publishes, with `viewJson` as its view.
 */
export interface SeatMessage {
  readonly header: SeatEventHeader;
  /**
   * `JSON.stringify` of the seat's TableView, whose `you.seat` and `you.playerId` are the header's;
   * with `header.base`, `JSON.stringify` of the ViewChange from the seat's view at that version.
   */
  readonly viewJson: string;
}

/** A seat message as published: header line, newline, view JSON. */
export function encodeSeatMessage(message: SeatMessage): string {
  // JSON.stringify escapes every newline inside strings, so the first '\n' ends the header.
  return `${JSON.stringify(message.header)}\n${message.viewJson}`;
}

/**
 * The seat messages of one table's change as one message on its views channel (decision 0037): each
 * seat's header line and body line, one after the other. Neither holds a newline (both are
 * `JSON.stringify` output), so every two lines are one seat's message.
 */
export function encodeSeatMessages(messages: readonly SeatMessage[]): string {
  return messages.map(encodeSeatMessage).join('\n');
}

/**
 * Each seat's message (header line, newline, body) of a views channel message, in order; null when
 * its lines do not pair up (not `encodeSeatMessages` output).
 */
export function splitSeatMessages(text: string): string[] | null {
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    const headerEnd = text.indexOf('\n', start);
    if (headerEnd < 0) return null;
    const bodyEnd = text.indexOf('\n', headerEnd + 1);
    const end = bodyEnd < 0 ? text.length : bodyEnd;
    parts.push(text.slice(start, end));
    start = end + 1;
  }
  return parts.length > 0 ? parts : null;
}

export type DecodedSeatEvent = DecodedHeaderLine<SeatEventHeader>;

/**
 * The gateway's side: checks the header; the view stays text. The view's shape is the
 * table-service's promise (it is built by `libs/rules` and checked against `TableViewSchema` in
 * the tests); `parseSeatEvent` checks all of it where the cost does not matter.
 */
export const decodeSeatEventHeader = (message: string): DecodedSeatEvent =>
  decodeHeaderLine(message, SeatEventHeaderSchema, (header) => header.base !== undefined);

/** The whole event, view checked too (tests, tools). Throws on anything malformed. */
export function parseSeatEvent(message: string): SeatEvent {
  const decoded = decodeSeatEventHeader(message);
  if (!decoded.ok) throw new Error(`not a seat event: ${decoded.reason}`);
  if (decoded.header.base !== undefined)
    throw new Error('a change of a view, not a whole view (see header.base)');
  const { playerId: _playerId, base: _base, ...rest } = decoded.header;
  return SeatEventSchema.parse({ ...rest, view: JSON.parse(decoded.viewJson) });
}

/**
 * Reads published seat events in the order they came, as whole views: a change is applied to the
 * last view read of its table's seat (tests and tools; the gateway passes changes on as they are).
 * Throws on anything malformed, and on a change whose base is not the last view read of its seat.
 */
export class SeatEventReader {
  private readonly last = new Map<string, { version: number; view: TableView }>();

  /**
   * Every seat's event of a views channel message (`encodeSeatMessages`), in order; with `seats`,
   * those of the seats listed only (as a gateway serving only those would).
   */
  readAll(text: string, seats?: readonly number[]): SeatEvent[] {
    const parts = splitSeatMessages(text);
    if (parts === null) throw new Error('not a views message: its lines do not pair up');
    const events: SeatEvent[] = [];
    for (const part of parts) {
      const decoded = this.decode(part);
      if (seats === undefined || seats.includes(decoded.header.seat)) events.push(this.readDecoded(decoded));
    }
    return events;
  }

  /** One seat's message (`encodeSeatMessage`). */
  read(message: string): SeatEvent {
    return this.readDecoded(this.decode(message));
  }

  private decode(message: string): Extract<DecodedSeatEvent, { ok: true }> {
    const decoded = decodeSeatEventHeader(message);
    if (!decoded.ok) throw new Error(`not a seat event: ${decoded.reason}`);
    return decoded;
  }

  private readDecoded(decoded: Extract<DecodedSeatEvent, { ok: true }>): SeatEvent {
    const { playerId: _playerId, base, ...rest } = decoded.header;
    const key = `${rest.tableId}/${rest.seat}`;
    const body: unknown = JSON.parse(decoded.viewJson);
    let view: unknown = body;
    if (base !== undefined) {
      const last = this.last.get(key);
      if (last?.version !== base)
        throw new Error(
          `a change of ${key} from version ${base}, but the last view read is ${last?.version ?? 'none'}`,
        );
      view = applyViewChange(last.view, ViewChangeSchema.parse(body));
    }
    const event = SeatEventSchema.parse({ ...rest, view });
    this.hold(event);
    return event;
  }

  /** Takes `event`'s view as the last of its seat (a reader that starts after the seat's first view). */
  hold(event: Pick<SeatEvent, 'tableId' | 'seat' | 'version' | 'view'>): void {
    this.last.set(`${event.tableId}/${event.seat}`, { version: event.version, view: event.view });
  }
}

/** A BullMQ job of the "deadlines" queue: one per table, replaced at every change. */
export const DeadlineJobSchema = z.object({
  tableId: z.string(),
  key: z.string(),
  dueAt: z.number(),
  traceparent: z.string().optional(),
});
export type DeadlineJob = z.infer<typeof DeadlineJobSchema>;

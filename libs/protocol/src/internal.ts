import { z } from 'zod';
import { ErrorCodeSchema, CreateTableRequestSchema } from './messages';
import { ActionSchema } from './actions';
import { TableViewSchema } from './views';
import { decodeHeaderLine } from './header-line';

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

/** One seat's new view of a stored change (the table-service publishes a table's seats together). */
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
 * What a gateway needs of a table's views to route them: everything but the views. On the wire
 * (the table's views channel, `RedisNames.viewsChannel`) the message is this header as one JSON
 * line, then one line per entry of `seats`, in that order: that seat's view as JSON
 * (`encodeTableViews`). One message per change carries every seat's view (decision 0027); the
 * gateway checks the small header and passes each line's text on to the sockets bound to that seat
 * alone, without parsing, checking and writing it out again (docs/performance.md).
 */
export const TableViewsHeaderSchema = z.object({
  tableId: z.string(),
  version: z.number().int(),
  cause: SeatEventSchema.shape.cause,
  traceparent: z.string().optional(),
  /** The seats whose views follow, line by line, each with the player it was made for (`view.you.playerId`). */
  seats: z
    .array(z.object({ seat: z.number().int(), playerId: z.string().nullable() }))
    .min(1)
    .refine((seats) => new Set(seats.map((s) => s.seat)).size === seats.length, 'a seat is listed twice'),
});
export type TableViewsHeader = z.infer<typeof TableViewsHeaderSchema>;

/**
 * The views of one table's change as published: header line, then one view JSON per line.
 * JSON.stringify escapes every newline inside strings, so the lines cannot be confused. Every event
 * must be of the same table, version, cause and trace, each view of its own seat.
 */
export function encodeTableViews(events: readonly SeatEvent[]): string {
  const first = events[0];
  if (!first) throw new Error('no views to publish');
  const lines: string[] = [];
  const seats: TableViewsHeader['seats'] = [];
  for (const event of events) {
    if (event.view.you.seat !== event.seat)
      throw new Error(`a view of seat ${event.view.you.seat} cannot be published for seat ${event.seat}`);
    if (
      event.tableId !== first.tableId ||
      event.version !== first.version ||
      event.cause?.intentId !== first.cause?.intentId ||
      event.cause?.sentAt !== first.cause?.sentAt ||
      event.traceparent !== first.traceparent
    )
      throw new Error('the views of one message must be of one table, version, cause and trace');
    seats.push({ seat: event.seat, playerId: event.view.you.playerId });
    lines.push(JSON.stringify(event.view));
  }
  const header: TableViewsHeader = {
    tableId: first.tableId,
    version: first.version,
    cause: first.cause,
    ...(first.traceparent ? { traceparent: first.traceparent } : {}),
    seats,
  };
  return `${JSON.stringify(header)}\n${lines.join('\n')}`;
}

export type DecodedTableViews =
  { ok: true; header: TableViewsHeader; viewJson: readonly string[] } | { ok: false; reason: string };

/**
 * The gateway's side: checks the header and that there is one JSON object per listed seat; the
 * views stay text (`viewJson[i]` is `header.seats[i]`'s). The view's shape is the table-service's
 * promise (built by `libs/rules`, checked against `TableViewSchema` in the tests); `parseTableViews`
 * checks all of it where the cost does not matter.
 */
export function decodeTableViews(message: string): DecodedTableViews {
  const decoded = decodeHeaderLine(message, TableViewsHeaderSchema);
  if (!decoded.ok) return decoded;
  const viewJson = decoded.viewJson.split('\n');
  if (viewJson.length !== decoded.header.seats.length)
    return { ok: false, reason: `${decoded.header.seats.length} seats listed, ${viewJson.length} views` };
  if (!viewJson.every((v) => v.startsWith('{') && v.endsWith('}')))
    return { ok: false, reason: 'a view is not a JSON object' };
  return { ok: true, header: decoded.header, viewJson };
}

/** Every seat's whole event, views checked too (tests, tools). Throws on anything malformed. */
export function parseTableViews(message: string): SeatEvent[] {
  const decoded = decodeTableViews(message);
  if (!decoded.ok) throw new Error(`not a table's views: ${decoded.reason}`);
  const { seats, ...rest } = decoded.header;
  return seats.map(({ seat }, i) =>
    SeatEventSchema.parse({ ...rest, seat, view: JSON.parse(decoded.viewJson[i]!) }),
  );
}

/** A BullMQ job of the "deadlines" queue: one per table, replaced at every change. */
export const DeadlineJobSchema = z.object({
  tableId: z.string(),
  key: z.string(),
  dueAt: z.number(),
  traceparent: z.string().optional(),
});
export type DeadlineJob = z.infer<typeof DeadlineJobSchema>;

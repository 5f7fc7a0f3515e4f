import { z } from 'zod';
import { ErrorCodeSchema, CreateTableRequestSchema } from './messages';
import { EndIdSchema, TileSchema } from './primitives';
import { TableViewSchema } from './views';

/*
 * Messages between the services. They travel over Redis: intents on one stream per shard
 * (gateway/timer → table-service), replies and views on pub/sub channels (table-service → gateway).
 */

export const TableIntentSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('create'), config: CreateTableRequestSchema }),
  z.object({ kind: z.literal('join') }),
  z.object({ kind: z.literal('leave') }),
  z.object({ kind: z.literal('play'), tile: TileSchema, end: EndIdSchema.optional() }),
  z.object({ kind: z.literal('pass') }),
  z.object({ kind: z.literal('draw') }),
  z.object({ kind: z.literal('autoPass'), on: z.boolean() }),
  z.object({ kind: z.literal('startRound') }),
  z.object({ kind: z.literal('newMatch') }),
  z.object({ kind: z.literal('sync') }),
  /** A socket of this player opened or closed (P17). */
  z.object({ kind: z.literal('presence'), connected: z.boolean() }),
  /** From the timer-service: the deadline named `key` is due (P16, P18). */
  z.object({ kind: z.literal('deadline'), key: z.string(), dueAt: z.number() }),
]);
export type TableIntent = z.infer<typeof TableIntentSchema>;
export type TableIntentKind = TableIntent['kind'];

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
  }),
  z.object({ ok: z.literal(false), intentId: z.string(), code: ErrorCodeSchema, message: z.string() }),
]);
export type IntentReply = z.infer<typeof IntentReplySchema>;

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

/** A BullMQ job of the "deadlines" queue: one per table, replaced at every change. */
export const DeadlineJobSchema = z.object({
  tableId: z.string(),
  key: z.string(),
  dueAt: z.number(),
  traceparent: z.string().optional(),
});
export type DeadlineJob = z.infer<typeof DeadlineJobSchema>;

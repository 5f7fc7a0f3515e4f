import { z } from 'zod';
import { IntentIdSchema, TableCodeSchema, VariantSchema } from './primitives';

/*
 * The lobby (issue 12, "Finding a game"): the public tables that wait for players (with one of them
 * there: decision 0026) or are in play, live. A private table (the default) is never in a lobby list or update; only its own seated
 * players see it, under `yours`.
 */

/** A `lobby` frame lists at most this many waiting tables (the oldest first) and tables in play (the newest). */
export const LOBBY_MAX_WAITING = 40;
export const LOBBY_MAX_PLAYING = 20;
export const LOBBY_MAX_TABLES = LOBBY_MAX_WAITING + LOBBY_MAX_PLAYING;
/** ... and at most this many of your own tables. */
export const LOBBY_MAX_YOURS = 20;

/** A table as the lobby shows it. `players` has one entry per seat: the seated name, or null for a free seat. */
export const LobbyTableSchema = z.object({
  tableId: TableCodeSchema,
  variant: VariantSchema,
  seatCount: z.number().int(),
  target: z.number().int(),
  oneRound: z.boolean(),
  /** Only `waiting` (seats to take) and `playing` (to watch) tables are listed. */
  status: z.enum(['waiting', 'playing']),
  players: z.array(z.string().nullable()),
  /** The host's name (the host is seated while the table waits). */
  host: z.string().nullable(),
  /** When the table was opened, epoch ms (server time). */
  openedAt: z.number(),
  /** The table's version when this was read: a client keeps the newest of each table. */
  version: z.number().int(),
  /** Whether the table is public; false only under `yours` (your own private table). */
  public: z.boolean(),
});
export type LobbyTable = z.infer<typeof LobbyTableSchema>;

/**
 * A change of one public table, published by the table-service on the lobby channel after its store
 * commit (only when a seat, the host, the status or its listing changed), and sent as is to every lobby
 * subscriber on every gateway. `table: null`: it left the lobby (finished, closed, emptied, or waiting
 * with every seated player gone: decision 0026; it comes back when one of them returns).
 */
export const LobbyUpdateSchema = z.object({
  tableId: TableCodeSchema,
  version: z.number().int(),
  table: LobbyTableSchema.nullable(),
});
export type LobbyUpdate = z.infer<typeof LobbyUpdateSchema>;

/** Browser → gateway: `on: true` subscribes this socket to the lobby (a `lobby` frame, then `lobbyUpdate`s). */
export const LobbyRequestSchema = z
  .object({ type: z.literal('lobby'), id: IntentIdSchema, on: z.boolean() })
  .strict();

/** Gateway → browser: the whole lobby when a socket subscribes. */
export const LobbyFrameSchema = z.object({
  type: z.literal('lobby'),
  /** The public tables: waiting ones (oldest first), then some in play; at most LOBBY_MAX_TABLES. */
  tables: z.array(LobbyTableSchema).max(LOBBY_MAX_TABLES),
  /** How many public tables wait and play in all (the list may show fewer). */
  counts: z.object({ waiting: z.number().int(), playing: z.number().int() }),
  /** The open tables you are seated at (private ones included: only you get this list). */
  yours: z.array(LobbyTableSchema).max(LOBBY_MAX_YOURS),
  serverTime: z.number(),
});

/** Gateway → browser: one public table changed (or left the lobby: `table: null`). */
export const LobbyUpdateFrameSchema = LobbyUpdateSchema.extend({ type: z.literal('lobbyUpdate') });

/** POST /api/quick-play: a rule set, and a target where the rule set has a choice (P19). */
export const QuickPlayRequestSchema = z
  .object({
    variant: VariantSchema,
    target: z.number().int().optional(),
    seats: z.number().int().optional(),
  })
  .strict();
/**
 * Browser → gateway: quick play on the socket, which sits with the seat (its connection on it from
 * the first moment, as a `join`'s): answered with the seat's `view` and an `ack`, or an `error`.
 */
export const QuickPlayFrameSchema = QuickPlayRequestSchema.extend({
  type: z.literal('quickPlay'),
  id: IntentIdSchema,
}).strict();
/** `created`: no open public table fitted, so a new one was opened for you (you are its host). */
export const QuickPlayResponseSchema = z.object({
  tableId: TableCodeSchema,
  link: z.string(),
  seat: z.number().int(),
  created: z.boolean(),
});
export type QuickPlayRequest = z.infer<typeof QuickPlayRequestSchema>;
export type QuickPlayResponse = z.infer<typeof QuickPlayResponseSchema>;

/** A lobby update on Redis is its JSON; one that does not parse is dropped (null). */
export function decodeLobbyUpdate(text: string): LobbyUpdate | null {
  try {
    const parsed = LobbyUpdateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

import { z } from 'zod';
import { ACTION_ORIGINS, MATCH_PHASES, type SeatView } from '@dominoes/rules';
import { ActionSchema, type InSync } from './actions';
import { EndIdSchema, TileSchema, VariantSchema } from './primitives';

const LogEntrySchema = z.intersection(
  ActionSchema,
  z.object({ by: z.enum(ACTION_ORIGINS), drawn: TileSchema.optional() }),
);

const BoardSchema = z.object({
  ends: z.array(z.object({ id: EndIdSchema, value: z.number().int() })),
  placements: z.array(
    z.object({
      seat: z.number().int(),
      tile: TileSchema,
      end: EndIdSchema.nullable(),
      crossed: z.boolean(),
      opens: z.array(EndIdSchema),
    }),
  ),
});

const RoundResultSchema = z.object({
  winnerSide: z.number().int().nullable(),
  points: z.number().int(),
  blocked: z.boolean(),
  dominoSeat: z.number().int().nullable(),
  lastPlacer: z.number().int().nullable(),
  sidePips: z.array(z.number().int()),
  finalHands: z.array(z.array(TileSchema)),
});

/** Exported for the spectator's view (spectators.ts), which is this less the seat's own fields. */
export const SeatViewObjectSchema = z.object({
  variant: VariantSchema,
  seat: z.number().int(),
  seats: z.number().int(),
  sideOfSeat: z.array(z.number().int()),
  target: z.number().int(),
  oneRound: z.boolean(),
  phase: z.enum(MATCH_PHASES),
  scores: z.array(z.number().int()),
  roundNumber: z.number().int(),
  hand: z.array(TileSchema),
  handCounts: z.array(z.number().int()),
  stockCount: z.number().int(),
  board: BoardSchema,
  turn: z.number().int().nullable(),
  opener: z.number().int().nullable(),
  passes: z.array(z.object({ seat: z.number().int(), ends: z.array(z.number().int()) })),
  log: z.array(LogEntrySchema),
  legal: z.array(ActionSchema),
  roundResult: RoundResultSchema.nullable(),
  history: z.array(
    z.object({
      number: z.number().int(),
      opener: z.number().int(),
      winnerSide: z.number().int().nullable(),
      points: z.number().int(),
      blocked: z.boolean(),
    }),
  ),
  matchResult: z
    .object({
      finished: z.boolean(),
      winnerSide: z.number().int().nullable(),
      scores: z.array(z.number().int()),
    })
    .nullable(),
});

const _seatViewInSync: InSync<typeof SeatViewObjectSchema, SeatView> = true;
void _seatViewInSync;

/**
 * The rules' view of one seat, as `seatView` (libs/rules) makes it: other hands only as counts until
 * the reveal. Checked field by field against the rules' `SeatView` type when this builds.
 */
export const SeatViewSchema: z.ZodType<SeatView> = SeatViewObjectSchema;

/**
 * `closed`: a waiting table that nobody filled in time (WAITING_TABLE_TTL_MS), or a playing table with no
 * seat connected for ABANDONED_TABLE_MS (its match abandoned); it takes no more intents.
 */
export const TableStatusSchema = z.enum(['waiting', 'playing', 'finished', 'closed']);

/** Why a table closed: `expired` (never filled) or `abandoned` (its match ended unfinished, no winner). */
export const TableClosedReasonSchema = z.enum(['expired', 'abandoned']);

export const SeatInfoSchema = z.object({
  seat: z.number().int(),
  name: z.string(),
  connected: z.boolean(),
  side: z.number().int(),
});

export const ClockSchema = z.object({
  /**
   * `expire`: when a waiting table closes unless every seat is taken first. `abandon`: no seat is
   * connected; the match ends as abandoned then unless a seat comes back first (the turns wait).
   */
  kind: z.enum(['turn', 'break', 'expire', 'abandon']),
  /** The seat whose turn it is, or null during the break and before the start. */
  seat: z.number().int().nullable(),
  /** When the table acts, in epoch milliseconds (server time). */
  deadline: z.number(),
  /**
   * P17: present on a turn cut to a disconnected seat's 5 s (it started while the seat was
   * disconnected, or the seat dropped during it); a reconnection gives no time back, so it stays.
   */
  shortened: z.literal(true).optional(),
});

/**
 * Everything one seated player sees of a table. Sent whole on a join and a sync, and after a change as
 * a `viewChange` of the one before (decision 0036).
 */
export const TableViewSchema = z.object({
  tableId: z.string(),
  variant: VariantSchema,
  seatCount: z.number().int(),
  target: z.number().int(),
  oneRound: z.boolean(),
  status: TableStatusSchema,
  /** Why the table closed; only on a closed table. */
  closedReason: TableClosedReasonSchema.optional(),
  hostSeat: z.number().int().nullable(),
  seats: z.array(SeatInfoSchema.nullable()),
  you: z.object({ seat: z.number().int(), playerId: z.string(), autoPass: z.boolean() }),
  matchNumber: z.number().int(),
  clock: ClockSchema.nullable(),
  /** Your seat's view of the match in play or just over (the rules' `SeatView`); null before the first match. */
  game: SeatViewSchema.nullable(),
  /** How many players watch the table (spectators, decision 0018); left out by older table-services. */
  watchers: z.number().int().optional(),
});

export type TableView = z.infer<typeof TableViewSchema>;
export type SeatInfo = z.infer<typeof SeatInfoSchema>;
export type Clock = z.infer<typeof ClockSchema>;
export type TableStatus = z.infer<typeof TableStatusSchema>;
export type TableClosedReason = z.infer<typeof TableClosedReasonSchema>;

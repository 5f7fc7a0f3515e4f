import { z } from 'zod';
import type { SeatView } from '@dominoes/rules';
import { EndIdSchema, TileSchema, VariantSchema } from './primitives';

const ActionSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('play'),
    seat: z.number().int(),
    tile: TileSchema,
    end: EndIdSchema.optional(),
  }),
  z.object({ type: z.literal('pass'), seat: z.number().int() }),
  z.object({ type: z.literal('draw'), seat: z.number().int() }),
]);

const OriginSchema = z.enum(['player', 'deadline', 'auto']);

const LogEntrySchema = z.intersection(
  ActionSchema,
  z.object({ by: OriginSchema, drawn: TileSchema.optional() }),
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

/** The rules' view of one seat (libs/rules SeatView): other hands only as counts until the reveal. */
export const SeatViewSchema = z.object({
  variant: VariantSchema,
  seat: z.number().int(),
  seats: z.number().int(),
  sideOfSeat: z.array(z.number().int()),
  target: z.number().int(),
  oneRound: z.boolean(),
  phase: z.enum(['ready', 'playing', 'between-rounds', 'over']),
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

// The schema and the rules' type must describe the same object.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _seatViewInSync: Same<z.infer<typeof SeatViewSchema>['phase'], SeatView['phase']> = true;
export const seatViewFromRules = (view: SeatView): z.infer<typeof SeatViewSchema> =>
  view as z.infer<typeof SeatViewSchema>;
void _seatViewInSync;

/** `closed`: a waiting table that nobody filled in time (WAITING_TABLE_TTL_MS); it takes no more intents. */
export const TableStatusSchema = z.enum(['waiting', 'playing', 'finished', 'closed']);

export const SeatInfoSchema = z.object({
  seat: z.number().int(),
  name: z.string(),
  connected: z.boolean(),
  side: z.number().int(),
});

export const ClockSchema = z.object({
  /** `expire`: when a waiting table closes unless every seat is taken first. */
  kind: z.enum(['turn', 'break', 'expire']),
  /** The seat whose turn it is, or null during the break and before the start. */
  seat: z.number().int().nullable(),
  /** When the table acts, in epoch milliseconds (server time). */
  deadline: z.number(),
});

/** Everything one seated player sees of a table. Sent whole at every change, never as a diff. */
export const TableViewSchema = z.object({
  tableId: z.string(),
  variant: VariantSchema,
  seatCount: z.number().int(),
  target: z.number().int(),
  oneRound: z.boolean(),
  status: TableStatusSchema,
  hostSeat: z.number().int().nullable(),
  seats: z.array(SeatInfoSchema.nullable()),
  you: z.object({ seat: z.number().int(), playerId: z.string(), autoPass: z.boolean() }),
  matchNumber: z.number().int(),
  clock: ClockSchema.nullable(),
  game: SeatViewSchema.nullable(),
});

export type TableView = z.infer<typeof TableViewSchema>;
export type SeatInfo = z.infer<typeof SeatInfoSchema>;
export type Clock = z.infer<typeof ClockSchema>;
export type TableStatus = z.infer<typeof TableStatusSchema>;

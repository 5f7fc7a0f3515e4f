import { z } from 'zod';
import { TABLE_CODE_ALPHABET, TABLE_CODE_LENGTH, TileSchema, VariantSchema } from './primitives';

/*
 * "Looking back" (issue 12): the HTTP API's list of a player's matches and the replay of a finished
 * match. A match is named by its table's code and its number at that table: "K7M2QXP4HT9R-2". The
 * code is 12 characters from the crypto RNG (31^12), so a match id is as hard to guess as a table
 * link, and misses count toward the lookup limit (RATE_LIMIT_LOOKUP_MISSES).
 */

/** The most matches of one page of GET /api/matches. */
export const MATCH_PAGE_SIZE = 20;
/** The last page GET /api/matches serves (pages 0..MAX_MATCH_PAGE): the list is bounded. */
export const MAX_MATCH_PAGE = 499;
/** The most matches a table's number can reach in a match id. */
const MAX_MATCH_NUMBER = 1_000_000;

export const MatchIdSchema = z
  .string()
  .regex(
    new RegExp(`^[${TABLE_CODE_ALPHABET}]{${TABLE_CODE_LENGTH}}-[1-9][0-9]{0,6}$`),
    `a match id: a ${TABLE_CODE_LENGTH}-character table code, "-", the match number`,
  )
  .refine((id) => Number(id.split('-')[1]) <= MAX_MATCH_NUMBER, 'a match number too large');

export const matchId = (tableId: string, number: number): string => `${tableId}-${number}`;

/** The table and number of a match id, or null when it is not one. */
export function parseMatchId(id: unknown): { tableId: string; number: number } | null {
  if (!MatchIdSchema.safeParse(id).success) return null;
  const [tableId, number] = (id as string).split('-') as [string, string];
  return { tableId, number: Number(number) };
}

/** `finished` (a winner, or a drawn one-round match), `abandoned` (decision 0017), `playing`. */
export const MatchStatusSchema = z.enum(['finished', 'abandoned', 'playing']);
/** How a match went for the asking player: `drawn` is a one-round draw game ended drawn. */
export const MatchOutcomeSchema = z.enum(['won', 'lost', 'drawn', 'abandoned', 'playing']);

export const MatchListEntrySchema = z.object({
  matchId: MatchIdSchema,
  tableId: z.string(),
  number: z.number().int(),
  variant: VariantSchema,
  target: z.number().int(),
  oneRound: z.boolean(),
  /** Names by seat (null: nobody's name is known for it). */
  players: z.array(z.string().nullable()),
  /** The asking player's seat, partners (partnership) and opponents, by name. */
  seat: z.number().int(),
  partners: z.array(z.string().nullable()),
  opponents: z.array(z.string().nullable()),
  status: MatchStatusSchema,
  outcome: MatchOutcomeSchema,
  /** Per side (team in partnership, seat otherwise); null before the first round's end. */
  scores: z.array(z.number().int()).nullable(),
  winnerSide: z.number().int().nullable(),
  /** ISO times: the start, and the end (finished or abandoned; null while playing). */
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});

/** GET /api/matches?page=N (Authorization: Bearer <token>): the token's player's matches, newest first. */
export const MatchListResponseSchema = z.object({
  matches: z.array(MatchListEntrySchema).max(MATCH_PAGE_SIZE),
  page: z.number().int(),
  /** The next page's number, or null on the last page. */
  nextPage: z.number().int().nullable(),
});

/** A move as `npm run replay` writes it (CaseAction); `timeout` = the table at a deadline (P16), `auto` = at once. */
export const ReplayActionSchema = z.object({
  seat: z.number().int(),
  tile: TileSchema.nullable().optional(),
  end: z.string().optional(),
  draw: z.literal(true).optional(),
  drawn: TileSchema.optional(),
  timeout: z.literal(true).optional(),
  auto: z.literal(true).optional(),
});

export const ReplayRoundSchema = z.object({
  /** The deal, every hand visible (the match is over), and the stock in draw order. */
  hands: z.array(z.array(TileSchema)),
  stock: z.array(TileSchema),
  opener: z.number().int(),
  actions: z.array(ReplayActionSchema),
  /** The round ended (false only for an abandoned match's last round). */
  complete: z.boolean(),
  /** After the round: its points, its winning side (null: drawn or not ended), the match's scores. */
  points: z.number().int().nullable(),
  winnerSide: z.number().int().nullable(),
  scoresAfter: z.array(z.number().int()),
});

/** GET /api/replays/:matchId: a finished or abandoned match, replayed from its stored log through libs/rules. */
export const MatchReplayResponseSchema = z.object({
  matchId: MatchIdSchema,
  variant: VariantSchema,
  seats: z.number().int(),
  target: z.number().int(),
  oneRound: z.boolean(),
  players: z.array(z.string().nullable()),
  status: z.enum(['finished', 'abandoned']),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  /** The match as a case of `npm run replay` (its `rounds` without the per-round results): replay it yourself. */
  rounds: z.array(ReplayRoundSchema),
  /** What the replay ends at; equal to the stored match row's scores and winner. */
  scores: z.array(z.number().int()),
  winnerSide: z.number().int().nullable(),
});

export type MatchStatus = z.infer<typeof MatchStatusSchema>;
export type MatchOutcome = z.infer<typeof MatchOutcomeSchema>;
export type MatchListEntry = z.infer<typeof MatchListEntrySchema>;
export type MatchListResponse = z.infer<typeof MatchListResponseSchema>;
export type ReplayRound = z.infer<typeof ReplayRoundSchema>;
export type MatchReplayResponse = z.infer<typeof MatchReplayResponseSchema>;

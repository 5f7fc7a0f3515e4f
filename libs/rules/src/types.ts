import type { Tile } from './tiles';

/** The three games (RULES.md): every other package takes this list, or the type made of it. */
export const VARIANTS = ['partnership', 'draw', 'five-tile'] as const;
export type Variant = (typeof VARIANTS)[number];

/**
 * An open end of the board. Partnership and draw boards have exactly two, `left` and `right` (P7).
 * The five-tile board names its ends `e0`, `e1`, ... in the order they were opened (F4).
 */
export type EndId = string;

export interface OpenEnd {
  readonly id: EndId;
  readonly value: number;
}

/** One tile on the board, oriented `[touching half, open half]`; the first tile as `[left, right]`. */
export interface Placement {
  readonly seat: number;
  readonly tile: Tile;
  /** The end it was laid on; null for the first tile of the round. */
  readonly end: EndId | null;
  /** Laid crosswise (five-tile doubles, F4). */
  readonly crossed: boolean;
  /** Ends this placement opened besides the one it continues. */
  readonly opens: readonly EndId[];
}

export interface Board {
  readonly ends: readonly OpenEnd[];
  readonly placements: readonly Placement[];
}

export type Action =
  | { readonly type: 'play'; readonly seat: number; readonly tile: Tile; readonly end?: EndId }
  | { readonly type: 'pass'; readonly seat: number }
  | { readonly type: 'draw'; readonly seat: number };

/** Who made an action: the player, the table at a deadline (P16/P17), or the table at once (auto-pass, locked board). */
export const ACTION_ORIGINS = ['player', 'deadline', 'auto'] as const;
export type ActionOrigin = (typeof ACTION_ORIGINS)[number];

/**
 * An applied action. `drawn` is the tile a draw took: private to the drawer until the reveal, so
 * a seat view's log (`seatView`) leaves it out of the other seats' draws.
 */
export type LogEntry = Action & { readonly by: ActionOrigin; readonly drawn?: Tile };

/** A public pass announcement: who passed and on which end numbers (P10). */
export interface PassRecord {
  readonly seat: number;
  readonly ends: readonly number[];
}

export interface RoundResult {
  /** The team (partnership) or seat that scores; null when the round is drawn (D7, F7). */
  readonly winnerSide: number | null;
  readonly points: number;
  readonly blocked: boolean;
  /** The seat that played its last tile, or null for a blocked round. */
  readonly dominoSeat: number | null;
  readonly lastPlacer: number | null;
  /** Pips left per side: team totals in partnership (P14), seat totals otherwise. */
  readonly sidePips: readonly number[];
  /** Every hand, revealed (P12). */
  readonly finalHands: readonly (readonly Tile[])[];
}

export interface RoundState {
  readonly number: number;
  readonly opener: number;
  readonly hands: readonly (readonly Tile[])[];
  readonly stock: readonly Tile[];
  readonly board: Board;
  readonly turn: number;
  readonly log: readonly LogEntry[];
  readonly passes: readonly PassRecord[];
  readonly consecutivePasses: number;
  readonly lastPlacer: number | null;
  /** How many deals were thrown in before this one (F2). */
  readonly redeals: number;
  readonly result: RoundResult | null;
}

export interface MatchConfig {
  readonly variant: Variant;
  readonly seats: number;
  /** Points that win the match (P19/P20, D8, F8). */
  readonly target: number;
  /** Draw game only: one round decides the match (D8). */
  readonly oneRound: boolean;
}

export const MATCH_PHASES = ['ready', 'playing', 'between-rounds', 'over'] as const;
export type MatchPhase = (typeof MATCH_PHASES)[number];

export interface RoundSummary {
  readonly number: number;
  readonly opener: number;
  readonly winnerSide: number | null;
  readonly points: number;
  readonly blocked: boolean;
}

export interface MatchState {
  readonly config: MatchConfig;
  readonly phase: MatchPhase;
  /** Score per side: per team in partnership, per seat otherwise. */
  readonly scores: readonly number[];
  readonly round: RoundState | null;
  readonly history: readonly RoundSummary[];
}

export interface MatchResult {
  readonly finished: boolean;
  /** Null while playing, or when a one-round draw game ended drawn. */
  readonly winnerSide: number | null;
  readonly scores: readonly number[];
}

/** Everything one seat may know. Other hands are counts until the round's reveal (P12). */
export interface SeatView {
  readonly variant: Variant;
  readonly seat: number;
  readonly seats: number;
  /** The side (team or seat) of every seat. */
  readonly sideOfSeat: readonly number[];
  readonly target: number;
  readonly oneRound: boolean;
  readonly phase: MatchPhase;
  readonly scores: readonly number[];
  readonly roundNumber: number;
  readonly hand: readonly Tile[];
  readonly handCounts: readonly number[];
  readonly stockCount: number;
  readonly board: Board;
  /** Whose turn it is; null when no round is in play. */
  readonly turn: number | null;
  readonly opener: number | null;
  readonly passes: readonly PassRecord[];
  /** Other seats' draws without `drawn` (the tile stays private until the reveal). */
  readonly log: readonly LogEntry[];
  /** This seat's legal actions, in the order the table would pick at a deadline (P16). */
  readonly legal: readonly Action[];
  readonly roundResult: RoundResult | null;
  readonly history: readonly RoundSummary[];
  readonly matchResult: MatchResult | null;
}

/** Everything a spectator may know: a seat view without a seat, its hand or its actions (P10, P12). */
export type PublicView = Omit<SeatView, 'seat' | 'hand' | 'legal'>;

import { legalActions, matchResult, rulesOf } from './match';
import type { LogEntry, MatchState, PublicView, SeatView } from './types';

/** A log entry as `seat` may see it: the tile another seat drew stays hidden until the reveal. */
function publicEntry(entry: LogEntry, seat: number | null, revealed: boolean): LogEntry {
  if (entry.type !== 'draw' || entry.drawn === undefined || entry.seat === seat || revealed) return entry;
  return { type: 'draw', seat: entry.seat, by: entry.by };
}

/**
 * Everything `seat` may know: its own hand, the other hands as counts, the boneyard as a count,
 * the public board and passes (P10). At a round's end every hand is revealed (P12).
 */
export function seatView(match: MatchState, seat: number): SeatView {
  const own = seatOwnPart(match, seat);
  return { ...viewOf(match, seat), seat: own.seat, hand: own.hand, legal: own.legal };
}

/** What only `seat` sees: its number, its hand and its legal actions (the last keys of its view). */
export function seatOwnPart(match: MatchState, seat: number): Pick<SeatView, 'seat' | 'hand' | 'legal'> {
  return { seat, hand: match.round?.hands[seat] ?? [], legal: legalActions(match, seat) };
}

/**
 * Everything a spectator may know (P10, P12): what every seat knows of the others. No hand at
 * all, every seat as a count, every drawn tile hidden, the hands only in the scored round's reveal.
 */
export function publicView(match: MatchState): PublicView {
  return viewOf(match, null);
}

/**
 * Whether every seat's view is the public view with only its own part added
 * (`{ ...publicView(match), ...seatOwnPart(match, seat) }`, key for key): true unless a seat drew a tile that
 * the others may not see yet (D, F games before the reveal). The table-service then writes the
 * shared part of a change's seat views out once (issue 14).
 */
export function seatViewsSharePublicView(match: MatchState): boolean {
  const round = match.round;
  if (round === null || round.result !== null) return true;
  return !round.log.some((entry) => entry.type === 'draw' && entry.drawn !== undefined);
}

/** The view of `seat`, or of nobody (null), without the seat's own hand and actions. */
function viewOf(match: MatchState, seat: number | null): PublicView {
  const rules = rulesOf(match.config.variant);
  const round = match.round;
  const result = round?.result ?? null;
  const revealed = result !== null;
  const seats = match.config.seats;
  return {
    variant: match.config.variant,
    seats,
    sideOfSeat: Array.from({ length: seats }, (_, s) => rules.sideOf(s)),
    target: match.config.target,
    oneRound: match.config.oneRound,
    phase: match.phase,
    scores: match.scores,
    roundNumber: round?.number ?? 0,
    handCounts: round ? round.hands.map((h) => h.length) : new Array<number>(seats).fill(0),
    stockCount: round?.stock.length ?? 0,
    board: round?.board ?? { ends: [], placements: [] },
    turn: round && !revealed ? round.turn : null,
    opener: round?.opener ?? null,
    passes: round?.passes ?? [],
    log: round ? round.log.map((e) => publicEntry(e, seat, revealed)) : [],
    roundResult: result,
    history: match.history,
    matchResult: match.phase === 'over' ? matchResult(match) : null,
  };
}

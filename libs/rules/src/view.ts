import { legalActions, matchResult, rulesOf } from './match';
import type { LogEntry, MatchState, SeatView } from './types';

/** A log entry as `seat` may see it: the tile another seat drew stays hidden until the reveal. */
function publicEntry(entry: LogEntry, seat: number, revealed: boolean): LogEntry {
  if (entry.type !== 'draw' || entry.drawn === undefined || entry.seat === seat || revealed) return entry;
  return { type: 'draw', seat: entry.seat, by: entry.by };
}

/**
 * Everything `seat` may know: its own hand, the other hands as counts, the boneyard as a count,
 * the public board and passes (P10). At a round's end every hand is revealed (P12).
 */
export function seatView(match: MatchState, seat: number): SeatView {
  const rules = rulesOf(match.config.variant);
  const round = match.round;
  const result = round?.result ?? null;
  const revealed = result !== null;
  const seats = match.config.seats;
  return {
    variant: match.config.variant,
    seat,
    seats,
    sideOfSeat: Array.from({ length: seats }, (_, s) => rules.sideOf(s)),
    target: match.config.target,
    oneRound: match.config.oneRound,
    phase: match.phase,
    scores: match.scores,
    roundNumber: round?.number ?? 0,
    hand: round?.hands[seat] ?? [],
    handCounts: round ? round.hands.map((h) => h.length) : new Array<number>(seats).fill(0),
    stockCount: round?.stock.length ?? 0,
    board: round?.board ?? { ends: [], placements: [] },
    turn: round && !revealed ? round.turn : null,
    opener: round?.opener ?? null,
    passes: round?.passes ?? [],
    log: round ? round.log.map((e) => publicEntry(e, seat, revealed)) : [],
    legal: legalActions(match, seat),
    roundResult: result,
    history: match.history,
    matchResult: match.phase === 'over' ? matchResult(match) : null,
  };
}

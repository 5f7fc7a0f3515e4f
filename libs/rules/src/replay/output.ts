/** What a replay prints: the round or match a case ends at, with its log in case notation. */
import { endValues } from '../board';
import { legalActions, matchResult, rulesOf } from '../match';
import type { Tile } from '../tiles';
import type { MatchState, RoundState } from '../types';
import { caseAction, type CaseAction } from './case-format';

interface RoundOutputCommon {
  readonly points: number;
  readonly blocked: boolean;
  readonly lastPlacer: number | null;
  readonly opener: number;
  /** The next round's opener; null where the next deal decides it (F2). */
  readonly nextOpener: number | null;
}

export interface FinishedPartnershipRound extends RoundOutputCommon {
  readonly finished: true;
  readonly winnerTeam: number;
  readonly teamPips: number[];
  readonly finalHands: [number, number][][];
  readonly ends: number[];
  readonly log: CaseAction[];
}

export interface FinishedSoloRound extends RoundOutputCommon {
  readonly finished: true;
  /** Null for a drawn round (D7, F7). */
  readonly winnerSeat: number | null;
  readonly seatPips: number[];
  readonly finalHands: [number, number][][];
  readonly ends: number[];
  readonly log: CaseAction[];
}

export interface UnfinishedRound {
  readonly finished: false;
  readonly turn: number;
  readonly legal: CaseAction[];
  readonly ends: number[];
  readonly handCounts: number[];
  readonly log: CaseAction[];
}

export type RoundOutput = FinishedPartnershipRound | FinishedSoloRound | UnfinishedRound;

export interface MatchRoundOutput {
  readonly opener: number;
  readonly winnerTeam?: number | null;
  readonly winnerSeat?: number | null;
  readonly points: number;
  readonly blocked: boolean;
}

export interface MatchOutput {
  readonly finished: boolean;
  /** Partnership matches name the winning team, the others the winning seat; null until finished. */
  readonly winnerTeam?: number | null;
  readonly winnerSeat?: number | null;
  readonly scores: number[];
  readonly rounds: MatchRoundOutput[];
  /** When the case's last round stops before its end: that round, as an unfinished round. */
  readonly current?: UnfinishedRound;
}

const handsOut = (hands: readonly (readonly Tile[])[]): [number, number][][] =>
  hands.map((hand) => hand.map((tile): [number, number] => [tile[0], tile[1]]));

function unfinishedRound(match: MatchState): UnfinishedRound {
  const round = match.round as RoundState;
  return {
    finished: false,
    turn: round.turn,
    legal: legalActions(match, round.turn).map(caseAction),
    ends: endValues(round.board),
    handCounts: round.hands.map((hand) => hand.length),
    log: round.log.map(caseAction),
  };
}

/** A round case's output: the round `match` is at. */
export function roundOutput(match: MatchState): RoundOutput {
  const round = match.round as RoundState;
  const result = round.result;
  if (result === null) return unfinishedRound(match);
  const rules = rulesOf(match.config.variant);
  // P6 and the draw game's rotation follow from the opener; F2 waits for the next deal.
  const nextOpener = rules.openerFromDeal ? null : rules.opener(round.hands, round.opener);
  const common = {
    points: result.points,
    blocked: result.blocked,
    lastPlacer: result.lastPlacer,
    opener: round.opener,
    nextOpener,
  };
  const rest = {
    finalHands: handsOut(result.finalHands),
    ends: endValues(round.board),
    log: round.log.map(caseAction),
  };
  if (match.config.variant === 'partnership') {
    return {
      finished: true,
      winnerTeam: result.winnerSide as number,
      ...common,
      teamPips: result.sidePips.slice(),
      ...rest,
    };
  }
  return {
    finished: true,
    winnerSeat: result.winnerSide,
    ...common,
    seatPips: result.sidePips.slice(),
    ...rest,
  };
}

/** A match case's output: the rounds played, the scores, and the round still in play, if any. */
export function matchOutput(match: MatchState): MatchOutput {
  const result = matchResult(match);
  const side = match.config.variant === 'partnership' ? 'winnerTeam' : 'winnerSeat';
  const summaries = match.history.map((h) => ({
    opener: h.opener,
    [side]: h.winnerSide,
    points: h.points,
    blocked: h.blocked,
  }));
  return {
    finished: result.finished,
    [side]: result.winnerSide,
    scores: result.scores.slice(),
    rounds: summaries as MatchRoundOutput[],
    ...(match.phase === 'playing' ? { current: unfinishedRound(match) } : {}),
  } as MatchOutput;
}

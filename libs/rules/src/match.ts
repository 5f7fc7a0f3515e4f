import { fail, ok, type Result } from './errors';
import { HOST_TARGETS_TEXT, RULE_SETS, type RuleSet } from './rule-sets';
import { shuffled, type Rng } from './rng';
import { applyToRound, isLocked, newRound, roundLegalActions } from './round';
import { fullSet, isValidTile, tileId, type Tile } from './tiles';
import {
  VARIANTS,
  type Action,
  type ActionOrigin,
  type MatchConfig,
  type MatchResult,
  type MatchState,
  type RoundResult,
  type RoundState,
  type Variant,
} from './types';

export interface MatchConfigInput {
  readonly variant: Variant;
  /** Seats at the table: 4 for partnership (P1), 2 to 4 otherwise (D1, F1). Defaults to the most. */
  readonly seats?: number;
  /** P19: 100 by default; 50 to 500 in steps of 50. Five-tile plays to 100 (F8). */
  readonly target?: number;
  /** D8: the draw game may be one round. */
  readonly oneRound?: boolean;
}

export const rulesOf = (variant: Variant): RuleSet => RULE_SETS[variant];

/** Checks a host's choices and opens a match; refuses anything outside the rules with a clear error. */
export function createMatch(input: MatchConfigInput): Result<MatchState> {
  if (typeof input !== 'object' || input === null || !VARIANTS.includes(input.variant)) {
    return fail('INVALID_CONFIG', `The variant must be one of ${VARIANTS.join(', ')}.`);
  }
  const rules = rulesOf(input.variant);
  const seats = input.seats ?? rules.maxSeats;
  if (!Number.isInteger(seats) || seats < rules.minSeats || seats > rules.maxSeats) {
    const allowed =
      rules.minSeats === rules.maxSeats
        ? `exactly ${rules.minSeats}`
        : `${rules.minSeats} to ${rules.maxSeats}`;
    return fail('INVALID_SEAT_COUNT', `A ${rules.variant} table has ${allowed} seats.`);
  }
  const target = input.target ?? (rules.targets[0] as number);
  if (typeof target !== 'number' || !rules.targets.includes(target)) {
    const allowed = rules.targets.length === 1 ? `${rules.targets[0]}` : HOST_TARGETS_TEXT;
    return fail('INVALID_TARGET', `The target must be ${allowed}; got ${JSON.stringify(target)}.`);
  }
  const oneRound = input.oneRound ?? false;
  if (typeof oneRound !== 'boolean' || (oneRound && !rules.oneRoundAllowed)) {
    return fail('INVALID_CONFIG', `A one-round game is offered only for the draw game.`);
  }
  const config: MatchConfig = { variant: rules.variant, seats, target, oneRound };
  return ok({
    config,
    phase: 'ready',
    scores: new Array<number>(rules.sideCount(seats)).fill(0),
    round: null,
    history: [],
  });
}

export interface Deal {
  readonly hands: readonly (readonly Tile[])[];
  readonly stock: readonly Tile[];
  /**
   * A seat that opens instead of the rules' choice (replays of a known round, tests). Only for
   * `startRoundWithDeal`; refused where the deal itself names the opener (F2).
   */
  readonly opener?: number;
}

/** A random deal of the whole set (P4: a new random deal every round). */
export function randomDeal(rules: RuleSet, seats: number, rng: Rng): Deal {
  const tiles = shuffled(fullSet(), rng);
  const hands = Array.from({ length: seats }, (_, s) =>
    tiles.slice(s * rules.handSize, (s + 1) * rules.handSize),
  );
  return { hands, stock: tiles.slice(seats * rules.handSize) };
}

function checkDeal(rules: RuleSet, seats: number, deal: Deal): Result<Deal> {
  if (typeof deal !== 'object' || deal === null) return fail('INVALID_DEAL', 'A deal is an object.');
  if (!Array.isArray(deal.hands) || deal.hands.length !== seats || !Array.isArray(deal.stock)) {
    return fail('INVALID_DEAL', `A deal has ${seats} hands and a stock.`);
  }
  if (deal.hands.some((hand) => !Array.isArray(hand) || hand.length !== rules.handSize)) {
    return fail('INVALID_DEAL', `Every hand holds ${rules.handSize} tiles.`);
  }
  const all = [...deal.hands.flat(), ...deal.stock];
  if (!all.every(isValidTile)) return fail('INVALID_TILE', 'A tile is two whole numbers from 0 to 6.');
  const seen = new Set(all.map(tileId));
  if (seen.size !== 28 || all.length !== 28) {
    return fail('INVALID_DEAL', 'Hands and stock together must hold the 28 tiles of the set, each once.');
  }
  return ok(deal);
}

/**
 * `match` with some fields changed, keys in the order of `createMatch`. Written out on purpose: on
 * Node 20 an object spread that overrides keys (`{ ...match, round }`) is many times slower than a
 * literal, and `applyAction` does this on every action (see `npm run bench:rules`).
 */
function updateMatch(match: MatchState, change: Partial<MatchState>): MatchState {
  return {
    config: change.config ?? match.config,
    phase: change.phase ?? match.phase,
    scores: change.scores ?? match.scores,
    round: change.round !== undefined ? change.round : match.round,
    history: change.history ?? match.history,
  };
}

function canStartRound(match: MatchState): Result<true> {
  if (match.phase === 'playing') return fail('ROUND_IN_PLAY', 'A round is already in play.');
  if (match.phase === 'over') return fail('MATCH_OVER', 'The match is over.');
  return ok(true);
}

function beginRound(match: MatchState, deal: Deal, redeals: number): MatchState {
  const rules = rulesOf(match.config.variant);
  const previous = match.history.at(-1)?.opener ?? null;
  const opener = deal.opener ?? rules.opener(deal.hands, previous);
  const round = newRound(match.history.length + 1, deal.hands, deal.stock, opener, redeals);
  return updateMatch(match, { phase: 'playing', round });
}

/** Deals the next round from the RNG; a deal the rules throw in (F2) is dealt again. */
export function startRound(match: MatchState, rng: Rng): Result<MatchState> {
  const allowed = canStartRound(match);
  if (!allowed.ok) return allowed;
  const rules = rulesOf(match.config.variant);
  let deal = randomDeal(rules, match.config.seats, rng);
  let redeals = 0;
  while (rules.mustRedeal(deal.hands)) {
    deal = randomDeal(rules, match.config.seats, rng);
    redeals++;
  }
  return ok(beginRound(match, deal, redeals));
}

/** Starts the next round from a given deal (replays, tests). A deal the rules would throw in is refused. */
export function startRoundWithDeal(match: MatchState, deal: Deal): Result<MatchState> {
  const allowed = canStartRound(match);
  if (!allowed.ok) return allowed;
  const rules = rulesOf(match.config.variant);
  const checked = checkDeal(rules, match.config.seats, deal);
  if (!checked.ok) return checked;
  if (rules.mustRedeal(deal.hands)) {
    return fail('INVALID_DEAL', 'Nobody holds a double: this deal is thrown in and dealt again (F2).');
  }
  if (deal.opener !== undefined) {
    const seats = match.config.seats;
    if (!Number.isInteger(deal.opener) || deal.opener < 0 || deal.opener >= seats) {
      return fail('INVALID_DEAL', `The opener must be a seat from 0 to ${seats - 1}.`);
    }
    const ruled = rules.opener(deal.hands, match.history.at(-1)?.opener ?? null);
    if (rules.openerFromDeal && deal.opener !== ruled) {
      return fail('INVALID_DEAL', `Seat ${ruled} holds the highest double, so seat ${ruled} opens (F2).`);
    }
  }
  return ok(beginRound(match, deal, 0));
}

export function legalActions(match: MatchState, seat: number): Action[] {
  if (match.phase !== 'playing' || match.round === null) return [];
  return roundLegalActions(rulesOf(match.config.variant), match.round, seat);
}

function closeRound(match: MatchState, round: RoundState, result: RoundResult): MatchState {
  const scores = match.scores.slice();
  if (result.winnerSide !== null)
    scores[result.winnerSide] = (scores[result.winnerSide] as number) + result.points;
  const history = [
    ...match.history,
    {
      number: round.number,
      opener: round.opener,
      winnerSide: result.winnerSide,
      points: result.points,
      blocked: result.blocked,
    },
  ];
  // P20, D8, F8: the first side to reach the target at the end of a round wins; points above it count.
  const over = match.config.oneRound || scores.some((s) => s >= match.config.target);
  return updateMatch(match, { round, scores, history, phase: over ? 'over' : 'between-rounds' });
}

/** Applies an action, or refuses it with a typed error and changes nothing. Never throws. */
export function applyAction(
  match: MatchState,
  action: Action,
  by: ActionOrigin = 'player',
): Result<MatchState> {
  if (match.phase === 'over') return fail('MATCH_OVER', 'The match is over.');
  if (match.phase !== 'playing' || match.round === null)
    return fail('NO_ROUND_IN_PLAY', 'No round is in play.');
  const applied = applyToRound(rulesOf(match.config.variant), match.round, action, by);
  if (!applied.ok) return applied;
  const round = applied.value;
  return ok(round.result === null ? updateMatch(match, { round }) : closeRound(match, round, round.result));
}

/** What the table does for the seat to move when its deadline passes (P16, P17), or null when nobody is to move. */
export function deadlineAction(match: MatchState): Action | null {
  if (match.phase !== 'playing' || match.round === null) return null;
  return legalActions(match, match.round.turn)[0] ?? null;
}

/**
 * An action the table takes at once, without waiting for anyone: the forced pass or draw of a seat that
 * turned auto-pass on, and every pass once the board is locked (nobody can ever play again, P13).
 */
export function automaticAction(match: MatchState, autoPass: (seat: number) => boolean): Action | null {
  if (match.phase !== 'playing' || match.round === null) return null;
  const rules = rulesOf(match.config.variant);
  const legal = roundLegalActions(rules, match.round, match.round.turn);
  const forced = legal.length === 1 && legal[0]?.type !== 'play' ? legal[0] : undefined;
  if (forced === undefined) return null;
  return autoPass(match.round.turn) || isLocked(rules, match.round) ? forced : null;
}

export function matchResult(match: MatchState): MatchResult {
  const finished = match.phase === 'over';
  // Only one side scores in a round (P21), so the match's last round names the winner: the side that
  // reached the target, or the one-round game's winner (null when that round was drawn, D7).
  const winnerSide = finished ? (match.history.at(-1)?.winnerSide ?? null) : null;
  return { finished, winnerSide, scores: match.scores };
}

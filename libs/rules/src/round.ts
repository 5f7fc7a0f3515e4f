import { EMPTY_BOARD, endValues, findEnd, placeFirst, placeOnEnd, tileFitsEnd } from './board';
import { fail, ok, type Result } from './errors';
import type { RuleSet } from './rule-sets';
import { isValidTile, sameTile, seatAfter, tileText, type Tile } from './tiles';
import type { Action, ActionOrigin, LogEntry, RoundResult, RoundState } from './types';

/** A fresh round from a deal the caller has checked. */
export function newRound(
  number: number,
  hands: readonly (readonly Tile[])[],
  stock: readonly Tile[],
  opener: number,
  redeals: number,
): RoundState {
  return {
    number,
    opener,
    hands,
    stock,
    board: EMPTY_BOARD,
    turn: opener,
    log: [],
    passes: [],
    consecutivePasses: 0,
    lastPlacer: null,
    redeals,
    result: null,
  };
}

/** Every legal play of `hand`, in hand order, then end order: so the first one is the deadline's choice (P16). */
function legalPlays(rules: RuleSet, round: RoundState, seat: number): Action[] {
  const hand = round.hands[seat] as readonly Tile[];
  if (round.board.placements.length === 0) {
    const allowed = rules.openingTiles(hand) ?? hand;
    return allowed.map((tile) => ({ type: 'play', seat, tile, end: firstEndName(rules) }));
  }
  const plays: Action[] = [];
  for (const tile of hand) {
    for (const end of round.board.ends) {
      if (tileFitsEnd(tile, end)) plays.push({ type: 'play', seat, tile, end: end.id });
    }
  }
  return plays;
}

const firstEndName = (rules: RuleSet): string => (rules.boardShape === 'line' ? 'left' : 'e0');

const hasPlay = (round: RoundState, seat: number): boolean => {
  const hand = round.hands[seat] as readonly Tile[];
  if (round.board.placements.length === 0) return hand.length > 0;
  return hand.some((tile) => round.board.ends.some((end) => tileFitsEnd(tile, end)));
};

/**
 * The legal actions of `seat`, ordered so that the first is what the table plays at a deadline (P16):
 * the first tile of the hand that fits, on the first end it fits (left before right); else a draw
 * where the game draws and the boneyard has tiles (D4, F5); else the forced pass (P9).
 */
export function roundLegalActions(rules: RuleSet, round: RoundState, seat: number): Action[] {
  if (round.result !== null || seat !== round.turn) return [];
  const plays = legalPlays(rules, round, seat);
  if (plays.length > 0) return plays;
  if (rules.drawsFromStock && round.stock.length > 0) return [{ type: 'draw', seat }];
  return [{ type: 'pass', seat }];
}

/** True when nobody can ever play again: no seat fits a tile and nothing is left to draw (P13, D6, F6). */
export function isLocked(rules: RuleSet, round: RoundState): boolean {
  if (round.result !== null || round.board.placements.length === 0) return false;
  if (rules.drawsFromStock && round.stock.length > 0) return false;
  return round.hands.every((_, seat) => !hasPlay(round, seat));
}

function finish(rules: RuleSet, round: RoundState, dominoSeat: number | null): RoundState {
  const scoring = rules.score({
    seats: round.hands.length,
    hands: round.hands,
    dominoSeat,
    lastPlacer: round.lastPlacer,
  });
  const result: RoundResult = {
    winnerSide: scoring.winnerSide,
    points: scoring.points,
    sidePips: scoring.sidePips,
    blocked: dominoSeat === null,
    dominoSeat,
    lastPlacer: round.lastPlacer,
    finalHands: round.hands,
  };
  return updateRound(round, { result });
}

/**
 * `round` with some fields changed, keys in the order of `newRound`. Written out field by field on
 * purpose: on Node 20 an object spread that overrides keys (`{ ...round, turn }`) is many times slower
 * than a literal, and this runs on every action (see `npm run bench:rules`).
 */
function updateRound(round: RoundState, change: Partial<RoundState>): RoundState {
  return {
    number: change.number ?? round.number,
    opener: change.opener ?? round.opener,
    hands: change.hands ?? round.hands,
    stock: change.stock ?? round.stock,
    board: change.board ?? round.board,
    turn: change.turn ?? round.turn,
    log: change.log ?? round.log,
    passes: change.passes ?? round.passes,
    consecutivePasses: change.consecutivePasses ?? round.consecutivePasses,
    lastPlacer: change.lastPlacer !== undefined ? change.lastPlacer : round.lastPlacer,
    redeals: change.redeals ?? round.redeals,
    result: change.result !== undefined ? change.result : round.result,
  };
}

const nextSeat = (round: RoundState): number => seatAfter(round.turn, round.hands.length);

function withHand(round: RoundState, seat: number, hand: readonly Tile[]): (readonly Tile[])[] {
  const hands = round.hands.slice();
  hands[seat] = hand;
  return hands;
}

function applyPlay(
  rules: RuleSet,
  round: RoundState,
  action: Extract<Action, { type: 'play' }>,
  by: ActionOrigin,
): Result<RoundState> {
  const { seat } = action;
  const hand = round.hands[seat] as readonly Tile[];
  const index = hand.findIndex((t) => sameTile(t, action.tile));
  if (index < 0) return fail('TILE_NOT_IN_HAND', `Seat ${seat} does not hold ${tileText(action.tile)}.`);
  const held = hand[index] as Tile;
  let board;
  let entry: LogEntry;
  if (round.board.placements.length === 0) {
    const allowed = rules.openingTiles(hand);
    if (allowed !== null && !allowed.some((t) => sameTile(t, held))) {
      return fail(
        'MUST_OPEN_WITH_HIGHEST_DOUBLE',
        `The round must open with ${allowed.map(tileText).join(' or ')} (F2).`,
      );
    }
    // P7: the first tile [a,b] as played makes a the left end and b the right.
    board = placeFirst(rules.boardShape, action.tile, seat);
    entry = { type: 'play', seat, tile: action.tile, end: action.end ?? firstEndName(rules), by };
  } else {
    if (action.end === undefined) return fail('UNKNOWN_END', 'Say which end to play on.');
    const end = findEnd(round.board, action.end);
    if (end === undefined) {
      const names = round.board.ends.map((e) => e.id).join(', ');
      return fail('UNKNOWN_END', `There is no open end "${action.end}"; the open ends are ${names}.`);
    }
    if (!tileFitsEnd(held, end)) {
      return fail(
        'TILE_DOES_NOT_MATCH',
        `${tileText(held)} does not match the ${end.id} end (${end.value}).`,
      );
    }
    board = placeOnEnd(rules.boardShape, round.board, held, end, seat);
    entry = { type: 'play', seat, tile: action.tile, end: end.id, by };
  }
  const newHand = hand.filter((_, i) => i !== index);
  const next = updateRound(round, {
    hands: withHand(round, seat, newHand),
    board,
    log: [...round.log, entry],
    consecutivePasses: 0,
    lastPlacer: seat,
    turn: nextSeat(round),
  });
  // P11, D5, F6: a seat that places its last tile ends the round.
  return ok(newHand.length === 0 ? finish(rules, updateRound(next, { turn: seat }), seat) : next);
}

function applyPass(rules: RuleSet, round: RoundState, seat: number, by: ActionOrigin): Result<RoundState> {
  if (hasPlay(round, seat))
    return fail('PASS_NOT_ALLOWED', 'You hold a tile that fits an end, so you may not pass (P9).');
  if (rules.drawsFromStock && round.stock.length > 0) {
    return fail('MUST_DRAW', 'No tile fits, so you must draw from the boneyard (D4, F5).');
  }
  const consecutivePasses = round.consecutivePasses + 1;
  const next = updateRound(round, {
    log: [...round.log, { type: 'pass', seat, by }],
    // P10: a pass is announced with the end numbers it was made on.
    passes: [...round.passes, { seat, ends: endValues(round.board) }],
    consecutivePasses,
    turn: nextSeat(round),
  });
  // P13, D6, F6: when every seat has passed in a row, nobody can play: the round is blocked.
  return ok(
    consecutivePasses >= round.hands.length ? finish(rules, updateRound(next, { turn: seat }), null) : next,
  );
}

function applyDraw(rules: RuleSet, round: RoundState, seat: number, by: ActionOrigin): Result<RoundState> {
  if (!rules.drawsFromStock) return fail('DRAW_NOT_ALLOWED', 'This game has no boneyard: nobody draws (P4).');
  if (hasPlay(round, seat))
    return fail('DRAW_NOT_ALLOWED', 'You hold a tile that fits an end: play it instead.');
  const [drawn, ...stock] = round.stock;
  if (drawn === undefined) return fail('DRAW_NOT_ALLOWED', 'The boneyard is empty: pass instead.');
  // D4, F5: the drawn tile joins the hand, and the turn passes to the next seat.
  return ok(
    updateRound(round, {
      hands: withHand(round, seat, [...(round.hands[seat] as readonly Tile[]), drawn]),
      stock,
      log: [...round.log, { type: 'draw', seat, by, drawn }],
      consecutivePasses: 0,
      turn: nextSeat(round),
    }),
  );
}

/** Checks an action that may come from anywhere, then applies it or says why not. Never throws. */
export function applyToRound(
  rules: RuleSet,
  round: RoundState,
  action: Action,
  by: ActionOrigin,
): Result<RoundState> {
  if (typeof action !== 'object' || action === null)
    return fail('INVALID_ACTION', 'An action must be an object.');
  const type = (action as { type?: unknown }).type;
  if (type !== 'play' && type !== 'pass' && type !== 'draw') {
    return fail('INVALID_ACTION', 'An action is a play, a pass or a draw.');
  }
  const seat = (action as { seat?: unknown }).seat;
  if (!Number.isInteger(seat) || (seat as number) < 0 || (seat as number) >= round.hands.length) {
    return fail('INVALID_SEAT', `Seat must be a whole number from 0 to ${round.hands.length - 1}.`);
  }
  if (round.result !== null) return fail('NO_ROUND_IN_PLAY', 'The round is over.');
  if (seat !== round.turn)
    return fail('NOT_YOUR_TURN', `It is seat ${round.turn}'s turn, not seat ${seat}'s.`);
  switch ((action as { type?: unknown }).type) {
    case 'play': {
      const play = action as Extract<Action, { type: 'play' }>;
      if (!isValidTile(play.tile)) return fail('INVALID_TILE', 'A tile is two whole numbers from 0 to 6.');
      if (play.end !== undefined && typeof play.end !== 'string') {
        return fail('UNKNOWN_END', 'An end is named by a string such as "left" or "right".');
      }
      return applyPlay(rules, round, play, by);
    }
    case 'pass':
      return applyPass(rules, round, round.turn, by);
    case 'draw':
      return applyDraw(rules, round, round.turn, by);
    default:
      return fail('INVALID_ACTION', 'An action is a play, a pass or a draw.');
  }
}

import type { BoardShape } from './board';
import { handPips, isDouble, sameTile, seatAfter, type Tile } from './tiles';
import type { RoundResult, Variant } from './types';

/** What a round engine needs to know about the end of a round to score it. */
export interface RoundEnd {
  readonly seats: number;
  readonly hands: readonly (readonly Tile[])[];
  readonly dominoSeat: number | null;
  readonly lastPlacer: number | null;
}

export type Scoring = Pick<RoundResult, 'winnerSide' | 'points' | 'sidePips'>;

/**
 * The differences between the three games, and nothing else. The round engine (round.ts) and the
 * match (match.ts) are shared; every rule that differs between P, D and F is one field here.
 */
export interface RuleSet {
  readonly variant: Variant;
  readonly minSeats: number;
  readonly maxSeats: number;
  /** Tiles dealt to each seat: 7 (P4, D1) or 5 (F1). */
  readonly handSize: number;
  readonly boardShape: BoardShape;
  /** With no playable tile, draw from the boneyard first (D4, F5). Partnership has no boneyard (P4). */
  readonly drawsFromStock: boolean;
  readonly sideCount: (seats: number) => number;
  readonly sideOf: (seat: number) => number;
  /** Targets the host may choose; the first is the default. */
  readonly targets: readonly number[];
  readonly oneRoundAllowed: boolean;
  /** A deal that must be thrown in and dealt again (F2: nobody holds a double). */
  readonly mustRedeal: (hands: readonly (readonly Tile[])[]) => boolean;
  /** Who opens this round, given the hands and the previous round's opener (null in round 1). */
  readonly opener: (hands: readonly (readonly Tile[])[], previousOpener: number | null) => number;
  /** The deal alone decides who opens (F2), so a given deal may not name another opener. */
  readonly openerFromDeal: boolean;
  /** The tiles the opener may lead with; null means any tile (P5, D2). */
  readonly openingTiles: (hand: readonly Tile[]) => readonly Tile[] | null;
  readonly score: (end: RoundEnd) => Scoring;
}

const range = (from: number, to: number, step: number): number[] => {
  const out: number[] = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
};

/** P19: the targets a partnership or draw-game host may choose: 100 by default, 50 to 500 in steps of 50. */
export const HOST_TARGET_RANGE = { default: 100, min: 50, max: 500, step: 50 } as const;
/** HOST_TARGET_RANGE in words, for the errors that name it. */
export const HOST_TARGETS_TEXT = `from ${HOST_TARGET_RANGE.min} to ${HOST_TARGET_RANGE.max} in steps of ${HOST_TARGET_RANGE.step}`;
const HOST_TARGETS = [
  HOST_TARGET_RANGE.default,
  ...range(HOST_TARGET_RANGE.min, HOST_TARGET_RANGE.max, HOST_TARGET_RANGE.step).filter(
    (t) => t !== HOST_TARGET_RANGE.default,
  ),
];

const seatPips = (hands: readonly (readonly Tile[])[]): number[] => hands.map(handPips);

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

function highestDouble(hand: readonly Tile[]): number {
  return hand.reduce((best, t) => (isDouble(t) && t[0] > best ? t[0] : best), -1);
}

/** P11, P14, P15: team scoring. */
function scorePartnership(end: RoundEnd): Scoring {
  const pips = seatPips(end.hands);
  const teamPips = [(pips[0] ?? 0) + (pips[2] ?? 0), (pips[1] ?? 0) + (pips[3] ?? 0)];
  if (end.dominoSeat !== null) {
    const team = end.dominoSeat % 2;
    return { winnerSide: team, points: teamPips[1 - team] as number, sidePips: teamPips };
  }
  const [a, b] = teamPips as [number, number];
  // P15: equal totals go to the team that placed the last tile.
  const winner = a < b ? 0 : b < a ? 1 : (end.lastPlacer as number) % 2;
  return { winnerSide: winner, points: teamPips[1 - winner] as number, sidePips: teamPips };
}

/** The lowest seat total, or null when two or more seats share it (D7, F7). */
function soleLowest(pips: readonly number[]): number | null {
  const low = Math.min(...pips);
  const holders = pips.flatMap((p, seat) => (p === low ? [seat] : []));
  return holders.length === 1 ? (holders[0] as number) : null;
}

/** D5, D6, D7. */
function scoreDraw(end: RoundEnd): Scoring {
  const pips = seatPips(end.hands);
  if (end.dominoSeat !== null) {
    return { winnerSide: end.dominoSeat, points: sum(pips), sidePips: pips };
  }
  const winner = soleLowest(pips);
  if (winner === null) return { winnerSide: null, points: 0, sidePips: pips };
  const own = pips[winner] as number;
  return { winnerSide: winner, points: sum(pips.map((p) => p - own)), sidePips: pips };
}

/** F7: the pips left in the others' hands, plus 10 for emptying your hand. */
export const FIVE_TILE_DOMINO_BONUS = 10;

function scoreFiveTile(end: RoundEnd): Scoring {
  const pips = seatPips(end.hands);
  const winner = end.dominoSeat ?? soleLowest(pips);
  if (winner === null) return { winnerSide: null, points: 0, sidePips: pips };
  const others = sum(pips) - (pips[winner] as number);
  const bonus = end.dominoSeat !== null ? FIVE_TILE_DOMINO_BONUS : 0;
  return { winnerSide: winner, points: others + bonus, sidePips: pips };
}

const seatIsSide = { sideCount: (seats: number) => seats, sideOf: (seat: number) => seat };

/** Round 1 opens at seat 0 (the first to sit), then the next seat opens each round. */
const rotatingOpener = (hands: readonly (readonly Tile[])[], previous: number | null): number =>
  previous === null ? 0 : seatAfter(previous, hands.length);

export const RULE_SETS: Readonly<Record<Variant, RuleSet>> = {
  partnership: {
    variant: 'partnership',
    minSeats: 4,
    maxSeats: 4,
    handSize: 7,
    boardShape: 'line',
    drawsFromStock: false,
    sideCount: () => 2,
    sideOf: (seat) => seat % 2,
    targets: HOST_TARGETS,
    oneRoundAllowed: false,
    mustRedeal: () => false,
    // P5: round 1 is opened by the holder of [6,6]; P6: then the seat after the previous opener.
    opener: (hands, previous) =>
      previous === null
        ? hands.findIndex((hand) => hand.some((t) => sameTile(t, [6, 6])))
        : seatAfter(previous, hands.length),
    openerFromDeal: false,
    openingTiles: () => null,
    score: scorePartnership,
  },
  draw: {
    variant: 'draw',
    minSeats: 2,
    maxSeats: 4,
    handSize: 7,
    boardShape: 'line',
    drawsFromStock: true,
    ...seatIsSide,
    targets: HOST_TARGETS,
    oneRoundAllowed: true,
    mustRedeal: () => false,
    opener: rotatingOpener,
    openerFromDeal: false,
    openingTiles: () => null,
    score: scoreDraw,
  },
  'five-tile': {
    variant: 'five-tile',
    minSeats: 2,
    maxSeats: 4,
    handSize: 5,
    boardShape: 'cross',
    drawsFromStock: true,
    ...seatIsSide,
    // F8: the game is to 100.
    targets: [100],
    oneRoundAllowed: false,
    // F2: nobody holds a double: reshuffle and deal again.
    mustRedeal: (hands) => hands.every((hand) => highestDouble(hand) < 0),
    // F2: the holder of the highest double opens, every round.
    opener: (hands) => {
      const best = hands.map(highestDouble);
      return best.indexOf(Math.max(...best));
    },
    openerFromDeal: true,
    openingTiles: (hand) => {
      const d = highestDouble(hand);
      return [[d, d]];
    },
    score: scoreFiveTile,
  },
};

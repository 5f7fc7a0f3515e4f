import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import {
  createSeededRng,
  fullSet,
  handPips,
  randomDeal,
  replayCase,
  replayLine,
  rulesOf,
  sameTile,
  type FinishedPartnershipRound,
  type FinishedSoloRound,
  type MatchOutput,
  type CaseAction,
  type ReplayError,
  type ReplayOutput,
  type Tile,
  type UnfinishedRound,
  type Variant,
} from '@dominoes/rules';

const REPO_ROOT = path.resolve(__dirname, '../../..');

type T = [number, number];
type Hands = T[][];

// ---------------------------------------------------------------------------------------------
// Crafted deals

/** The tiles of the set that are in none of `used`. */
const rest = (...used: T[][]): T[] => {
  const taken = used.flat();
  return fullSet()
    .filter((t) => !taken.some((u) => sameTile(u, t)))
    .map((t) => [t[0], t[1]] as T);
};

/**
 * A partnership deal that blocks after ten plays: the chain 6-1 1-2 2-6 6-6 6-3 3-4 4-6 6-0 0-5 5-6
 * puts all seven sixes on the board with a 6 at both ends, and no hand holds a six any more.
 * `teamA` is the 9 leftover tiles of seats 0 and 2 (4 + 5), the rest goes to seats 1 and 3.
 */
function blockingDeal(teamA: T[]): Hands {
  const plays: Hands = [
    [
      [6, 6],
      [3, 4],
      [0, 5],
    ],
    [
      [2, 6],
      [1, 6],
      [5, 6],
    ],
    [
      [3, 6],
      [4, 6],
    ],
    [
      [1, 2],
      [0, 6],
    ],
  ];
  const teamB = rest(...plays, teamA);
  return [
    [...(plays[0] as T[]), ...teamA.slice(0, 4)],
    [...(plays[1] as T[]), ...teamB.slice(0, 4)],
    [...(plays[2] as T[]), ...teamA.slice(4)],
    [...(plays[3] as T[]), ...teamB.slice(4)],
  ];
}

/** The ten plays of `blockingDeal`, seats 0,1,2,3,0,... in turn; the board is locked after the last. */
const BLOCKING_PLAYS: CaseAction[] = [
  { seat: 0, tile: [6, 6], end: 'left' },
  { seat: 1, tile: [2, 6], end: 'left' },
  { seat: 2, tile: [6, 3], end: 'right' },
  { seat: 3, tile: [1, 2], end: 'left' },
  { seat: 0, tile: [3, 4], end: 'right' },
  { seat: 1, tile: [1, 6], end: 'left' },
  { seat: 2, tile: [4, 6], end: 'right' },
  { seat: 3, tile: [0, 6], end: 'right' },
  { seat: 0, tile: [0, 5], end: 'right' },
  { seat: 1, tile: [5, 6], end: 'right' },
];

const CLOSING_PASSES: CaseAction[] = [2, 3, 0, 1].map((seat) => ({ seat, tile: null }));

/** Team A holds little: 27 pips against 63. */
const LOW_A: T[] = [
  [0, 0],
  [0, 1],
  [0, 2],
  [0, 3],
  [0, 4],
  [1, 1],
  [1, 3],
  [1, 4],
  [1, 5],
];
/** Both teams hold 45 pips (P15). */
const EVEN_A: T[] = [
  [5, 5],
  [4, 5],
  [4, 4],
  [3, 5],
  [0, 0],
  [0, 1],
  [0, 2],
  [1, 1],
  [1, 4],
];

const seeded = (variant: Variant, seats: number, seed: number): { hands: Hands; stock: T[] } => {
  const deal = randomDeal(rulesOf(variant), seats, createSeededRng(seed));
  const copy = (tiles: readonly Tile[]): T[] => tiles.map((t) => [t[0], t[1]] as T);
  return { hands: deal.hands.map(copy), stock: copy(deal.stock) };
};

/** The first seed (of a bounded search) whose case, completed by deadlines, passes `test`. */
function findSeed<R>(
  variant: Variant,
  seats: number,
  test: (out: R) => boolean,
): { hands: Hands; stock: T[]; out: R } {
  for (let seed = 0; seed < 5000; seed++) {
    const deal = seeded(variant, seats, seed);
    const out = replayCase({ variant, ...deal, complete: true });
    if (!isError(out) && test(out as R)) return { ...deal, out: out as R };
  }
  throw new Error('no seed found');
}

// ---------------------------------------------------------------------------------------------
// Helpers

const isError = (out: ReplayOutput): out is ReplayError => 'error' in out;

function errorOf(out: ReplayOutput): ReplayError['error'] {
  if (!isError(out)) throw new Error(`expected an error, got ${JSON.stringify(out)}`);
  return out.error;
}

function finishedP(out: ReplayOutput): FinishedPartnershipRound {
  if (isError(out) || !('teamPips' in out))
    throw new Error(`expected a finished partnership round: ${JSON.stringify(out)}`);
  return out;
}

function finishedSolo(out: ReplayOutput): FinishedSoloRound {
  if (isError(out) || !('seatPips' in out))
    throw new Error(`expected a finished round: ${JSON.stringify(out)}`);
  return out;
}

function unfinished(out: ReplayOutput): UnfinishedRound {
  if (isError(out) || !('finished' in out) || out.finished || !('turn' in out)) {
    throw new Error(`expected an unfinished round: ${JSON.stringify(out)}`);
  }
  return out;
}

function matchOut(out: ReplayOutput): MatchOutput {
  if (isError(out) || !('rounds' in out)) throw new Error(`expected a match result: ${JSON.stringify(out)}`);
  return out;
}

const pipsOf = (hand: readonly T[]): number => handPips(hand);

/** A log's actions as a player would send them: the marks of who made them removed. */
const asPlayerActions = (log: readonly CaseAction[]): CaseAction[] =>
  log.map((entry) => {
    const copy: Record<string, unknown> = { ...entry };
    delete copy.timeout;
    delete copy.auto;
    return copy as unknown as CaseAction;
  });

// ---------------------------------------------------------------------------------------------
// Partnership rounds

describe('replay: partnership rounds', () => {
  it("P11 P16 domino round completed by deadlines: the domino team scores both opponents' pips", () => {
    const { hands, out } = findSeed<FinishedPartnershipRound>(
      'partnership',
      4,
      (o) => o.finished && !o.blocked,
    );
    const r = finishedP(replayCase({ variant: 'partnership', hands, complete: true }));
    expect(r).toEqual(out);
    const domino = r.lastPlacer as number;
    expect(r.finalHands[domino]).toEqual([]);
    expect(r.winnerTeam).toBe(domino % 2);
    const opponents = [1, 3].map((d) => (domino + d) % 4);
    expect(r.points).toBe(opponents.reduce((sum, s) => sum + pipsOf(r.finalHands[s] as T[]), 0));
    expect(r.teamPips).toEqual(
      [0, 1].map((team) => pipsOf([...(r.finalHands[team] as T[]), ...(r.finalHands[team + 2] as T[])])),
    );
    // P5: the holder of [6,6] opens; P6: the next round is opened by the next seat.
    expect(r.opener).toBe(hands.findIndex((h) => h.some((t) => sameTile(t, [6, 6]))));
    expect(r.nextOpener).toBe((r.opener + 1) % 4);
    expect(r.log.every((e) => e.timeout === true)).toBe(true);
    expect(Object.keys(r)).toEqual([
      'finished',
      'winnerTeam',
      'points',
      'blocked',
      'lastPlacer',
      'opener',
      'nextOpener',
      'teamPips',
      'finalHands',
      'ends',
      'log',
    ]);
  });

  it("replaying a result's own log, as player actions, gives the same round", () => {
    const { hands, out } = findSeed<FinishedPartnershipRound>(
      'partnership',
      4,
      (o) => o.finished && !o.blocked,
    );
    const again = finishedP(replayCase({ variant: 'partnership', hands, actions: asPlayerActions(out.log) }));
    expect(again.log).toEqual(asPlayerActions(out.log));
    expect({ ...again, log: [] }).toEqual({ ...out, log: [] });
    // The log as printed (with its timeout marks) is accepted too, and checked against P16.
    expect(replayCase({ variant: 'partnership', hands, actions: out.log })).toEqual(out);
  });

  it('P13 P14 blocked round: the four closing passes are logged, the lower team scores the other total', () => {
    const hands = blockingDeal(LOW_A);
    const r = finishedP(
      replayCase({ variant: 'partnership', hands, actions: [...BLOCKING_PLAYS, ...CLOSING_PASSES] }),
    );
    expect(r).toMatchObject({
      finished: true,
      winnerTeam: 0,
      points: 63,
      blocked: true,
      lastPlacer: 1,
      opener: 0,
      nextOpener: 1,
      teamPips: [27, 63],
      ends: [6, 6],
    });
    expect(r.log).toEqual([...BLOCKING_PLAYS, ...CLOSING_PASSES]);
    expect(r.finalHands.map((h) => h.length)).toEqual([4, 4, 5, 5]);
  });

  it('P13 a locked board is closed by the table at once: the four passes are logged as automatic', () => {
    const hands = blockingDeal(LOW_A);
    const auto = CLOSING_PASSES.map((p) => ({ ...p, auto: true }));
    const r = finishedP(replayCase({ variant: 'partnership', hands, actions: BLOCKING_PLAYS }));
    expect(r.blocked).toBe(true);
    expect(r.log).toEqual([...BLOCKING_PLAYS, ...auto]);
    // "complete" on a locked board changes nothing more.
    expect(replayCase({ variant: 'partnership', hands, actions: BLOCKING_PLAYS, complete: true })).toEqual(r);
  });

  it('P15 blocked with equal totals: the team that placed the last tile scores the other total', () => {
    const hands = blockingDeal(EVEN_A);
    const r = finishedP(
      replayCase({ variant: 'partnership', hands, actions: [...BLOCKING_PLAYS, ...CLOSING_PASSES] }),
    );
    expect(r.teamPips).toEqual([45, 45]);
    expect(r.lastPlacer).toBe(1);
    expect(r.winnerTeam).toBe(1);
    expect(r.points).toBe(45);
    // And any blocked round with equal totals, whoever placed last.
    const tie = findSeed<FinishedPartnershipRound>(
      'partnership',
      4,
      (o) => o.blocked && o.teamPips[0] === o.teamPips[1],
    );
    expect(tie.out.winnerTeam).toBe((tie.out.lastPlacer as number) % 2);
    expect(tie.out.points).toBe(tie.out.teamPips[0]);
  });

  it('P16 a timeout plays the first matching tile of the hand, on the left end if it matches there', () => {
    const hands = blockingDeal(LOW_A);
    // Seat 0 opens by timeout: on an empty board, the first tile of its hand ([6,6]).
    // Seat 1's hand is [2,6],[1,6],[5,6],...: at its deadline it lays [2,6] on the left.
    const r = unfinished(
      replayCase({
        variant: 'partnership',
        hands,
        actions: [
          { seat: 0, timeout: true },
          { seat: 1, timeout: true },
        ],
      }),
    );
    expect(r.log).toEqual([
      { seat: 0, tile: [6, 6], end: 'left', timeout: true },
      { seat: 1, tile: [2, 6], end: 'left', timeout: true },
    ]);
    expect(r.ends).toEqual([2, 6]);
    expect(r.turn).toBe(2);
    // Seat 2 holds [3,6],[4,6] then no other six or two: it plays [3,6] on the right (the left shows 2).
    const next = unfinished(
      replayCase({
        variant: 'partnership',
        hands,
        actions: [...BLOCKING_PLAYS.slice(0, 2), { seat: 2, timeout: true }],
      }),
    );
    expect(next.log.at(-1)).toEqual({ seat: 2, tile: [3, 6], end: 'right', timeout: true });
  });

  it('P16 a timeout names the seat to move; any other seat is NOT_YOUR_TURN', () => {
    const hands = blockingDeal(LOW_A);
    const e = errorOf(
      replayCase({
        variant: 'partnership',
        hands,
        actions: [
          { seat: 0, tile: [6, 6], end: 'left' },
          { seat: 3, timeout: true },
        ],
      }),
    );
    expect(e).toMatchObject({ code: 'NOT_YOUR_TURN', action: 1 });
  });

  it('an unfinished round says whose turn it is and lists the legal actions', () => {
    const hands = blockingDeal(LOW_A);
    const r = unfinished(replayCase({ variant: 'partnership', hands, actions: BLOCKING_PLAYS.slice(0, 1) }));
    expect(r).toEqual({
      finished: false,
      turn: 1,
      legal: [
        { seat: 1, tile: [2, 6], end: 'left' },
        { seat: 1, tile: [2, 6], end: 'right' },
        { seat: 1, tile: [1, 6], end: 'left' },
        { seat: 1, tile: [1, 6], end: 'right' },
        { seat: 1, tile: [5, 6], end: 'left' },
        { seat: 1, tile: [5, 6], end: 'right' },
      ],
      ends: [6, 6],
      handCounts: [6, 7, 7, 7],
      log: BLOCKING_PLAYS.slice(0, 1),
    });
  });

  it('an explicit opener overrides P5 for a single round', () => {
    const hands = blockingDeal(LOW_A);
    const r = unfinished(
      replayCase({
        variant: 'partnership',
        hands,
        opener: 2,
        actions: [{ seat: 2, tile: [3, 6], end: 'left' }],
      }),
    );
    expect(r.turn).toBe(3);
    expect(r.ends).toEqual([3, 6]);
    const e = errorOf(
      replayCase({
        variant: 'partnership',
        hands,
        opener: 2,
        actions: [{ seat: 0, tile: [6, 6], end: 'left' }],
      }),
    );
    expect(e.code).toBe('NOT_YOUR_TURN');
    expect(errorOf(replayCase({ variant: 'partnership', hands, opener: 4 })).code).toBe('INVALID_DEAL');
    expect(errorOf(replayCase({ variant: 'partnership', hands, opener: 'north' })).code).toBe('INVALID_CASE');
  });
});

// ---------------------------------------------------------------------------------------------
// Matches

describe('replay: partnership match', () => {
  /** Seeded complete rounds, as many as `count`. */
  const rounds = (count: number, from = 100) =>
    Array.from({ length: count }, (_, i) => ({
      hands: seeded('partnership', 4, from + i).hands,
      complete: true,
    }));

  /** The fewest seeded rounds that finish a match to `target`. */
  function shortestMatch(target: number) {
    for (let n = 1; n <= 40; n++) {
      const out = matchOut(replayCase({ variant: 'partnership', target, rounds: rounds(n) }));
      if (out.finished) return { n, out };
    }
    throw new Error('the match did not end');
  }

  it('P5 P6 P20 plays to the target: round 1 opened by [6,6], then the next seat each round', () => {
    const { n, out } = shortestMatch(150);
    expect(n).toBeGreaterThan(1);
    const first = rounds(1)[0]?.hands as Hands;
    const p5 = first.findIndex((h) => h.some((t) => sameTile(t, [6, 6])));
    expect(out.rounds.map((r) => r.opener)).toEqual(Array.from({ length: n }, (_, i) => (p5 + i) % 4));
    const totals = [0, 0];
    for (const r of out.rounds) totals[r.winnerTeam as number] += r.points;
    expect(out.scores).toEqual(totals);
    expect(out.winnerTeam).toBe(out.rounds.at(-1)?.winnerTeam);
    expect(Math.max(...out.scores)).toBeGreaterThanOrEqual(150);
    expect(Object.keys(out)).toEqual(['finished', 'winnerTeam', 'scores', 'rounds']);
    expect(Object.keys(out.rounds[0] ?? {})).toEqual(['opener', 'winnerTeam', 'points', 'blocked']);
  });

  it('rounds that run out before the target: finished false with the scores so far', () => {
    const { n } = shortestMatch(150);
    const out = matchOut(replayCase({ variant: 'partnership', target: 150, rounds: rounds(n - 1) }));
    expect(out.finished).toBe(false);
    expect(out.winnerTeam).toBeNull();
    expect(out.rounds).toHaveLength(n - 1);
    // The last round may stop part-way: it is shown as the current round.
    const p5 = finishedP(replayCase({ variant: 'partnership', ...rounds(1)[0] })).opener;
    const partial = [
      ...rounds(1),
      { hands: seeded('partnership', 4, 101).hands, actions: [{ seat: (p5 + 1) % 4, timeout: true }] },
    ];
    const withCurrent = matchOut(replayCase({ variant: 'partnership', target: 150, rounds: partial }));
    expect(withCurrent.finished).toBe(false);
    expect(withCurrent.current?.finished).toBe(false);
    expect(withCurrent.current?.log).toHaveLength(1);
  });

  it('a round after the match ended is MATCH_OVER, with the round index', () => {
    const { n } = shortestMatch(150);
    const e = errorOf(replayCase({ variant: 'partnership', target: 150, rounds: rounds(n + 1) }));
    expect(e).toMatchObject({ code: 'MATCH_OVER', round: n });
  });

  it('a non-final round that has not ended is ROUND_UNFINISHED', () => {
    const list = rounds(3);
    const e = errorOf(
      replayCase({ variant: 'partnership', rounds: [list[0], { hands: list[1]?.hands }, list[2]] }),
    );
    expect(e).toMatchObject({ code: 'ROUND_UNFINISHED', round: 1 });
  });

  it('a round that names an opener other than P5/P6 is OPENER_MISMATCH; the right one is accepted', () => {
    const list = rounds(2);
    const p5 = (list[0]?.hands as Hands).findIndex((h) => h.some((t) => sameTile(t, [6, 6])));
    const right = [
      { ...list[0], opener: p5 },
      { ...list[1], opener: (p5 + 1) % 4 },
    ];
    expect(matchOut(replayCase({ variant: 'partnership', rounds: right })).rounds).toHaveLength(2);
    const wrong = [list[0], { ...list[1], opener: (p5 + 2) % 4 }];
    expect(errorOf(replayCase({ variant: 'partnership', rounds: wrong }))).toMatchObject({
      code: 'OPENER_MISMATCH',
      round: 1,
    });
  });

  it('an illegal action inside a match names its round and action', () => {
    const list = rounds(2);
    const bad = [list[0], { hands: list[1]?.hands, actions: [{ seat: 3, tile: null }] }];
    const e = errorOf(replayCase({ variant: 'partnership', rounds: bad }));
    expect(e.round).toBe(1);
    expect(e.action).toBe(0);
  });

  it("P19 a target outside the host's choices is refused", () => {
    expect(errorOf(replayCase({ variant: 'partnership', target: 120, rounds: rounds(1) })).code).toBe(
      'INVALID_TARGET',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Draw and five-tile games

describe('replay: draw game', () => {
  it("D4 D5 a domino round: draws show the tile taken, in stock order; the winner scores every opponent's pips", () => {
    const { hands, stock, out } = findSeed<FinishedSoloRound>(
      'draw',
      3,
      (o) => !o.blocked && o.log.some((e) => e.draw),
    );
    const r = finishedSolo(replayCase({ variant: 'draw', hands, stock, complete: true }));
    expect(r).toEqual(out);
    const draws = r.log.filter((e) => e.draw === true);
    expect(draws.map((e) => e.drawn)).toEqual(stock.slice(0, draws.length));
    expect(r.finalHands[r.winnerSeat as number]).toEqual([]);
    expect(r.points).toBe(r.seatPips.reduce((a, b) => a + b, 0));
    expect(r.opener).toBe(0);
    expect(r.nextOpener).toBe(1);
    expect(Object.keys(r)).toEqual([
      'finished',
      'winnerSeat',
      'points',
      'blocked',
      'lastPlacer',
      'opener',
      'nextOpener',
      'seatPips',
      'finalHands',
      'ends',
      'log',
    ]);
  });

  it('D6 a blocked round: the lowest total scores the differences', () => {
    const { out } = findSeed<FinishedSoloRound>('draw', 3, (o) => o.blocked && o.winnerSeat !== null);
    const own = out.seatPips[out.winnerSeat as number] as number;
    expect(out.points).toBe(out.seatPips.reduce((sum, p) => sum + (p - own), 0));
    expect(out.log.slice(-3).every((e) => e.tile === null)).toBe(true);
  });

  it('D7 a blocked round with a shared lowest total is drawn: winnerSeat null, no points', () => {
    const { out } = findSeed<FinishedSoloRound>('draw', 4, (o) => o.blocked && o.winnerSeat === null);
    expect(out.points).toBe(0);
    const low = Math.min(...out.seatPips);
    expect(out.seatPips.filter((p) => p === low).length).toBeGreaterThan(1);
  });

  it('D4 a seat with no tile to play must draw, and may not draw while holding a playable tile', () => {
    const { hands, stock, out } = findSeed<FinishedSoloRound>('draw', 2, (o) => o.log.some((e) => e.draw));
    const at = out.log.findIndex((e) => e.draw);
    const before = asPlayerActions(out.log.slice(0, at));
    const drawer = out.log[at]?.seat as number;
    const mustDraw = errorOf(
      replayCase({ variant: 'draw', hands, stock, actions: [...before, { seat: drawer, tile: null }] }),
    );
    expect(mustDraw).toMatchObject({ code: 'MUST_DRAW', action: at });
    const noDraw = errorOf(replayCase({ variant: 'draw', hands, stock, actions: [{ seat: 0, draw: true }] }));
    expect(noDraw).toMatchObject({ code: 'DRAW_NOT_ALLOWED', action: 0 });
    const wrongDrawn = errorOf(
      replayCase({
        variant: 'draw',
        hands,
        stock,
        actions: [...before, { seat: drawer, draw: true, drawn: [9, 9] }],
      }),
    );
    expect(wrongDrawn).toMatchObject({ code: 'INVALID_ACTION', action: at });
  });

  it('D8 a one-round match ends after its round', () => {
    const deal = seeded('draw', 3, 5);
    const out = matchOut(
      replayCase({ variant: 'draw', oneRound: true, rounds: [{ ...deal, complete: true }] }),
    );
    expect(out.finished).toBe(true);
    expect(out.rounds).toHaveLength(1);
    expect(Object.keys(out)).toEqual(['finished', 'winnerSeat', 'scores', 'rounds']);
    expect(out.scores).toHaveLength(3);
  });

  it('draw-game matches rotate the opener from seat 0', () => {
    const list = Array.from({ length: 3 }, (_, i) => ({ ...seeded('draw', 3, 200 + i), complete: true }));
    const out = matchOut(replayCase({ variant: 'draw', target: 500, rounds: list }));
    expect(out.rounds.map((r) => r.opener)).toEqual([0, 1, 2]);
    expect(out.finished).toBe(false);
  });

  it('a draw case needs its stock', () => {
    const { hands } = seeded('draw', 3, 1);
    expect(errorOf(replayCase({ variant: 'draw', hands })).code).toBe('INVALID_CASE');
  });
});

describe('replay: five-tile game', () => {
  it("F2 F7 the highest double opens; the domino seat scores the others' pips plus 10", () => {
    const { hands, stock, out } = findSeed<FinishedSoloRound>('five-tile', 3, (o) => !o.blocked);
    const r = finishedSolo(replayCase({ variant: 'five-tile', hands, stock, complete: true }));
    expect(r).toEqual(out);
    const highest = hands.map((h) => Math.max(-1, ...h.filter((t) => t[0] === t[1]).map((t) => t[0])));
    expect(r.opener).toBe(highest.indexOf(Math.max(...highest)));
    expect(r.nextOpener).toBeNull();
    expect(r.log[0]?.tile).toEqual([Math.max(...highest), Math.max(...highest)]);
    expect(r.points).toBe(r.seatPips.reduce((a, b) => a + b, 0) + 10);
  });

  it('F4 ends are named e0, e1, ...: the opening double offers four', () => {
    const { hands, stock } = findSeed<FinishedSoloRound>('five-tile', 2, (o) => !o.blocked);
    const r = unfinished(replayCase({ variant: 'five-tile', hands, stock, actions: [] }));
    const opener = r.turn;
    const opened = unfinished(
      replayCase({ variant: 'five-tile', hands, stock, actions: [{ seat: opener, timeout: true }] }),
    );
    expect(opened.ends).toHaveLength(4);
    expect(opened.log[0]?.end).toBe('e0');
  });

  it('F2 a five-tile case may not name another opener, nor deal without a double', () => {
    const { hands, stock, out } = findSeed<FinishedSoloRound>('five-tile', 3, (o) => !o.blocked);
    const other = (out.opener + 1) % 3;
    expect(errorOf(replayCase({ variant: 'five-tile', hands, stock, opener: other })).code).toBe(
      'INVALID_DEAL',
    );
    expect(
      finishedSolo(replayCase({ variant: 'five-tile', hands, stock, opener: out.opener, complete: true }))
        .opener,
    ).toBe(out.opener);
    const noDoubles = [
      [
        [0, 1],
        [0, 2],
        [0, 3],
        [0, 4],
        [0, 5],
      ],
      [
        [1, 2],
        [1, 3],
        [1, 4],
        [1, 5],
        [1, 6],
      ],
    ];
    const e = errorOf(
      replayCase({ variant: 'five-tile', hands: noDoubles, stock: rest(...(noDoubles as T[][])) }),
    );
    expect(e.code).toBe('INVALID_DEAL');
  });

  it('F8 a five-tile match plays to 100 and names the winning seat', () => {
    const list = Array.from({ length: 30 }, (_, i) => ({
      ...seeded('five-tile', 2, 300 + i),
      complete: true,
    }));
    // Seeds whose deals hold no double are thrown in (F2); keep only the ones that open.
    const playable = list.filter((round) => !isError(replayCase({ variant: 'five-tile', ...round })));
    let out: MatchOutput | undefined;
    for (let n = 1; n <= playable.length; n++) {
      out = matchOut(replayCase({ variant: 'five-tile', rounds: playable.slice(0, n) }));
      if (out.finished) break;
    }
    expect(out?.finished).toBe(true);
    expect(Math.max(...(out?.scores ?? []))).toBeGreaterThanOrEqual(100);
    expect(out?.winnerSeat).toBe(out?.rounds.at(-1)?.winnerSeat);
    expect(
      errorOf(replayCase({ variant: 'five-tile', target: 150, rounds: playable.slice(0, 1) })).code,
    ).toBe('INVALID_TARGET');
  });
});

// ---------------------------------------------------------------------------------------------
// Errors

describe('replay: errors', () => {
  const hands = blockingDeal(LOW_A);

  it('input that is not JSON is INVALID_JSON', () => {
    expect(errorOf(replayLine('not json')).code).toBe('INVALID_JSON');
    expect(errorOf(replayLine('{"variant":')).code).toBe('INVALID_JSON');
  });

  it.each([
    ['an array', '[1,2,3]'],
    ['a number', '42'],
    ['null', 'null'],
    ['a missing variant', '{"hands":[]}'],
    ['an unknown variant', '{"variant":"mexican-train","hands":[]}'],
    ['missing hands', '{"variant":"partnership"}'],
    ['an unknown field', '{"variant":"partnership","hands":[],"hand":[]}'],
    ['both hands and rounds', '{"variant":"partnership","hands":[],"rounds":[]}'],
    ['empty rounds', '{"variant":"partnership","rounds":[]}'],
  ])('JSON that is not a case (%s) is INVALID_CASE', (_name, line) => {
    const e = errorOf(replayLine(line));
    expect(e.code).toBe('INVALID_CASE');
    expect(e.message.length).toBeGreaterThan(10);
  });

  it('actions that are not an array, and a non-boolean complete, are INVALID_CASE', () => {
    expect(errorOf(replayCase({ variant: 'partnership', hands, actions: {} })).code).toBe('INVALID_CASE');
    expect(errorOf(replayCase({ variant: 'partnership', hands, complete: 'yes' })).code).toBe('INVALID_CASE');
  });

  it('wrong hand sizes, duplicate tiles, and hands that are not the whole set are INVALID_DEAL', () => {
    const short = hands.map((h, i) => (i === 0 ? h.slice(1) : h));
    expect(errorOf(replayCase({ variant: 'partnership', hands: short })).code).toBe('INVALID_DEAL');
    const duplicate = hands.map((h, i) => (i === 3 ? [hands[0]?.[0] as T, ...h.slice(1)] : h));
    expect(errorOf(replayCase({ variant: 'partnership', hands: duplicate })).code).toBe('INVALID_DEAL');
    expect(errorOf(replayCase({ variant: 'partnership', hands: hands.slice(0, 3) })).code).toBe(
      'INVALID_DEAL',
    );
    const withStock = seeded('draw', 2, 3);
    expect(
      errorOf(replayCase({ variant: 'draw', hands: withStock.hands, stock: withStock.stock.slice(1) })).code,
    ).toBe('INVALID_DEAL');
    expect(errorOf(replayCase({ variant: 'draw', hands: [withStock.hands[0]], stock: [] })).code).toBe(
      'INVALID_SEAT_COUNT',
    );
  });

  it('a tile out of range is INVALID_TILE', () => {
    const bad = hands.map((h, i) => (i === 1 ? [[7, 7] as T, ...h.slice(1)] : h));
    expect(errorOf(replayCase({ variant: 'partnership', hands: bad })).code).toBe('INVALID_TILE');
    const e = errorOf(
      replayCase({ variant: 'partnership', hands, actions: [{ seat: 0, tile: [6, 9], end: 'left' }] }),
    );
    expect(e).toMatchObject({ code: 'INVALID_TILE', action: 0 });
  });

  it.each([
    ['not an object', 5, 'INVALID_ACTION'],
    ['an unknown field', { seat: 0, tile: [6, 6], end: 'left', side: 'left' }, 'INVALID_ACTION'],
    ['nothing to do', { seat: 0 }, 'INVALID_ACTION'],
    ['a draw with a tile', { seat: 0, tile: [6, 6], draw: true }, 'INVALID_ACTION'],
    ['timeout false', { seat: 0, timeout: false }, 'INVALID_ACTION'],
    ['an end on a pass', { seat: 0, tile: null, end: 'left' }, 'INVALID_ACTION'],
    ['no seat', { tile: [6, 6], end: 'left' }, 'INVALID_SEAT'],
    ['seat 4', { seat: 4, tile: [6, 6], end: 'left' }, 'INVALID_SEAT'],
  ])('an action of unknown shape (%s) is refused', (_name, action, code) => {
    expect(errorOf(replayCase({ variant: 'partnership', hands, actions: [action] }))).toMatchObject({
      code,
      action: 0,
    });
  });

  it.each([
    ['NOT_YOUR_TURN', [{ seat: 1, tile: [2, 6], end: 'left' }], 0],
    ['TILE_NOT_IN_HAND', [BLOCKING_PLAYS[0], { seat: 1, tile: [6, 3], end: 'left' }], 1],
    ['TILE_DOES_NOT_MATCH', [...BLOCKING_PLAYS.slice(0, 3), { seat: 3, tile: [0, 6], end: 'left' }], 3],
    ['UNKNOWN_END', [BLOCKING_PLAYS[0], { seat: 1, tile: [2, 6], end: 'middle' }], 1],
    ['PASS_NOT_ALLOWED', [BLOCKING_PLAYS[0], { seat: 1, tile: null }], 1],
    ['DRAW_NOT_ALLOWED', [BLOCKING_PLAYS[0], { seat: 1, draw: true }], 1],
    ['NO_ROUND_IN_PLAY', [...BLOCKING_PLAYS, ...CLOSING_PASSES, { seat: 2, tile: null }], 14],
  ])(
    "an illegal action gives the rules' code %s with its index, and nothing else",
    (code, actions, index) => {
      const out = replayCase({ variant: 'partnership', hands, actions });
      expect(Object.keys(out)).toEqual(['error']);
      expect(errorOf(out)).toMatchObject({ code, action: index });
    },
  );

  it('a timeout that states a different action than the table would take is INVALID_ACTION', () => {
    const e = errorOf(
      replayCase({
        variant: 'partnership',
        hands,
        actions: [{ seat: 0, tile: [3, 4], end: 'left', timeout: true }],
      }),
    );
    expect(e).toMatchObject({ code: 'INVALID_ACTION', action: 0 });
  });

  it('never throws, whatever the input', () => {
    const weird = [
      '',
      ' ',
      '{}',
      '{"variant":"partnership","hands":[1,2,3,4]}',
      '{"variant":"partnership","hands":[[],[],[],[]]}',
      '{"variant":"draw","hands":[[[0,0]],null],"stock":null}',
      '{"variant":"partnership","rounds":[null]}',
      '{"variant":"five-tile","rounds":[{"hands":"x"}]}',
      '{"variant":"partnership","hands":[[null]],"actions":[null]}',
      '{"variant":"draw","seats":"3","hands":[],"stock":[]}',
      '{"variant":"partnership","rounds":[{"hands":[],"extra":1}]}',
    ];
    for (const line of weird) {
      const out = replayLine(line);
      expect(isError(out)).toBe(true);
      expect(errorOf(out).code).not.toBe('INTERNAL_ERROR');
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The command

describe('replay: the CLI', () => {
  it('reads JSON Lines from stdin and prints one JSON line per case; a bad line does not stop the rest', () => {
    const hands = blockingDeal(LOW_A);
    const valid = JSON.stringify({ variant: 'partnership', hands, actions: BLOCKING_PLAYS, complete: true });
    const input = `${valid}\nthis is not json\n\n${valid}\n`;
    const run = spawnSync('npx', ['tsx', 'libs/rules/src/cli/replay.ts'], {
      cwd: REPO_ROOT,
      input,
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    const [first, second, third] = lines.map((l) => JSON.parse(l) as ReplayOutput);
    expect(finishedP(first as ReplayOutput)).toMatchObject({ blocked: true, winnerTeam: 0, points: 63 });
    expect(errorOf(second as ReplayOutput).code).toBe('INVALID_JSON');
    expect(third).toEqual(first);
    expect(run.stderr).toBe('');
  }, 60_000);
});

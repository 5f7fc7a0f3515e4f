/**
 * Partnership (seed 000): P1–P21 as far as the rules library owns them. Timing (P16's 45 s, P17, P18)
 * is in timing.test.ts; random-play invariants are in properties.test.ts.
 */
import {
  applyAction,
  automaticAction,
  createMatch,
  createSeededRng,
  deadlineAction,
  handPips,
  legalActions,
  matchResult,
  rulesOf,
  seatView,
  startRound,
  startRoundWithDeal,
  tileId,
  type MatchState,
} from '@dominoes/rules';
import {
  blockingHands,
  blockingPlays,
  deal,
  endIds,
  endValues,
  holds,
  must,
  newMatch,
  pass,
  play,
  refusal,
  result,
  round,
  steps,
  t,
  text,
  tiles,
} from './helpers';

const partnership = (target?: number): MatchState =>
  newMatch(target === undefined ? { variant: 'partnership' } : { variant: 'partnership', target });

/** Seat 0 holds every six; nobody else can answer an opening [6,6]. */
const ALL_SIXES = [
  '66 06 16 26 36 46 56',
  '00 01 02 03 04 05 11',
  '12 13 14 15 22 23 24',
  '25 33 34 35 44 45 55',
];

/** Plays the whole round (or match) by the table's deadline choice (P16). */
function playByDeadlines(m: MatchState, untilMatchOver = false, seed = 1): MatchState {
  const rng = createSeededRng(seed);
  let state = m;
  for (let i = 0; i < 10_000; i++) {
    if (state.phase === 'over') return state;
    if (state.phase !== 'playing') {
      if (!untilMatchOver) return state;
      state = must(startRound(state, rng));
      continue;
    }
    const action = deadlineAction(state);
    if (action === null) throw new Error('nobody to move in a round in play');
    state = must(applyAction(state, action, 'deadline'));
  }
  throw new Error('the match did not end');
}

describe('partnership: seats and teams', () => {
  it('P1 exactly 4 seats in 2 teams: seats 0 and 2 are team A (0), seats 1 and 3 team B (1)', () => {
    const m = partnership();
    expect(m.config.seats).toBe(4);
    expect(m.scores).toEqual([0, 0]);
    expect([0, 1, 2, 3].map((s) => rulesOf(m.config.variant).sideOf(s))).toEqual([0, 1, 0, 1]);
    expect(seatView(m, 1).sideOfSeat).toEqual([0, 1, 0, 1]);
    for (const seats of [1, 2, 3, 5]) {
      expect(refusal(createMatch({ variant: 'partnership', seats }))).toBe('INVALID_SEAT_COUNT');
    }
    expect(must(createMatch({ variant: 'partnership', seats: 4 })).config.seats).toBe(4);
  });

  it('P2 the turn always passes to the next seat, (s + 1) mod 4: opponent, partner, opponent', () => {
    let m = deal(
      partnership(),
      blockingHands(2, ['14 15 22 24 25', '33 34 35 44 55', '00 02 03 04', '05 11 12 13']),
    );
    const turns: number[] = [round(m).turn];
    for (const step of blockingPlays(2).split(' ')) {
      m = steps(m, step);
      turns.push(round(m).turn);
    }
    expect(turns).toEqual([2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0]);
    expect(turns.slice(0, 4).map((s) => s % 2)).toEqual([0, 1, 0, 1]);
  });

  it('P3 the library only opens a table of exactly 4 seats and never moves for a seat that can play', () => {
    // "No robots" and seating by arrival are the table service's; the library's part is that a match has
    // 4 seats, a round deals 4 hands, and the table never chooses a play on its own (only forced passes).
    expect(refusal(createMatch({ variant: 'partnership', seats: 3 }))).toBe('INVALID_SEAT_COUNT');
    let m = must(startRound(partnership(), createSeededRng('p3')));
    expect(round(m).hands).toHaveLength(4);
    const rng = createSeededRng(3);
    while (m.phase === 'playing') {
      const seat = round(m).turn;
      const legal = legalActions(m, seat);
      const auto = automaticAction(m, () => true);
      if (legal.some((a) => a.type === 'play')) expect(auto).toBeNull();
      else expect(auto).toEqual({ type: 'pass', seat });
      m = must(applyAction(m, legal[rng.below(legal.length)]!));
    }
  });
});

describe('partnership: the deal and the opening', () => {
  it('P4 the whole set is dealt, 7 tiles a seat, no boneyard; nobody draws; every round is a new deal', () => {
    const rng = createSeededRng('p4');
    let m = must(startRound(partnership(), rng));
    const first = round(m);
    expect(first.hands.map((h) => h.length)).toEqual([7, 7, 7, 7]);
    expect(first.stock).toEqual([]);
    expect(new Set(first.hands.flat().map(tileId)).size).toBe(28);
    expect(seatView(m, 0).stockCount).toBe(0);

    // A deal with a boneyard is not a partnership deal.
    const short = first.hands.map((h) => h.slice(0, 6));
    const stock = first.hands.map((h) => h[6]!);
    expect(refusal(startRoundWithDeal(partnership(), { hands: short, stock }))).toBe('INVALID_DEAL');

    // Nobody ever draws, not even a seat that cannot play.
    m = play(deal(partnership(), ALL_SIXES), 0, '66');
    expect(legalActions(m, 1)).toEqual([{ type: 'pass', seat: 1 }]);
    expect(refusal(applyAction(m, { type: 'draw', seat: 1 }))).toBe('DRAW_NOT_ALLOWED');

    // The next round is dealt afresh.
    let full = must(startRound(partnership(), rng));
    const dealt1 = round(full).hands.map(text);
    full = must(startRound(playByDeadlines(full), rng));
    expect(round(full).number).toBe(2);
    expect(round(full).hands.map(text)).not.toEqual(dealt1);
    expect(round(full).hands.map((h) => h.length)).toEqual([7, 7, 7, 7]);
    expect(new Set(round(full).hands.flat().map(tileId)).size).toBe(28);
  });

  it('P5 round 1 is opened by the seat holding [6,6], with any tile of its choice', () => {
    for (const holder of [0, 1, 2, 3]) {
      const hands = ALL_SIXES.map((_, s) => ALL_SIXES[(s - holder + 4) % 4] as string);
      const m = deal(partnership(), hands);
      expect(round(m).opener).toBe(holder);
      expect(round(m).turn).toBe(holder);
      const legal = legalActions(m, holder);
      expect(legal.map((a) => (a.type === 'play' ? text([a.tile]) : a.type))).toEqual(
        hands[holder]!.split(' '),
      );
      for (const other of [0, 1, 2, 3].filter((s) => s !== holder)) {
        expect(refusal(applyAction(m, { type: 'play', seat: other, tile: round(m).hands[other]![0]! }))).toBe(
          'NOT_YOUR_TURN',
        );
      }
    }
    // It need not play [6,6]: [3,6] opens just as well.
    const m = play(deal(partnership(), ALL_SIXES), 0, '36');
    expect(endValues(m)).toEqual([3, 6]);
    expect(holds(round(m).hands[0]!, '66')).toBe(true);
  });

  it('P6 from round 2 on, the seat after the previous opener opens, whatever the previous result', () => {
    // Round 1: seat 2 holds [6,6]; then 3, 0, 1, 2, ... whoever won.
    let m = deal(
      partnership(500),
      blockingHands(2, ['14 15 22 24 25', '33 34 35 44 55', '00 02 03 04', '05 11 12 13']),
    );
    m = playByDeadlines(m);
    const openers = [round(m).opener];
    const rng = createSeededRng('p6');
    for (let r = 2; r <= 6 && m.phase !== 'over'; r++) {
      m = must(startRound(m, rng));
      openers.push(round(m).opener);
      expect(round(m).turn).toBe(round(m).opener);
      m = playByDeadlines(m);
    }
    expect(openers).toEqual([2, 3, 0, 1, 2, 3].slice(0, openers.length));
    expect(openers.length).toBeGreaterThanOrEqual(4);
    // A given deal does not change the rotation: the [6,6] holder does not open round 2.
    let n = playByDeadlines(deal(partnership(500), ALL_SIXES));
    n = deal(n, [ALL_SIXES[1]!, ALL_SIXES[2]!, ALL_SIXES[3]!, ALL_SIXES[0]!]);
    expect(round(n).opener).toBe(1);
    expect(holds(round(n).hands[3]!, '66')).toBe(true);
  });
});

describe('partnership: the chain', () => {
  it('P7 the first tile [a,b] makes a the left end and b the right; a play matches the end it is laid on', () => {
    let m = play(deal(partnership(), ALL_SIXES), 0, '36');
    expect(endIds(m)).toEqual(['left', 'right']);
    expect(endValues(m)).toEqual([3, 6]);
    // Seat 1 holds [0,3]: it fits the left end (3), not the right (6).
    expect(refusal(applyAction(m, { type: 'play', seat: 1, tile: t('03'), end: 'right' }))).toBe(
      'TILE_DOES_NOT_MATCH',
    );
    m = play(m, 1, '03', 'left');
    // The matching half (3) touches the chain, the other half (0) is the new left end, however written.
    expect(endValues(m)).toEqual([0, 6]);
    expect(round(m).board.placements.at(-1)).toMatchObject({ seat: 1, tile: [3, 0], end: 'left' });
    // The opening orientation is the player's: [6,3] gives left 6, right 3.
    const other = play(deal(partnership(), ALL_SIXES), 0, '63');
    expect(endValues(other)).toEqual([6, 3]);
    // Seat 2 cannot answer 0 | 6 and passes; seat 3 neither; seat 0 lays [1,6] on the right end (6).
    m = steps(m, '2:pass 3:pass 0:16@right');
    expect(endValues(m)).toEqual([0, 1]);
    expect(round(m).board.placements.at(-1)).toMatchObject({ seat: 0, tile: [6, 1], end: 'right' });
    expect(refusal(applyAction(m, { type: 'play', seat: 1, tile: t('01'), end: 'middle' }))).toBe(
      'UNKNOWN_END',
    );
  });

  it('P8 doubles are laid inline: the chain never has more than two ends', () => {
    let m = play(deal(partnership(), ALL_SIXES), 0, '66');
    expect(endValues(m)).toEqual([6, 6]);
    expect(round(m).board.ends).toHaveLength(2);
    m = steps(m, '1:pass 2:pass 3:pass 0:06@left 1:00@left');
    expect(round(m).board.ends).toHaveLength(2);
    expect(endValues(m)).toEqual([0, 6]);
    expect(
      round(m).board.placements.every((p) => !p.crossed && p.opens.length === (p.end === null ? 2 : 0)),
    ).toBe(true);
  });
});

describe('partnership: passing', () => {
  it('P9 a seat may pass only when no tile fits either end, must pass then, and the opener never passes', () => {
    let m = deal(partnership(), ALL_SIXES);
    // The opener: every tile is playable and a pass is refused.
    expect(legalActions(m, 0).every((a) => a.type === 'play')).toBe(true);
    expect(refusal(applyAction(m, { type: 'pass', seat: 0 }))).toBe('PASS_NOT_ALLOWED');
    m = play(m, 0, '66');
    // Seat 1 holds no six: its only legal action is the pass; a play is refused.
    expect(legalActions(m, 1)).toEqual([{ type: 'pass', seat: 1 }]);
    expect(refusal(applyAction(m, { type: 'play', seat: 1, tile: t('11'), end: 'left' }))).toBe(
      'TILE_DOES_NOT_MATCH',
    );
    m = steps(m, '1:pass 2:pass 3:pass 0:06@left');
    // Now seat 1 holds zeros: it may not pass.
    expect(refusal(applyAction(m, { type: 'pass', seat: 1 }))).toBe('PASS_NOT_ALLOWED');
    expect(legalActions(m, 1).some((a) => a.type === 'pass')).toBe(false);
  });

  it('P10 a pass is public: every seat sees who passed and on which two end numbers', () => {
    let m = play(deal(partnership(), ALL_SIXES), 0, '66');
    m = steps(m, '1:pass 2:pass 3:pass 0:06@left 1:00@left 2:pass');
    const expected = [
      { seat: 1, ends: [6, 6] },
      { seat: 2, ends: [6, 6] },
      { seat: 3, ends: [6, 6] },
      { seat: 2, ends: [0, 6] },
    ];
    expect(round(m).passes).toEqual(expected);
    for (const s of [0, 1, 2, 3]) {
      expect(seatView(m, s).passes).toEqual(expected);
      expect(
        seatView(m, s)
          .log.filter((e) => e.type === 'pass')
          .map((e) => e.seat),
      ).toEqual([1, 2, 3, 2]);
    }
  });

  it('P13 four consecutive passes block the round; passes that are not four in a row do not', () => {
    let m = play(deal(partnership(), ALL_SIXES), 0, '66');
    m = steps(m, '1:pass 2:pass 3:pass');
    expect(m.phase).toBe('playing');
    expect(round(m).result).toBeNull();
    m = steps(m, '0:06@left 1:00@left 2:pass 3:pass 0:16@right');
    // Five passes so far, never four in a row: the round goes on.
    expect(round(m).passes).toHaveLength(5);
    expect(m.phase).toBe('playing');

    // The blocking chain: all sixes laid, sixes at both ends.
    let b = deal(
      partnership(),
      blockingHands(0, ['55 44 35 34', '04 12 13 14', '00 02 03 11 05', '15 22 24 25 33']),
    );
    b = steps(b, blockingPlays(0));
    b = steps(b, '2:pass 3:pass 0:pass');
    expect(b.phase).toBe('playing');
    b = pass(b, 1);
    expect(b.phase).toBe('between-rounds');
    expect(result(b)).toMatchObject({ blocked: true, dominoSeat: null });
    for (const s of [0, 1, 2, 3]) expect(legalActions(b, s)).toEqual([]);
    expect(refusal(applyAction(b, { type: 'pass', seat: 2 }))).toBe('NO_ROUND_IN_PLAY');
  });
});

describe('partnership: scoring', () => {
  it("P11 domino: the seat's team scores the pips of BOTH opponents' hands, not the partner's", () => {
    // A 25-tile chain all laid on the right; seat 0 plays the 7 tiles at positions 0, 4, ..., 24.
    const chain = tiles('11 14 40 05 54 46 65 51 10 03 36 61 12 23 33 35 52 20 00 06 66 62 22 24 44');
    const left = ['', '55', '13', '34'];
    const hands = [0, 1, 2, 3].map((s) =>
      [...text(chain.filter((_, i) => i % 4 === s)).split(' '), ...(left[s] ? [left[s]] : [])].join(' '),
    );
    let m = deal(partnership(), hands);
    expect(round(m).opener).toBe(0); // seat 0 holds [6,6] (P5) and opens with [1,1]
    chain.forEach((tile, i) => {
      m = play(m, i % 4, text([tile]), i === 0 ? undefined : 'right');
    });
    const r = result(m);
    expect(r).toMatchObject({ blocked: false, dominoSeat: 0, winnerSide: 0 });
    // Seat 1 keeps [5,5] (10), seat 3 keeps [3,4] (7): 17. Partner seat 2's [1,3] (4) does not count.
    expect(r.points).toBe(17);
    expect(m.scores).toEqual([17, 0]);
    expect(r.finalHands.map(text)).toEqual(['', '55', '13', '34']);
    expect(m.phase).toBe('between-rounds');
  });

  it('P12 every hand is revealed to every seat when the round ends, and not before', () => {
    let m = deal(
      partnership(),
      blockingHands(0, ['55 44 35 34', '04 12 13 14', '00 02 03 11 05', '15 22 24 25 33']),
    );
    m = steps(m, blockingPlays(0) + ' 2:pass 3:pass 0:pass');
    for (const s of [0, 1, 2, 3]) {
      const v = seatView(m, s);
      expect(v.roundResult).toBeNull();
      expect(v.hand).toEqual(round(m).hands[s]);
      const json = JSON.stringify(v);
      expect(json).not.toContain('finalHands');
      // No other seat's tile appears anywhere in the view (extras are never played here).
      for (const other of [0, 1, 2, 3].filter((o) => o !== s)) {
        for (const tile of round(m).hands[other]!) {
          expect(v.hand.some((x) => tileId(x) === tileId(tile))).toBe(false);
          expect(v.board.placements.some((p) => tileId(p.tile) === tileId(tile))).toBe(false);
        }
      }
    }
    m = pass(m, 1);
    const remaining = ['55 44 35 34', '04 12 13 14', '00 02 03 11 05', '15 22 24 25 33'];
    for (const s of [0, 1, 2, 3]) {
      const v = seatView(m, s);
      expect(v.roundResult?.finalHands.map(text)).toEqual(remaining);
    }
  });

  it("P14 blocked round: the team with the lower total scores the other team's total", () => {
    // Seat 1 (team B) lays the last tile, but team A holds less: A 28 + 12 = 40, B 21 + 29 = 50.
    let m = deal(
      partnership(),
      blockingHands(0, ['14 44 35 34', '04 12 13 55', '00 02 03 11 05', '15 22 24 25 33']),
    );
    m = steps(m, blockingPlays(0) + ' 2:pass 3:pass 0:pass 1:pass');
    expect(result(m)).toMatchObject({
      blocked: true,
      lastPlacer: 1,
      sidePips: [40, 50],
      winnerSide: 0,
      points: 50,
    });
    expect(m.scores).toEqual([50, 0]);

    // Seat 2 (team A) lays the last tile, but team B holds less: A 29 + 21 = 50, B 28 + 12 = 40.
    let n = deal(
      partnership(),
      blockingHands(1, ['15 22 24 25 33', '14 44 35 34', '04 12 13 55', '00 02 03 11 05']),
    );
    n = steps(n, blockingPlays(1) + ' 3:pass 0:pass 1:pass 2:pass');
    expect(result(n)).toMatchObject({
      blocked: true,
      lastPlacer: 2,
      sidePips: [50, 40],
      winnerSide: 1,
      points: 50,
    });
    expect(n.scores).toEqual([0, 50]);
  });

  it("P15 blocked with exactly equal totals: the team that placed the last tile scores the other team's total", () => {
    // Opener seat 0: seat 1 (team B) places the last tile; 45 against 45.
    let m = deal(
      partnership(),
      blockingHands(0, ['55 44 35 34', '04 12 13 14', '00 02 03 11 05', '15 22 24 25 33']),
    );
    m = steps(m, blockingPlays(0) + ' 2:pass 3:pass 0:pass 1:pass');
    expect(result(m)).toMatchObject({
      blocked: true,
      lastPlacer: 1,
      sidePips: [45, 45],
      winnerSide: 1,
      points: 45,
    });
    expect(m.scores).toEqual([0, 45]);
    expect(matchResult(m)).toEqual({ finished: false, winnerSide: null, scores: [0, 45] });

    // Opener seat 1: seat 2 (team A) places the last tile; 45 against 45 again.
    let n = deal(
      partnership(),
      blockingHands(1, ['00 02 03 11 05', '04 12 13 14', '55 44 35 34', '15 22 24 25 33']),
    );
    n = steps(n, blockingPlays(1) + ' 3:pass 0:pass 1:pass 2:pass');
    expect(result(n)).toMatchObject({
      blocked: true,
      lastPlacer: 2,
      sidePips: [45, 45],
      winnerSide: 0,
      points: 45,
    });
    expect(n.scores).toEqual([45, 0]);
    expect(result(n).finalHands.map(handPips)).toEqual([12, 16, 33, 29]);
  });
});

describe('partnership: the table acting for a seat', () => {
  // Hand orders chosen so that the first fitting tile is not the first tile, nor the best one.
  const P16_HANDS = [
    '13 00 66 01 02 03 06',
    '55 34 16 04 24 33 35',
    '22 14 36 44 45 46 56',
    '05 11 12 15 23 25 26',
  ];

  it('P16 at the deadline the table opens with the first tile of the hand on an empty board', () => {
    const m = deal(partnership(), P16_HANDS);
    expect(round(m).opener).toBe(0); // holds [6,6], third in hand
    expect(deadlineAction(m)).toEqual({ type: 'play', seat: 0, tile: [1, 3], end: 'left' });
    const after = must(applyAction(m, deadlineAction(m)!, 'deadline'));
    expect(endValues(after)).toEqual([1, 3]);
    expect(round(after).log[0]).toMatchObject({ seat: 0, by: 'deadline' });
  });

  it('P16 at the deadline the table plays the first tile in hand order that fits, on the left end if it fits there, else the right; it passes when none fits', () => {
    let m = must(applyAction(deal(partnership(), P16_HANDS), { type: 'play', seat: 0, tile: t('13') }));
    // Ends 1 | 3. Seat 1: [5,5] fits nowhere, [3,4] fits the right only; [1,6] (fits left) comes later.
    expect(deadlineAction(m)).toEqual({ type: 'play', seat: 1, tile: [3, 4], end: 'right' });
    m = must(applyAction(m, deadlineAction(m)!, 'deadline'));
    expect(endValues(m)).toEqual([1, 4]);
    // Ends 1 | 4. Seat 2: [2,2] fits nowhere, [1,4] fits both: the left end.
    expect(deadlineAction(m)).toEqual({ type: 'play', seat: 2, tile: [1, 4], end: 'left' });
    m = must(applyAction(m, deadlineAction(m)!, 'deadline'));
    expect(endValues(m)).toEqual([4, 4]);
    // Ends 4 | 4. Seat 3 holds no 4: the table passes for it.
    expect(deadlineAction(m)).toEqual({ type: 'pass', seat: 3 });
    m = must(applyAction(m, deadlineAction(m)!, 'deadline'));
    expect(round(m).passes.at(-1)).toEqual({ seat: 3, ends: [4, 4] });
    // The hands keep their dealt order (the library never reorders a hand).
    expect(round(m).hands.map(text)).toEqual([
      '00 66 01 02 03 06',
      '55 16 04 24 33 35',
      '22 36 44 45 46 56',
      '05 11 12 15 23 25 26',
    ]);
    // The view's legal list is in the same order: its first item is the deadline action.
    expect(seatView(m, 0).legal[0]).toEqual(deadlineAction(m));
    expect(deadlineAction(playByDeadlines(m))).toBeNull();
  });

  it('auto-pass: the table passes at once for a seat that opted in and cannot play, and for nobody else', () => {
    let m = deal(partnership(), ALL_SIXES);
    expect(automaticAction(m, () => true)).toBeNull(); // the opener always has a play
    m = play(m, 0, '66');
    // Seat 1 cannot play; seat 0 still can, so the board is not locked.
    expect(automaticAction(m, (s) => s === 1)).toEqual({ type: 'pass', seat: 1 });
    expect(automaticAction(m, (s) => s !== 1)).toBeNull();
    m = must(
      applyAction(
        m,
        automaticAction(m, () => true)!,
        'auto',
      ),
    );
    expect(round(m).log.at(-1)).toEqual({ type: 'pass', seat: 1, by: 'auto' });
    m = steps(m, '2:pass 3:pass');
    // Seat 0 holds sixes: nothing is automatic, even with auto-pass on.
    expect(automaticAction(m, () => true)).toBeNull();
  });

  it('P13 once the board is locked, every seat passes automatically whether it opted in or not', () => {
    let m = deal(
      partnership(),
      blockingHands(0, ['55 44 35 34', '04 12 13 14', '00 02 03 11 05', '15 22 24 25 33']),
    );
    m = steps(m, blockingPlays(0).split(' ').slice(0, 9).join(' '));
    // One tile short of the lock: seat 1 still holds [5,6], so nothing is automatic.
    expect(automaticAction(m, () => false)).toBeNull();
    m = play(m, 1, '56', 'left');
    const autos: number[] = [];
    while (m.phase === 'playing') {
      const a = automaticAction(m, () => false);
      expect(a).not.toBeNull();
      autos.push(a!.seat);
      m = must(applyAction(m, a!, 'auto'));
    }
    expect(autos).toEqual([2, 3, 0, 1]);
    expect(result(m)).toMatchObject({ blocked: true, winnerSide: 1, points: 45 });
    expect(automaticAction(m, () => true)).toBeNull();
  });
});

describe('partnership: target and match end', () => {
  it('P19 the target is 100 by default, any value 50..500 in steps of 50, anything else refused with INVALID_TARGET', () => {
    expect(partnership().config.target).toBe(100);
    for (let target = 50; target <= 500; target += 50) expect(partnership(target).config.target).toBe(target);
    for (const target of [49, 75, 550, 0, -50, 525, 100.5, NaN, Infinity, '100', 'abc', [100], {}]) {
      const r = createMatch({ variant: 'partnership', target: target as number });
      expect(refusal(r)).toBe('INVALID_TARGET');
      if (!r.ok) expect(r.error.message).toMatch(/50 to 500/);
    }
  });

  it('P20 the first team to reach the target at the end of a round wins; points above the target count', () => {
    let m = deal(
      partnership(50),
      blockingHands(0, ['55 44 35 34', '04 12 13 14', '00 02 03 11 05', '15 22 24 25 33']),
    );
    m = steps(m, blockingPlays(0) + ' 2:pass 3:pass 0:pass 1:pass');
    // 45 < 50: the match goes on.
    expect(m.scores).toEqual([0, 45]);
    expect(m.phase).toBe('between-rounds');
    expect(matchResult(m).finished).toBe(false);
    // Round 2 is opened by seat 1 (P6); team B holds 40 against 50 and scores 50: 95 in all.
    m = deal(m, blockingHands(1, ['15 22 24 25 33', '14 44 35 34', '04 12 13 55', '00 02 03 11 05']));
    expect(round(m).opener).toBe(1);
    m = steps(m, blockingPlays(1) + ' 3:pass 0:pass 1:pass');
    expect(m.phase).toBe('playing');
    m = pass(m, 2);
    expect(m.phase).toBe('over');
    expect(matchResult(m)).toEqual({ finished: true, winnerSide: 1, scores: [0, 95] });
    expect(m.history.map((h) => [h.winnerSide, h.points])).toEqual([
      [1, 45],
      [1, 50],
    ]);
    expect(refusal(startRound(m, createSeededRng(1)))).toBe('MATCH_OVER');
    expect(refusal(applyAction(m, { type: 'pass', seat: 3 }))).toBe('MATCH_OVER');
    expect(seatView(m, 0).matchResult).toEqual({ finished: true, winnerSide: 1, scores: [0, 95] });

    // Reaching the target exactly is enough: team A scores 50 against a target of 50 in round 1.
    let exact = deal(
      partnership(50),
      blockingHands(0, ['14 44 35 34', '04 12 13 55', '00 02 03 11 05', '15 22 24 25 33']),
    );
    exact = steps(exact, blockingPlays(0) + ' 2:pass 3:pass 0:pass 1:pass');
    expect(matchResult(exact)).toEqual({ finished: true, winnerSide: 0, scores: [50, 0] });
  });

  it('P21 a partnership match never ends tied: exactly one team scores each round, even on equal totals', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const target = 50 * (1 + (seed % 10));
      const m = playByDeadlines(must(startRound(partnership(target), createSeededRng(seed))), true, seed);
      const r = matchResult(m);
      expect(r.finished).toBe(true);
      expect(r.winnerSide === 0 || r.winnerSide === 1).toBe(true);
      expect(r.scores[r.winnerSide!]).toBeGreaterThanOrEqual(target);
      expect(r.scores[1 - r.winnerSide!]).toBeLessThan(target);
      for (const h of m.history) expect(h.winnerSide === 0 || h.winnerSide === 1).toBe(true);
    }
  });
});

/**
 * The draw game (seed 002): D1–D8. D9 (the chain turns at the board's edges) is drawing, done by the
 * web client; the library's board is the plain two-ended chain of D3.
 */
import {
  applyAction,
  automaticAction,
  createMatch,
  createSeededRng,
  legalActions,
  matchResult,
  RULE_SETS,
  seatView,
  startRound,
  tileId,
  type MatchState,
} from '@dominoes/rules';
import {
  deal,
  draw,
  endIds,
  endValues,
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

const drawGame = (seats: number, extra: { target?: number; oneRound?: boolean } = {}): MatchState =>
  newMatch({ variant: 'draw', seats, ...extra });

/**
 * Three seats; the ten plays lay all seven sixes with a 6 at both ends, then nobody can play: the seven
 * boneyard tiles are drawn (seats 1, 2, 0, 1, 2, 0, 1) and everyone passes.
 */
const BLOCK_SCRIPT =
  '0:66 1:61@left 2:10@left 0:06@left 1:62@right 2:23@right 0:36@right 1:64@left 2:45@left 0:56@left ' +
  '1:draw 2:draw 0:draw 1:draw 2:draw 0:draw 1:draw 2:pass 0:pass 1:pass';

/** D6: seat 0 ends with 10 pips (00 02 03 11 12), seat 1 with 34, seat 2 with 46. */
const D6_DEAL = {
  hands: ['66 06 36 56 00 02 03', '61 62 64 04 05 13 14', '10 23 45 25 33 34 35'],
  stock: '15 44 11 22 55 12 24',
};

/** D7: seats 0 and 1 both end with 25 pips, seat 2 with 40. */
const D7_DEAL = {
  hands: ['66 06 36 56 00 02 05', '61 62 64 03 04 11 12', '10 23 45 15 24 25 33'],
  stock: '13 34 35 14 44 55 22',
};

/**
 * Three seats, a 19-tile chain laid on the right end: seat 0 places positions 0, 3, ..., 18 and goes
 * out; seat 1 keeps [6,6], seat 2 keeps [4,4]; seven tiles stay in the boneyard.
 */
const D5_CHAIN = tiles('11 14 40 05 54 46 65 51 10 03 36 61 12 23 33 35 52 20 00');
const D5_DEAL = {
  hands: [0, 1, 2].map((s) =>
    [text(D5_CHAIN.filter((_, i) => i % 3 === s)), ['', '66', '44'][s]].join(' ').trim(),
  ),
  stock: '06 62 22 24 55 13 34',
};
const D5_SCRIPT = D5_CHAIN.map((x, i) => `${i % 3}:${text([x])}${i === 0 ? '' : '@right'}`).join(' ');

describe('draw game', () => {
  it('D1 2 to 4 seats, each for themselves, 7 tiles each; the undealt tiles are a hidden boneyard', () => {
    for (const seats of [2, 3, 4]) {
      const m = must(startRound(drawGame(seats), createSeededRng(`d1-${seats}`)));
      expect(m.scores).toEqual(new Array(seats).fill(0));
      expect(Array.from({ length: seats }, (_, s) => RULE_SETS[m.config.variant].sideOf(s))).toEqual(
        Array.from({ length: seats }, (_, s) => s),
      );
      expect(round(m).hands.map((h) => h.length)).toEqual(new Array(seats).fill(7));
      expect(round(m).stock).toHaveLength(28 - 7 * seats);
      for (let s = 0; s < seats; s++) {
        const v = seatView(m, s);
        expect(v.stockCount).toBe(28 - 7 * seats);
        expect(v.handCounts).toEqual(new Array(seats).fill(7));
        expect(JSON.stringify(v)).not.toContain('"stock"');
        const seen = new Set([...v.hand.map(tileId)]);
        for (const x of round(m).stock) expect(seen.has(tileId(x))).toBe(false);
      }
    }
    for (const seats of [0, 1, 5, 2.5]) {
      expect(refusal(createMatch({ variant: 'draw', seats }))).toBe('INVALID_SEAT_COUNT');
    }
    expect(newMatch({ variant: 'draw' }).config.seats).toBe(4);
  });

  it('D2 the opener places any tile; the turn then goes round by (s + 1) mod seats', () => {
    let m = deal(drawGame(3), D6_DEAL.hands, D6_DEAL.stock);
    expect(round(m).opener).toBe(0);
    expect(legalActions(m, 0).map((a) => (a.type === 'play' ? text([a.tile]) : a.type))).toEqual(
      D6_DEAL.hands[0]!.split(' '),
    );
    // Any tile may open, not just the double.
    const other = play(deal(drawGame(3), D6_DEAL.hands, D6_DEAL.stock), 0, '03');
    expect(endValues(other)).toEqual([0, 3]);
    const turns = [round(m).turn];
    for (const step of BLOCK_SCRIPT.split(' ').slice(0, 12)) {
      m = steps(m, step);
      turns.push(round(m).turn);
    }
    expect(turns).toEqual([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]);
  });

  it('D3 a turn plays one matching tile on either of the two ends; doubles are inline', () => {
    let m = play(deal(drawGame(3), D6_DEAL.hands, D6_DEAL.stock), 0, '66');
    expect(endIds(m)).toEqual(['left', 'right']);
    expect(endValues(m)).toEqual([6, 6]);
    // [6,1] fits both ends; the player chooses.
    expect(
      legalActions(m, 1)
        .filter((a) => a.type === 'play' && text([a.tile]) === '61')
        .map((a) => a.type === 'play' && a.end),
    ).toEqual(['left', 'right']);
    m = play(m, 1, '61', 'right');
    expect(endValues(m)).toEqual([6, 1]);
    expect(refusal(applyAction(m, { type: 'play', seat: 2, tile: t('23'), end: 'left' }))).toBe(
      'TILE_DOES_NOT_MATCH',
    );
    m = play(m, 2, '10', 'right');
    expect(endValues(m)).toEqual([6, 0]);
    expect(round(m).board.ends).toHaveLength(2);
    expect(round(m).turn).toBe(0);
  });

  it('D4 with no matching tile a seat draws ONE tile and may not play it this turn; with an empty boneyard it passes', () => {
    // Two seats. Seat 1 holds no six; the boneyard starts with [1,6] (which fits) and then [0,6].
    const hands = ['66 00 01 02 03 04 05', '11 12 13 14 15 22 23'];
    let m = play(deal(drawGame(2), hands, '16 06 24 25 26 33 34 35 36 44 45 46 55 56'), 0, '66');
    expect(legalActions(m, 1)).toEqual([{ type: 'draw', seat: 1 }]);
    expect(refusal(applyAction(m, { type: 'pass', seat: 1 }))).toBe('MUST_DRAW');
    m = draw(m, 1);
    // One tile, appended to the hand; the turn passes although [1,6] fits.
    expect(text(round(m).hands[1]!)).toBe('11 12 13 14 15 22 23 16');
    expect(round(m).stock).toHaveLength(13);
    expect(round(m).turn).toBe(0);
    expect(refusal(applyAction(m, { type: 'play', seat: 1, tile: t('16'), end: 'left' }))).toBe(
      'NOT_YOUR_TURN',
    );
    // Seat 0 has no six either: it draws [0,6] and the turn is seat 1's again, who now plays [1,6].
    expect(refusal(applyAction(m, { type: 'draw', seat: 1 }))).toBe('NOT_YOUR_TURN');
    m = draw(m, 0);
    expect(round(m).log.at(-1)).toEqual({ type: 'draw', seat: 0, by: 'player', drawn: [0, 6] });
    expect(refusal(applyAction(m, { type: 'draw', seat: 1 }))).toBe('DRAW_NOT_ALLOWED');
    m = play(m, 1, '16', 'left');
    expect(endValues(m)).toEqual([1, 6]);

    // Four seats: no boneyard at all, so a seat that cannot play passes (and may not draw).
    const four = [
      '66 06 16 26 36 46 56',
      '00 01 02 03 04 05 11',
      '12 13 14 15 22 23 24',
      '25 33 34 35 44 45 55',
    ];
    let f = play(deal(drawGame(4), four, ''), 0, '66');
    expect(round(f).stock).toEqual([]);
    expect(legalActions(f, 1)).toEqual([{ type: 'pass', seat: 1 }]);
    expect(refusal(applyAction(f, { type: 'draw', seat: 1 }))).toBe('DRAW_NOT_ALLOWED');
    f = pass(f, 1);
    expect(round(f).passes).toEqual([{ seat: 1, ends: [6, 6] }]);
    // Auto-pass in the draw game takes the forced draw for a seat that opted in.
    const forced = play(deal(drawGame(2), hands, '16 06 24 25 26 33 34 35 36 44 45 46 55 56'), 0, '66');
    expect(automaticAction(forced, () => true)).toEqual({ type: 'draw', seat: 1 });
    expect(automaticAction(forced, () => false)).toBeNull();
  });

  it("D5 domino: the seat that places its last tile scores the pips of all opponents' hands (not the boneyard)", () => {
    let m = deal(drawGame(3), D5_DEAL.hands, D5_DEAL.stock);
    m = steps(m, D5_SCRIPT);
    const r = result(m);
    // Seat 1 keeps [6,6] (12), seat 2 keeps [4,4] (8): 20. The 7 boneyard tiles (45 pips) do not count.
    expect(r).toMatchObject({
      blocked: false,
      dominoSeat: 0,
      winnerSide: 0,
      points: 20,
      sidePips: [0, 12, 8],
    });
    expect(round(m).stock).toHaveLength(7);
    expect(m.scores).toEqual([20, 0, 0]);
    expect(m.phase).toBe('between-rounds');
  });

  it('D6 the worked example: A 4, B 9, C 14 in a blocked round: A scores (9-4)+(14-4) = 15', () => {
    // A blocked double-six line always leaves an even number of pips, so 4 + 9 + 14 = 27 cannot come out
    // of a real round: the example is checked on the draw game's scoring, and a real round follows.
    const hands = [tiles('13'), tiles('36'), tiles('55 22')];
    const scored = RULE_SETS.draw.score({ seats: 3, hands, dominoSeat: null, lastPlacer: 2 });
    expect(scored).toEqual({ winnerSide: 0, points: 15, sidePips: [4, 9, 14] });
  });

  it('D6 blocked round: the lowest total wins and scores, for each opponent, their total minus its own', () => {
    let m = deal(drawGame(3), D6_DEAL.hands, D6_DEAL.stock);
    m = steps(m, BLOCK_SCRIPT.split(' ').slice(0, -1).join(' '));
    // Everyone has drawn, two seats have passed: the round is not over until the third pass.
    expect(round(m).stock).toEqual([]);
    expect(m.phase).toBe('playing');
    m = pass(m, 1);
    expect(result(m)).toMatchObject({ blocked: true, dominoSeat: null, sidePips: [10, 34, 46] });
    expect(result(m).finalHands.map(text)).toEqual([
      '00 02 03 11 12',
      '04 05 13 14 15 22 24',
      '25 33 34 35 44 55',
    ]);
    // (34 - 10) + (46 - 10) = 60
    expect(result(m)).toMatchObject({ winnerSide: 0, points: 60 });
    expect(m.scores).toEqual([60, 0, 0]);
  });

  it('D7 a blocked round where two or more seats share the lowest total is a draw: nobody scores', () => {
    let m = deal(drawGame(3), D7_DEAL.hands, D7_DEAL.stock);
    m = steps(m, BLOCK_SCRIPT);
    expect(result(m)).toMatchObject({ blocked: true, sidePips: [25, 25, 40], winnerSide: null, points: 0 });
    expect(m.scores).toEqual([0, 0, 0]);
    expect(m.history.at(-1)).toMatchObject({ winnerSide: null, points: 0, blocked: true });
    // Also on the scoring rule alone: a tie for lowest among four, and a tie that is not for lowest.
    const score = (spec: string[]) =>
      RULE_SETS.draw.score({ seats: spec.length, hands: spec.map(tiles), dominoSeat: null, lastPlacer: 0 });
    expect(score(['13', '22', '55', '66'])).toMatchObject({ winnerSide: null, points: 0 });
    expect(score(['01', '36', '45'])).toMatchObject({ winnerSide: 0, points: 16 });
  });

  it('D8 the game ends when a seat reaches the target; a one-round game is won by the first to go out, or by D6/D7 when blocked', () => {
    // Target game: 60 points reach a 50 target at once, not a 100 one; points above the target count.
    const to50 = steps(deal(drawGame(3, { target: 50 }), D6_DEAL.hands, D6_DEAL.stock), BLOCK_SCRIPT);
    expect(to50.phase).toBe('over');
    expect(matchResult(to50)).toEqual({ finished: true, winnerSide: 0, scores: [60, 0, 0] });
    const to100 = steps(deal(drawGame(3), D6_DEAL.hands, D6_DEAL.stock), BLOCK_SCRIPT);
    expect(to100.phase).toBe('between-rounds');
    expect(matchResult(to100).finished).toBe(false);
    // The next round is dealt and opened by the next seat.
    const next = must(startRound(to100, createSeededRng('d8')));
    expect(round(next).number).toBe(2);
    expect(round(next).opener).toBe(1);

    // One-round game, won by going out (20 points is far below any target).
    const one = steps(deal(drawGame(3, { oneRound: true }), D5_DEAL.hands, D5_DEAL.stock), D5_SCRIPT);
    expect(one.phase).toBe('over');
    expect(matchResult(one)).toEqual({ finished: true, winnerSide: 0, scores: [20, 0, 0] });
    expect(refusal(startRound(one, createSeededRng(1)))).toBe('MATCH_OVER');
    // One-round game, blocked: D6 names the winner; a D7 tie leaves no winner.
    const blocked = steps(deal(drawGame(3, { oneRound: true }), D6_DEAL.hands, D6_DEAL.stock), BLOCK_SCRIPT);
    expect(matchResult(blocked)).toEqual({ finished: true, winnerSide: 0, scores: [60, 0, 0] });
    const tied = steps(deal(drawGame(3, { oneRound: true }), D7_DEAL.hands, D7_DEAL.stock), BLOCK_SCRIPT);
    expect(matchResult(tied)).toEqual({ finished: true, winnerSide: null, scores: [0, 0, 0] });
    // The one-round option belongs to the draw game only, and the target follows P19's range.
    expect(refusal(createMatch({ variant: 'partnership', oneRound: true }))).toBe('INVALID_CONFIG');
    expect(refusal(createMatch({ variant: 'five-tile', oneRound: true }))).toBe('INVALID_CONFIG');
    expect(refusal(createMatch({ variant: 'draw', target: 75 }))).toBe('INVALID_TARGET');
    expect(drawGame(2, { target: 500 }).config.target).toBe(500);
  });

  it('D4 the table never plays a drawn tile in the same turn, also when it acts at the deadline', () => {
    const hands = ['66 00 01 02 03 04 05', '11 12 13 14 15 22 23'];
    let m = play(deal(drawGame(2), hands, '16 06 24 25 26 33 34 35 36 44 45 46 55 56'), 0, '66');
    m = must(applyAction(m, legalActions(m, 1)[0]!, 'deadline'));
    expect(round(m).log.at(-1)).toMatchObject({ type: 'draw', seat: 1, by: 'deadline' });
    expect(round(m).turn).toBe(0);
    // The drawn tile stays hidden from the other seat until the reveal.
    expect(seatView(m, 0).log.at(-1)).toEqual({ type: 'draw', seat: 1, by: 'deadline' });
    expect(seatView(m, 1).log.at(-1)).toEqual({ type: 'draw', seat: 1, by: 'deadline', drawn: [1, 6] });
  });
});

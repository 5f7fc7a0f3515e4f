/**
 * Bad input from anywhere (a client, a replay file): every refusal is a typed error, nothing throws,
 * and the state passed in is left exactly as it was.
 */
import {
  applyAction,
  createMatch,
  createSeededRng,
  RULE_ERROR_CODES,
  startRound,
  startRoundWithDeal,
  type Action,
  type MatchState,
} from '@dominoes/rules';
import { deal, must, newMatch, refusal, steps, tiles } from './helpers';

/** Freezes every object reachable from `value`, so that any write by the library throws. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

const ALL_SIXES = [
  '66 06 16 26 36 46 56',
  '00 01 02 03 04 05 11',
  '12 13 14 15 22 23 24',
  '25 33 34 35 44 45 55',
];

/** Partnership, seat 1 to move on ends 0 | 6, holding 00 01 02 03 04 05 11. */
const partnershipInPlay = (): MatchState =>
  steps(deal(newMatch({ variant: 'partnership' }), ALL_SIXES), '0:66 1:pass 2:pass 3:pass 0:06@left');

/** Every refusal: [what, action, code]. Seat 1 is to move. */
const BAD_ACTIONS: [string, unknown, string][] = [
  ['null', null, 'INVALID_ACTION'],
  ['undefined', undefined, 'INVALID_ACTION'],
  ['a number', 42, 'INVALID_ACTION'],
  ['a string', 'pass', 'INVALID_ACTION'],
  ['an array', [], 'INVALID_ACTION'],
  ['an empty object', {}, 'INVALID_ACTION'],
  ['an unknown type', { type: 'x' }, 'INVALID_ACTION'],
  ['an unknown type from the seat to move', { type: 'x', seat: 1 }, 'INVALID_ACTION'],
  ['an unknown type from another seat', { type: 'resign', seat: 2 }, 'INVALID_ACTION'],
  ['a type in capitals', { type: 'PASS', seat: 1 }, 'INVALID_ACTION'],
  ['no seat', { type: 'pass' }, 'INVALID_SEAT'],
  ['seat 9', { type: 'pass', seat: 9 }, 'INVALID_SEAT'],
  ['seat 4', { type: 'play', seat: 4, tile: [0, 1], end: 'left' }, 'INVALID_SEAT'],
  ['seat -1', { type: 'pass', seat: -1 }, 'INVALID_SEAT'],
  ['seat 1.5', { type: 'pass', seat: 1.5 }, 'INVALID_SEAT'],
  ['seat "1"', { type: 'pass', seat: '1' }, 'INVALID_SEAT'],
  ['seat NaN', { type: 'pass', seat: NaN }, 'INVALID_SEAT'],
  ['seat null', { type: 'play', seat: null, tile: [0, 1], end: 'left' }, 'INVALID_SEAT'],
  [
    'another seat playing its own tile',
    { type: 'play', seat: 2, tile: [1, 2], end: 'left' },
    'NOT_YOUR_TURN',
  ],
  ['another seat passing', { type: 'pass', seat: 0 }, 'NOT_YOUR_TURN'],
  ['a null tile', { type: 'play', seat: 1, tile: null, end: 'left' }, 'INVALID_TILE'],
  ['no tile', { type: 'play', seat: 1, end: 'left' }, 'INVALID_TILE'],
  ['a 7', { type: 'play', seat: 1, tile: [7, 0], end: 'left' }, 'INVALID_TILE'],
  ['a negative half', { type: 'play', seat: 1, tile: [-1, 0], end: 'left' }, 'INVALID_TILE'],
  ['a fraction', { type: 'play', seat: 1, tile: [0.5, 0], end: 'left' }, 'INVALID_TILE'],
  ['one half', { type: 'play', seat: 1, tile: [0], end: 'left' }, 'INVALID_TILE'],
  ['three halves', { type: 'play', seat: 1, tile: [0, 1, 2], end: 'left' }, 'INVALID_TILE'],
  ['a string tile', { type: 'play', seat: 1, tile: '01', end: 'left' }, 'INVALID_TILE'],
  ['string halves', { type: 'play', seat: 1, tile: ['0', '1'], end: 'left' }, 'INVALID_TILE'],
  ['an object tile', { type: 'play', seat: 1, tile: { 0: 0, 1: 1, length: 2 }, end: 'left' }, 'INVALID_TILE'],
  ['a sparse tile', { type: 'play', seat: 1, tile: [, 1], end: 'left' }, 'INVALID_TILE'], // eslint-disable-line no-sparse-arrays
  ["another seat's tile", { type: 'play', seat: 1, tile: [1, 2], end: 'left' }, 'TILE_NOT_IN_HAND'],
  ['a tile on the board', { type: 'play', seat: 1, tile: [6, 6], end: 'left' }, 'TILE_NOT_IN_HAND'],
  ['an unknown end', { type: 'play', seat: 1, tile: [0, 1], end: 'middle' }, 'UNKNOWN_END'],
  ['a five-tile end on a line', { type: 'play', seat: 1, tile: [0, 1], end: 'e0' }, 'UNKNOWN_END'],
  ['a numeric end', { type: 'play', seat: 1, tile: [0, 1], end: 0 }, 'UNKNOWN_END'],
  ['no end after the opening', { type: 'play', seat: 1, tile: [0, 1] }, 'UNKNOWN_END'],
  [
    'a tile that does not match the end',
    { type: 'play', seat: 1, tile: [0, 1], end: 'right' },
    'TILE_DOES_NOT_MATCH',
  ],
  ['a tile that matches no end', { type: 'play', seat: 1, tile: [1, 1], end: 'left' }, 'TILE_DOES_NOT_MATCH'],
  ['a pass with a playable tile', { type: 'pass', seat: 1 }, 'PASS_NOT_ALLOWED'],
  ['a draw in partnership', { type: 'draw', seat: 1 }, 'DRAW_NOT_ALLOWED'],
];

/** Applies `action` to a frozen `state`: it must return a refusal with `code`, and change nothing. */
function expectRefused(state: MatchState, action: unknown, code: string): void {
  deepFreeze(state);
  const before = structuredClone(state);
  let outcome: ReturnType<typeof applyAction> | undefined;
  expect(() => {
    outcome = applyAction(state, action as Action);
  }).not.toThrow();
  expect(outcome?.ok).toBe(false);
  if (outcome && !outcome.ok) {
    expect(outcome.error.code).toBe(code);
    expect(RULE_ERROR_CODES).toContain(outcome.error.code);
    expect(outcome.error.message.length).toBeGreaterThan(5);
  }
  expect(state).toEqual(before);
}

describe('typed errors for bad actions', () => {
  it.each(BAD_ACTIONS)(
    'refuses %s with a typed error, without throwing or changing the state',
    (_, action, code) => {
      expectRefused(partnershipInPlay(), action, code);
    },
  );

  it('P9 refuses a pass by the opener on the empty board (PASS_NOT_ALLOWED)', () => {
    expectRefused(
      deal(newMatch({ variant: 'partnership' }), ALL_SIXES),
      { type: 'pass', seat: 0 },
      'PASS_NOT_ALLOWED',
    );
  });

  it('D4 F5 refuse a pass when the boneyard has tiles (MUST_DRAW), and a draw when the seat can play (DRAW_NOT_ALLOWED)', () => {
    const hands = ['66 00 01 02 03 04 05', '11 12 13 14 15 22 23'];
    const drawGame = steps(deal(newMatch({ variant: 'draw', seats: 2 }), hands), '0:66');
    expectRefused(drawGame, { type: 'pass', seat: 1 }, 'MUST_DRAW');
    const five = steps(
      deal(newMatch({ variant: 'five-tile', seats: 2 }), ['66 00 01 02 03', '11 12 13 14 15']),
      '0:66',
    );
    expectRefused(five, { type: 'pass', seat: 1 }, 'MUST_DRAW');
    const canPlay = deal(newMatch({ variant: 'draw', seats: 2 }), hands);
    expectRefused(canPlay, { type: 'draw', seat: 0 }, 'DRAW_NOT_ALLOWED');
  });

  it('F2 refuses an opening that is not the highest double (MUST_OPEN_WITH_HIGHEST_DOUBLE)', () => {
    const five = deal(newMatch({ variant: 'five-tile', seats: 2 }), ['66 00 01 02 03', '11 12 13 14 15']);
    expectRefused(five, { type: 'play', seat: 0, tile: [0, 0] }, 'MUST_OPEN_WITH_HIGHEST_DOUBLE');
    expectRefused(five, { type: 'play', seat: 0, tile: [0, 1], end: 'e0' }, 'MUST_OPEN_WITH_HIGHEST_DOUBLE');
  });

  it('refuses any action when no round is in play (NO_ROUND_IN_PLAY) or the match is over (MATCH_OVER)', () => {
    const ready = newMatch({ variant: 'partnership' });
    expectRefused(ready, { type: 'pass', seat: 0 }, 'NO_ROUND_IN_PLAY');
    const over = steps(
      deal(newMatch({ variant: 'five-tile', seats: 2 }), ['66 62 10 64 00', '61 11 63 35 45']),
      '0:66 1:61@e0 0:62@e1 1:11@e0 0:10@e4 1:63@e2 0:64@e3 1:35@e2 0:00@e4',
    );
    expect(over.phase).toBe('between-rounds');
    expectRefused(over, { type: 'pass', seat: 1 }, 'NO_ROUND_IN_PLAY');
    expectRefused(over, null, 'NO_ROUND_IN_PLAY');
    const done = steps(
      deal(
        newMatch({ variant: 'draw', seats: 3, oneRound: true }),
        ['66 06 36 56 00 02 03', '61 62 64 04 05 13 14', '10 23 45 25 33 34 35'],
        '15 44 11 22 55 12 24',
      ),
      '0:66 1:61@left 2:10@left 0:06@left 1:62@right 2:23@right 0:36@right 1:64@left 2:45@left 0:56@left ' +
        '1:draw 2:draw 0:draw 1:draw 2:draw 0:draw 1:draw 2:pass 0:pass 1:pass',
    );
    expect(done.phase).toBe('over');
    expectRefused(done, { type: 'pass', seat: 2 }, 'MATCH_OVER');
    expectRefused(done, { type: 'x' }, 'MATCH_OVER');
  });

  it('a valid action does not change the state it was applied to either', () => {
    const state = deepFreeze(partnershipInPlay());
    const before = structuredClone(state);
    const after = must(applyAction(state, { type: 'play', seat: 1, tile: [0, 1], end: 'left' }));
    expect(state).toEqual(before);
    expect(after.round?.board.ends.map((e) => e.value)).toEqual([1, 6]);
  });
});

describe('typed errors for bad configurations and deals', () => {
  it('P19 D1 F1 refuse a table outside the rules: unknown variant, seat count, target, one-round option', () => {
    for (const input of [
      null,
      undefined,
      'partnership',
      {},
      { variant: 'chess' },
      { variant: 'Partnership' },
    ]) {
      let r: ReturnType<typeof createMatch> | undefined;
      expect(() => {
        r = createMatch(input as never);
      }).not.toThrow();
      expect(refusal(r!)).toBe('INVALID_CONFIG');
    }
    expect(refusal(createMatch({ variant: 'draw', seats: '3' as never }))).toBe('INVALID_SEAT_COUNT');
    expect(refusal(createMatch({ variant: 'draw', oneRound: 'yes' as never }))).toBe('INVALID_CONFIG');
    expect(refusal(createMatch({ variant: 'draw', target: 125 }))).toBe('INVALID_TARGET');
  });

  it('startRoundWithDeal refuses a deal that is not the whole set, each tile once, in the right hand sizes', () => {
    const m = newMatch({ variant: 'partnership' });
    const hands = ALL_SIXES.map(tiles);
    const cases: [string, unknown, string][] = [
      ['three hands', { hands: hands.slice(0, 3), stock: hands[3] }, 'INVALID_DEAL'],
      [
        'a hand of 8',
        {
          hands: [[...hands[0]!, ...hands[1]!.slice(0, 1)], hands[1]!.slice(1), hands[2], hands[3]],
          stock: [],
        },
        'INVALID_DEAL',
      ],
      [
        'a tile twice',
        { hands: [hands[0], hands[1], hands[2], [...hands[3]!.slice(0, 6), [6, 6]]], stock: [] },
        'INVALID_DEAL',
      ],
      [
        'a tile [7,7]',
        { hands: [hands[0], hands[1], hands[2], [...hands[3]!.slice(0, 6), [7, 7]]], stock: [] },
        'INVALID_TILE',
      ],
      ['no stock', { hands }, 'INVALID_DEAL'],
      ['hands not arrays', { hands: 'abc', stock: [] }, 'INVALID_DEAL'],
      ['a hand not an array', { hands: [hands[0], hands[1], hands[2], null], stock: [] }, 'INVALID_DEAL'],
      ['an empty object', {}, 'INVALID_DEAL'],
      ['null', null, 'INVALID_DEAL'],
      ['an opener seat 9', { hands, stock: [], opener: 9 }, 'INVALID_DEAL'],
    ];
    for (const [what, d, code] of cases) {
      let r: ReturnType<typeof startRoundWithDeal> | undefined;
      expect(() => {
        r = startRoundWithDeal(m, d as never);
      }).not.toThrow();
      expect([what, refusal(r!)]).toEqual([what, code]);
    }
  });

  it('refuses to start a round while one is in play (ROUND_IN_PLAY) or after the match (MATCH_OVER)', () => {
    const playing = must(startRound(newMatch({ variant: 'draw', seats: 2 }), createSeededRng(1)));
    expect(refusal(startRound(playing, createSeededRng(2)))).toBe('ROUND_IN_PLAY');
    expect(
      refusal(startRoundWithDeal(playing, { hands: playing.round!.hands, stock: playing.round!.stock })),
    ).toBe('ROUND_IN_PLAY');
  });
});

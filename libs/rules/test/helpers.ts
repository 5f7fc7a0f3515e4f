/**
 * Shared helpers of the rules tests: a short notation for tiles and deals, and wrappers that fail the
 * test (instead of returning a Result) when the library refuses something the test expects to work.
 *
 * Notation: a tile is two digits, `'63'` = [6,3] (the orientation as written is kept); a hand is the
 * tiles separated by spaces, in hand order. A scripted action is `'2:63@left'` (seat 2 plays [6,3] on
 * the left end), `'1:pass'` or `'0:draw'`.
 */
import {
  applyAction,
  createMatch,
  fullSet,
  sameTile,
  startRoundWithDeal,
  tileId,
  type Action,
  type ActionOrigin,
  type MatchConfigInput,
  type MatchState,
  type Result,
  type RoundResult,
  type RoundState,
  type Tile,
} from '@dominoes/rules';

export const t = (s: string): Tile => {
  if (!/^[0-6][0-6]$/.test(s)) throw new Error(`bad tile notation ${s}`);
  return [Number(s[0]), Number(s[1])];
};

export const tiles = (s: string): Tile[] => s.trim().split(/\s+/).filter(Boolean).map(t);

/** Unwraps a Result the test expects to be ok, with the library's own message otherwise. */
export function must<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** The error code of a Result the test expects to be refused. */
export function refusal<T>(result: Result<T>): string {
  if (result.ok) throw new Error('expected a refusal, but the library accepted');
  expect(typeof result.error.message).toBe('string');
  expect(result.error.message.length).toBeGreaterThan(0);
  return result.error.code;
}

export const newMatch = (input: MatchConfigInput): MatchState => must(createMatch(input));

/** The tiles of the set that are in no hand, in the order of `fullSet()`. */
export function restOfSet(hands: readonly (readonly Tile[])[]): Tile[] {
  const taken = new Set(hands.flat().map(tileId));
  return fullSet().filter((x) => !taken.has(tileId(x)));
}

/**
 * Starts the next round of `match` from an exact deal. `stock` is written in draw order; when it is
 * left out, the tiles nobody holds form the stock in set order.
 */
export function deal(match: MatchState, hands: readonly string[], stock?: string): MatchState {
  const parsed = hands.map(tiles);
  return must(
    startRoundWithDeal(match, {
      hands: parsed,
      stock: stock === undefined ? restOfSet(parsed) : tiles(stock),
    }),
  );
}

export const playAction = (seat: number, tile: string, end?: string): Action =>
  end === undefined ? { type: 'play', seat, tile: t(tile) } : { type: 'play', seat, tile: t(tile), end };

export const play = (m: MatchState, seat: number, tile: string, end?: string): MatchState =>
  must(applyAction(m, playAction(seat, tile, end)));

export const pass = (m: MatchState, seat: number, by: ActionOrigin = 'player'): MatchState =>
  must(applyAction(m, { type: 'pass', seat }, by));

export const draw = (m: MatchState, seat: number): MatchState => must(applyAction(m, { type: 'draw', seat }));

export function parseStep(step: string): Action {
  const m = /^(\d):(?:(pass|draw)|([0-6][0-6])(?:@(\w+))?)$/.exec(step);
  if (!m) throw new Error(`bad step ${step}`);
  const seat = Number(m[1]);
  if (m[2] === 'pass') return { type: 'pass', seat };
  if (m[2] === 'draw') return { type: 'draw', seat };
  return playAction(seat, m[3] as string, m[4]);
}

/** Applies scripted steps (`'0:66'`, `'1:61@left'`, `'2:pass'`, `'3:draw'`) one by one. */
export function steps(m: MatchState, script: string): MatchState {
  let state = m;
  for (const step of script.trim().split(/\s+/).filter(Boolean)) {
    const result = applyAction(state, parseStep(step));
    if (!result.ok) throw new Error(`step ${step}: ${result.error.code}: ${result.error.message}`);
    state = result.value;
  }
  return state;
}

export const round = (m: MatchState): RoundState => {
  if (m.round === null) throw new Error('no round');
  return m.round;
};

export const result = (m: MatchState): RoundResult => {
  const r = round(m).result;
  if (r === null) throw new Error('the round is not over');
  return r;
};

export const endValues = (m: MatchState): number[] => round(m).board.ends.map((e) => e.value);
export const endIds = (m: MatchState): string[] => round(m).board.ends.map((e) => e.id);

export const holds = (hand: readonly Tile[], tile: string): boolean => hand.some((x) => sameTile(x, t(tile)));

export const text = (hand: readonly Tile[]): string => hand.map((x) => `${x[0]}${x[1]}`).join(' ');

/**
 * A partnership deal that blocks after ten plays. The chain, from `opener` on and round the table, is
 *   66 · 61@left · 10@left · 06@left · 62@right · 23@right · 36@right · 64@left · 45@left · 56@left
 * which lays all seven sixes with a 6 showing at both ends: nobody can ever play again (P13).
 * `extras[s]` is what seat s keeps: 4 tiles for the opener and the seat after it, 5 for the other two,
 * 18 tiles in all, none with a six.
 */
export const BLOCKING_CHAIN = [
  '66',
  '61@left',
  '10@left',
  '06@left',
  '62@right',
  '23@right',
  '36@right',
  '64@left',
  '45@left',
  '56@left',
];

export function blockingHands(opener: number, extras: readonly string[]): string[] {
  const hands: string[][] = [[], [], [], []];
  BLOCKING_CHAIN.forEach((step, i) => hands[(opener + i) % 4]?.push(step.slice(0, 2)));
  return hands.map((h, s) => {
    const kept = tiles(extras[s] as string);
    if (h.length + kept.length !== 7) throw new Error(`seat ${s} would hold ${h.length + kept.length} tiles`);
    return [...h, ...kept.map((x) => `${x[0]}${x[1]}`)].join(' ');
  });
}

/** The ten plays of BLOCKING_CHAIN, seat by seat from `opener`. */
export const blockingPlays = (opener: number): string =>
  BLOCKING_CHAIN.map((step, i) => `${(opener + i) % 4}:${step}`).join(' ');

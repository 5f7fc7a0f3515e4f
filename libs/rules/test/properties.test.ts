/**
 * Property-based tests: thousands of random deals and random legal plays, in all three games and every
 * seat count they allow. The checks inside the simulation throw plain Errors (jest's expect is far too
 * slow to call on every action); fast-check then reports the seed that broke them.
 */
import fc from 'fast-check';
import {
  applyAction,
  automaticAction,
  createMatch,
  createSeededRng,
  deadlineAction,
  handPips,
  legalActions,
  matchResult,
  publicView,
  seatOwnPart,
  seatView,
  seatViewsSharePublicView,
  startRound,
  startRoundWithDeal,
  tileId,
  type Action,
  type ActionOrigin,
  type Deal,
  type LogEntry,
  type MatchConfigInput,
  type MatchState,
  type RoundResult,
  type RoundState,
  type Tile,
  type Variant,
} from '@dominoes/rules';

const TABLES: readonly [Variant, number][] = [
  ['partnership', 4],
  ['draw', 2],
  ['draw', 3],
  ['draw', 4],
  ['five-tile', 2],
  ['five-tile', 3],
  ['five-tile', 4],
];
const TARGETS = [50, 100, 150, 200, 250, 300, 350, 400, 450, 500];

const fail = (message: string): never => {
  throw new Error(message);
};
const check = (ok: boolean, message: () => string): void => {
  if (!ok) fail(message());
};
const ids = (tiles: readonly Tile[]): string => tiles.map(tileId).join(',');
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

interface Observer {
  /** After every applied action. */
  action?(before: MatchState, after: MatchState, action: Action): void;
  /** After every round, with the state that closed it. */
  roundEnd?(before: MatchState, after: MatchState, result: RoundResult): void;
}

interface Played {
  readonly input: MatchConfigInput;
  readonly deals: Deal[];
  readonly logs: (readonly LogEntry[])[];
  readonly final: MatchState;
}

/**
 * Plays a match with random legal actions from `createSeededRng(seed)`: mostly a random legal action by the
 * player, sometimes the deadline action (P16) or an automatic one. Stops when the match is over or after
 * `maxRounds` rounds.
 */
function simulate(input: MatchConfigInput, seed: number, maxRounds: number, observer: Observer = {}): Played {
  const rng = createSeededRng(seed);
  const created = createMatch(input);
  if (!created.ok) return fail(`createMatch: ${created.error.code}`);
  let m = created.value;
  const deals: Deal[] = [];
  const logs: (readonly LogEntry[])[] = [];
  while (m.phase !== 'over' && deals.length < maxRounds) {
    const started = startRound(m, rng);
    if (!started.ok) return fail(`startRound: ${started.error.code}`);
    m = started.value;
    const r = m.round as RoundState;
    deals.push({ hands: r.hands, stock: r.stock });
    for (let guard = 0; m.phase === 'playing'; guard++) {
      check(guard < 500, () => 'a round did not end in 500 actions');
      const turn = (m.round as RoundState).turn;
      const legal = legalActions(m, turn);
      check(legal.length > 0, () => `seat ${turn} to move has no legal action`);
      const deadline = deadlineAction(m);
      check(
        JSON.stringify(deadline) === JSON.stringify(legal[0]),
        () => 'the deadline action is not the first legal one',
      );
      const auto = automaticAction(m, (s) => s % 2 === 0);
      if (auto !== null) {
        check(legal.length === 1 && legal[0]!.type !== 'play', () => 'an automatic action was not forced');
        check(
          JSON.stringify(auto) === JSON.stringify(legal[0]),
          () => 'the automatic action is not the forced one',
        );
      }
      const roll = rng.fraction();
      let action: Action;
      let by: ActionOrigin = 'player';
      if (roll < 0.1) {
        action = deadline as Action;
        by = 'deadline';
      } else if (auto !== null && roll < 0.5) {
        action = auto;
        by = 'auto';
      } else action = legal[rng.below(legal.length)] as Action;
      const applied = applyAction(m, action, by);
      if (!applied.ok)
        return fail(`a legal action was refused: ${applied.error.code} ${JSON.stringify(action)}`);
      observer.action?.(m, applied.value, action);
      const before = m;
      m = applied.value;
      const result = (m.round as RoundState).result;
      if (result !== null) {
        logs.push((m.round as RoundState).log);
        observer.roundEnd?.(before, m, result);
      }
    }
  }
  return { input, deals, logs, final: m };
}

// ---------------------------------------------------------------------------------------------
// Checks

function checkConservation(m: MatchState): void {
  const r = m.round as RoundState;
  const all = [...r.hands.flat(), ...r.stock, ...r.board.placements.map((p) => p.tile)];
  check(all.length === 28, () => `${all.length} tiles in hands, stock and board`);
  check(new Set(all.map(tileId)).size === 28, () => `a tile is missing or twice: ${ids(all)}`);
}

/** `after` is `before` with at most `removed` tiles taken out, the rest in the same order. */
function isSubsequence(after: readonly Tile[], before: readonly Tile[]): boolean {
  let i = 0;
  for (const x of before) if (i < after.length && tileId(after[i]!) === tileId(x)) i++;
  return i === after.length;
}

function checkHands(before: MatchState, after: MatchState, action: Action): void {
  const b = before.round as RoundState;
  const a = after.round as RoundState;
  const partnership = after.config.variant === 'partnership';
  for (let s = 0; s < a.hands.length; s++) {
    const was = b.hands[s]!;
    const is = a.hands[s]!;
    if (partnership) check(is.length <= was.length, () => `P4: seat ${s}'s hand grew`);
    if (action.type === 'draw' && s === action.seat) {
      check(is.length === was.length + 1, () => 'a draw did not add exactly one tile');
      check(ids(is) === ids([...was, b.stock[0]!]), () => 'a draw did not append the top of the stock');
    } else if (action.type === 'play' && s === action.seat) {
      check(
        is.length === was.length - 1 && isSubsequence(is, was),
        () => 'a play did not remove exactly its tile',
      );
    } else {
      check(ids(is) === ids(was), () => `seat ${s}'s hand changed on another seat's action`);
    }
  }
}

/** The fields a seat view has; a new field must be added here on purpose (it could leak). */
const VIEW_KEYS = [
  'board',
  'handCounts',
  'hand',
  'history',
  'legal',
  'log',
  'matchResult',
  'oneRound',
  'opener',
  'passes',
  'phase',
  'roundNumber',
  'roundResult',
  'scores',
  'seat',
  'seats',
  'sideOfSeat',
  'stockCount',
  'target',
  'turn',
  'variant',
].sort();

function checkViews(m: MatchState): void {
  const r = m.round as RoundState;
  const revealed = r.result !== null;
  for (let seat = 0; seat < r.hands.length; seat++) {
    const v = seatView(m, seat);
    const keys = Object.keys(v).sort();
    check(
      keys.length === VIEW_KEYS.length && keys.every((k, i) => k === VIEW_KEYS[i]),
      () => `view keys: ${keys}`,
    );
    check(ids(v.hand) === ids(r.hands[seat]!), () => `seat ${seat}'s view shows another hand`);
    check(JSON.stringify(v.handCounts) === JSON.stringify(r.hands.map((h) => h.length)), () => 'hand counts');
    check(v.stockCount === r.stock.length, () => 'stock count');
    if (revealed) {
      check(
        v.roundResult !== null && ids(v.roundResult.finalHands.flat()) === ids(r.hands.flat()),
        () => 'P12 reveal',
      );
      continue;
    }
    check(v.roundResult === null, () => 'a round result before the end');
    // Everything tile-shaped the view shows: own hand, board, log, legal actions.
    const shown: Tile[] = [...v.hand, ...v.board.placements.map((p) => p.tile)];
    for (const e of v.log) {
      if (e.type === 'play') shown.push(e.tile);
      if (e.type === 'draw' && e.drawn !== undefined) {
        check(e.seat === seat, () => `seat ${seat} sees the tile seat ${e.seat} drew`);
        shown.push(e.drawn);
      }
    }
    for (const a of v.legal) if (a.type === 'play') shown.push(a.tile);
    const hidden = new Set([...r.stock, ...r.hands.filter((_, s) => s !== seat).flat()].map(tileId));
    for (const x of shown) check(!hidden.has(tileId(x)), () => `seat ${seat}'s view leaks [${x}]`);
  }
}

/** The fields a spectator's view has; a new field must be added here on purpose (it could leak). */
const PUBLIC_VIEW_KEYS = VIEW_KEYS.filter((k) => k !== 'seat' && k !== 'hand' && k !== 'legal');

/**
 * A spectator's view (P10, P12): no hand, every seat a count, no drawn tile, nothing of a hand
 * or the stock before the reveal; and exactly what every seat's view shows of the other seats.
 */
function checkPublicView(m: MatchState): void {
  const r = m.round as RoundState;
  const revealed = r.result !== null;
  const v = publicView(m);
  const keys = Object.keys(v).sort();
  check(
    keys.length === PUBLIC_VIEW_KEYS.length && keys.every((k, i) => k === PUBLIC_VIEW_KEYS[i]),
    () => `public view keys: ${keys}`,
  );
  check(JSON.stringify(v.handCounts) === JSON.stringify(r.hands.map((h) => h.length)), () => 'hand counts');
  check(v.stockCount === r.stock.length, () => 'stock count');
  for (let seat = 0; seat < r.hands.length; seat++) {
    const { seat: _seat, hand: _hand, legal: _legal, log, ...rest } = seatView(m, seat);
    const { log: publicLog, ...publicRest } = v;
    check(
      JSON.stringify(publicRest) === JSON.stringify(rest),
      () => `the public view differs from seat ${seat}'s view`,
    );
    check(log.length === publicLog.length, () => 'public log length');
    // No boneyard in partnership (P4): its views always share it.
    if (m.config.variant === 'partnership')
      check(seatViewsSharePublicView(m), () => 'partnership views do not share the public view');
    // When the rules say the views share the public view, each is it plus the seat's own part, byte for byte.
    if (seatViewsSharePublicView(m)) {
      const shared = JSON.stringify({ ...v, ...seatOwnPart(m, seat) });
      check(
        shared === JSON.stringify(seatView(m, seat)),
        () => `seat ${seat}'s view is not the public view + its part`,
      );
    }
    log.forEach((e, i) => {
      // What seat `seat` sees of another seat's action is what a spectator sees of it.
      if (e.seat !== seat || revealed)
        check(JSON.stringify(publicLog[i]) === JSON.stringify(e), () => `public log entry ${i} differs`);
    });
  }
  if (revealed) {
    check(
      v.roundResult !== null && ids(v.roundResult.finalHands.flat()) === ids(r.hands.flat()),
      () => 'P12 reveal',
    );
    return;
  }
  check(v.roundResult === null, () => 'a round result before the end');
  // Everything tile-shaped the view shows: the board and the log, all of it played tiles.
  const onBoard = new Set(v.board.placements.map((p) => tileId(p.tile)));
  const shown: Tile[] = [...v.board.placements.map((p) => p.tile)];
  for (const e of v.log) {
    if (e.type === 'play') shown.push(e.tile);
    check(
      !(e.type === 'draw' && e.drawn !== undefined),
      () => `a spectator sees the tile seat ${e.seat} drew`,
    );
  }
  const hidden = new Set([...r.stock, ...r.hands.flat()].map(tileId));
  for (const x of shown) {
    check(!hidden.has(tileId(x)), () => `the public view leaks [${x}]`);
    check(onBoard.has(tileId(x)), () => `the public view shows [${x}], not on the board`);
  }
}

/** The rules' scoring (P11, P14, P15; D5–D7; F7), restated independently of the library's code. */
function expectedScore(m: MatchState): { winnerSide: number | null; points: number } {
  const r = m.round as RoundState;
  const result = r.result as RoundResult;
  const pips = r.hands.map(handPips);
  if (m.config.variant === 'partnership') {
    const team = [pips[0]! + pips[2]!, pips[1]! + pips[3]!];
    let winner: number;
    if (result.dominoSeat !== null) winner = result.dominoSeat % 2;
    else if (team[0] !== team[1]) winner = team[0]! < team[1]! ? 0 : 1;
    else winner = (r.log.filter((e) => e.type === 'play').at(-1) as LogEntry).seat % 2;
    return { winnerSide: winner, points: team[1 - winner]! };
  }
  const low = Math.min(...pips);
  const lowest = pips.flatMap((p, s) => (p === low ? [s] : []));
  if (result.dominoSeat === null && lowest.length > 1) return { winnerSide: null, points: 0 };
  const winner = result.dominoSeat ?? lowest[0]!;
  if (m.config.variant === 'draw') {
    return { winnerSide: winner, points: sum(pips.map((p) => p - pips[winner]!)) };
  }
  return { winnerSide: winner, points: sum(pips) - pips[winner]! + (result.dominoSeat !== null ? 10 : 0) };
}

function checkRoundEnd(before: MatchState, after: MatchState, result: RoundResult): void {
  const r = after.round as RoundState;
  const seats = r.hands.length;
  const expected = expectedScore(after);
  check(
    result.winnerSide === expected.winnerSide && result.points === expected.points,
    () => `scored ${JSON.stringify(result)}, rules say ${JSON.stringify(expected)}`,
  );
  if (after.config.variant === 'partnership') {
    check(result.winnerSide === 0 || result.winnerSide === 1, () => 'P15: no team scored');
  }
  check(result.points >= 0, () => 'negative points');
  const gained = after.scores.map((s, i) => s - before.scores[i]!);
  for (let side = 0; side < gained.length; side++) {
    check(
      gained[side] === (side === result.winnerSide ? result.points : 0),
      () => `scores moved wrongly: ${gained}`,
    );
  }
  if (result.dominoSeat !== null) {
    check(r.hands[result.dominoSeat]!.length === 0, () => 'a domino with tiles left');
  } else {
    // P13, D6, F6: blocked means a full round of passes, an empty boneyard (or none), and nobody can play.
    check(
      r.log.slice(-seats).every((e) => e.type === 'pass'),
      () => 'blocked without a round of passes',
    );
    check(r.stock.length === 0, () => 'blocked with tiles left to draw');
    const ends = r.board.ends.map((e) => e.value);
    check(
      !r.hands.flat().some((x) => ends.includes(x[0]) || ends.includes(x[1])),
      () => 'blocked but a tile fits',
    );
  }
  const over = after.config.oneRound || after.scores.some((s) => s >= after.config.target);
  check(after.phase === (over ? 'over' : 'between-rounds'), () => `phase ${after.phase} after a round`);
}

// ---------------------------------------------------------------------------------------------

const table = fc.constantFrom(...TABLES);
const seedArb = fc.integer();

describe('properties over random deals and random legal plays', () => {
  it('tiles are conserved: hands + stock + board hold the 28 tiles, each once, after every action (all games)', () => {
    fc.assert(
      fc.property(table, seedArb, ([variant, seats], seed) => {
        simulate({ variant, seats }, seed, 3, {
          action: (_, after) => checkConservation(after),
        });
      }),
      { numRuns: 300 },
    );
  });

  it('P4 a hand never grows in partnership; in the draw games only a draw adds a tile (D4, F5)', () => {
    fc.assert(
      fc.property(table, seedArb, ([variant, seats], seed) => {
        simulate({ variant, seats }, seed, 3, { action: checkHands });
      }),
      { numRuns: 300 },
    );
  });

  it('P11 P14 P15 D5 D6 D7 F7 every round is scored by its rules; in partnership exactly one team scores', () => {
    fc.assert(
      fc.property(table, seedArb, ([variant, seats], seed) => {
        simulate({ variant, seats }, seed, 4, { roundEnd: checkRoundEnd });
      }),
      { numRuns: 400 },
    );
  });

  it('P20 P21 a partnership match played to the end never ends tied', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TARGETS), seedArb, (target, seed) => {
        const { final } = simulate({ variant: 'partnership', target }, seed, 1_000);
        const r = matchResult(final);
        check(r.finished, () => 'unfinished');
        check(r.winnerSide === 0 || r.winnerSide === 1, () => `winner ${r.winnerSide}`);
        check(r.scores[0] !== r.scores[1], () => `tied at ${r.scores}`);
        check(
          r.scores[r.winnerSide!]! >= target && r.scores[1 - r.winnerSide!]! < target,
          () => `${r.scores}`,
        );
        check(
          final.history.every((h) => h.winnerSide === 0 || h.winnerSide === 1),
          () => 'a round without a winner',
        );
      }),
      { numRuns: 150 },
    );
  });

  it("P12 D1 F1 no view leaks a hidden tile: own hand only, no other hand, no stock, no other seat's drawn tile", () => {
    fc.assert(
      fc.property(table, seedArb, ([variant, seats], seed) => {
        simulate({ variant, seats }, seed, 2, { action: (_, after) => checkViews(after) });
      }),
      { numRuns: 200 },
    );
  });

  it('P10 P12 a spectator view shows no hand, no stock, no drawn tile before the reveal, and what every seat sees of the others', () => {
    fc.assert(
      fc.property(table, seedArb, ([variant, seats], seed) => {
        simulate({ variant, seats }, seed, 2, { action: (_, after) => checkPublicView(after) });
      }),
      { numRuns: 200 },
    );
  });

  it('replaying the logs on the same deals (startRoundWithDeal) gives the same rounds, scores and result', () => {
    fc.assert(
      fc.property(table, seedArb, fc.boolean(), ([variant, seats], seed, oneRound) => {
        const input: MatchConfigInput = { variant, seats, oneRound: oneRound && variant === 'draw' };
        const played = simulate(input, seed, 6);
        const created = createMatch(input);
        if (!created.ok) return fail('createMatch');
        let state = created.value;
        played.logs.forEach((log, i) => {
          const started = startRoundWithDeal(state, played.deals[i]!);
          if (!started.ok) return fail(`round ${i + 1}: ${started.error.code}`);
          state = started.value;
          for (const entry of log) {
            const { by, drawn: _drawn, ...action } = entry;
            const applied = applyAction(state, action as Action, by);
            if (!applied.ok) return fail(`replay refused ${JSON.stringify(entry)}: ${applied.error.code}`);
            state = applied.value;
          }
          const a = (state.round as RoundState).result;
          check(a !== null, () => `replayed round ${i + 1} did not end`);
          check(
            JSON.stringify(state.round?.log) === JSON.stringify(log),
            () => `round ${i + 1}: another log`,
          );
        });
        const original = played.final;
        check(
          JSON.stringify(state.round?.result) === JSON.stringify(original.round?.result),
          () => 'another result',
        );
        check(JSON.stringify(state.history) === JSON.stringify(original.history), () => 'another history');
        check(JSON.stringify(state.scores) === JSON.stringify(original.scores), () => 'other scores');
        check(state.phase === original.phase, () => 'another phase');
        check(
          JSON.stringify(matchResult(state)) === JSON.stringify(matchResult(original)),
          () => 'another result',
        );
      }),
      { numRuns: 250 },
    );
  });

  it('F2 every five-tile round starts from a deal where someone holds a double, opened by the highest', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 4 }), seedArb, (seats, seed) => {
        const played = simulate({ variant: 'five-tile', seats }, seed, 1);
        const hands = played.deals[0]!.hands;
        const best = hands.map((h) => Math.max(-1, ...h.filter((x) => x[0] === x[1]).map((x) => x[0])));
        check(Math.max(...best) >= 0, () => 'a round was dealt with no double');
        const first = played.logs[0]?.[0];
        check(first?.type === 'play' && first.seat === best.indexOf(Math.max(...best)), () => 'wrong opener');
        check(
          first?.type === 'play' &&
            first.tile[0] === Math.max(...best) &&
            first.tile[1] === Math.max(...best),
          () => 'not the highest double',
        );
      }),
      { numRuns: 200 },
    );
  });
});

/**
 * Replays: one case (a round or a match, given as JSON) in, one result out. Pure, no I/O: the
 * `npm run replay` command (cli/replay.ts) only feeds it lines. Players and operators use it to
 * check a disputed result; the services' tests use it to state expected outcomes.
 *
 * A case never throws: anything malformed or illegal comes back as `{ error: { code, message } }`.
 */
import { endValues } from './board';
import type { RuleErrorCode } from './errors';
import {
  applyAction,
  automaticAction,
  createMatch,
  deadlineAction,
  legalActions,
  matchResult,
  rulesOf,
  startRoundWithDeal,
  type Deal,
} from './match';
import { sameTile, tileText, type Tile } from './tiles';
import {
  VARIANTS,
  type Action,
  type ActionOrigin,
  type LogEntry,
  type MatchState,
  type RoundState,
  type Variant,
} from './types';

/** Error codes of a replay: the rules' own codes, plus the ones only a replay can meet. */
export type ReplayErrorCode =
  | RuleErrorCode
  /** The line is not JSON at all. */
  | 'INVALID_JSON'
  /** JSON, but not a case: wrong type, missing or unknown field. */
  | 'INVALID_CASE'
  /** A match round names an opener the rules (P5/P6, D2, F2) do not give it. */
  | 'OPENER_MISMATCH'
  /** A match round that is not the last one stops before the round ends. */
  | 'ROUND_UNFINISHED'
  /** A bug in the replay itself; never expected. */
  | 'INTERNAL_ERROR';

export interface ReplayError {
  readonly error: {
    readonly code: ReplayErrorCode;
    readonly message: string;
    /** The index of the round in a match case. */
    readonly round?: number;
    /** The index of the action in its round's `actions`. */
    readonly action?: number;
  };
}

/**
 * An action as a replay writes it: a play `{seat, tile, end}`, a pass `{seat, tile: null}`, a draw
 * `{seat, draw: true}` (with the `drawn` tile in a log), a deadline `{seat, timeout: true}`.
 * In a log, `timeout: true` marks what the table did at a deadline and `auto: true` what it did at once.
 */
export interface ReplayAction {
  readonly seat: number;
  readonly tile?: [number, number] | null;
  readonly end?: string;
  readonly draw?: true;
  readonly drawn?: [number, number];
  readonly timeout?: true;
  readonly auto?: true;
}

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
  readonly log: ReplayAction[];
}

export interface FinishedSoloRound extends RoundOutputCommon {
  readonly finished: true;
  /** Null for a drawn round (D7, F7). */
  readonly winnerSeat: number | null;
  readonly seatPips: number[];
  readonly finalHands: [number, number][][];
  readonly ends: number[];
  readonly log: ReplayAction[];
}

export interface UnfinishedRound {
  readonly finished: false;
  readonly turn: number;
  readonly legal: ReplayAction[];
  readonly ends: number[];
  readonly handCounts: number[];
  readonly log: ReplayAction[];
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

export type ReplayOutput = RoundOutput | MatchOutput | ReplayError;

type Fail = { -readonly [K in keyof ReplayError['error']]: ReplayError['error'][K] };
type Step<T> = { ok: true; value: T } | { ok: false; error: Fail };

const good = <T>(value: T): Step<T> => ({ ok: true, value });
const bad = (
  code: ReplayErrorCode,
  message: string,
  where: { round?: number; action?: number } = {},
): Step<never> => ({
  ok: false,
  error: { code, message, ...where },
});

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function unknownKey(value: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  return Object.keys(value).find((key) => !allowed.includes(key));
}

const copyTile = (tile: Tile): [number, number] => [tile[0], tile[1]];

/** A library log entry in the replay's format. A replay reveals everything, so a draw shows its tile. */
function toReplayEntry(entry: LogEntry): ReplayAction {
  const marks: { timeout?: true; auto?: true } =
    entry.by === 'deadline' ? { timeout: true } : entry.by === 'auto' ? { auto: true } : {};
  switch (entry.type) {
    case 'play':
      return { seat: entry.seat, tile: copyTile(entry.tile), end: entry.end as string, ...marks };
    case 'pass':
      return { seat: entry.seat, tile: null, ...marks };
    case 'draw':
      return {
        seat: entry.seat,
        draw: true,
        ...(entry.drawn ? { drawn: copyTile(entry.drawn) } : {}),
        ...marks,
      };
  }
}

function toReplayAction(action: Action): ReplayAction {
  switch (action.type) {
    case 'play':
      return {
        seat: action.seat,
        tile: copyTile(action.tile),
        ...(action.end !== undefined ? { end: action.end } : {}),
      };
    case 'pass':
      return { seat: action.seat, tile: null };
    case 'draw':
      return { seat: action.seat, draw: true };
  }
}

const actionText = (action: Action): string =>
  action.type === 'play'
    ? `play ${tileText(action.tile)}${action.end !== undefined ? ` on ${action.end}` : ''}`
    : action.type;

// ---------------------------------------------------------------------------------------------
// Actions

const ACTION_KEYS = ['seat', 'tile', 'end', 'draw', 'drawn', 'timeout', 'auto'] as const;

interface ParsedAction {
  readonly seat: number;
  /** The action itself; absent for a bare timeout, which asks the table (P16). */
  readonly action?: Action;
  readonly timeout: boolean;
  readonly auto: boolean;
  /** A log's `drawn`: the tile the draw must take. */
  readonly drawn?: unknown;
}

const ACTION_SHAPE =
  'An action is a play {"seat","tile":[a,b],"end"}, a pass {"seat","tile":null}, ' +
  'a draw {"seat","draw":true} or a timeout {"seat","timeout":true}.';

function parseAction(
  raw: unknown,
  seats: number,
  where: { round?: number; action: number },
): Step<ParsedAction> {
  if (!isObject(raw))
    return bad('INVALID_ACTION', `Action ${where.action} is not an object. ${ACTION_SHAPE}`, where);
  const extra = unknownKey(raw, ACTION_KEYS);
  if (extra !== undefined)
    return bad(
      'INVALID_ACTION',
      `Action ${where.action} has an unknown field "${extra}". ${ACTION_SHAPE}`,
      where,
    );
  const seat = raw.seat;
  if (typeof seat !== 'number' || !Number.isInteger(seat) || seat < 0 || seat >= seats) {
    return bad(
      'INVALID_SEAT',
      `Action ${where.action}: "seat" must be a whole number from 0 to ${seats - 1}.`,
      where,
    );
  }
  for (const flag of ['draw', 'timeout', 'auto'] as const) {
    if (flag in raw && raw[flag] !== true) {
      return bad('INVALID_ACTION', `Action ${where.action}: "${flag}" can only be true.`, where);
    }
  }
  const timeout = raw.timeout === true;
  const auto = raw.auto === true;
  if (timeout && auto)
    return bad('INVALID_ACTION', `Action ${where.action} cannot be both a timeout and automatic.`, where);
  const hasTile = 'tile' in raw;
  const isDraw = raw.draw === true;
  if (hasTile && isDraw)
    return bad('INVALID_ACTION', `Action ${where.action} is either a draw or has a tile, not both.`, where);
  if ('drawn' in raw && !isDraw)
    return bad('INVALID_ACTION', `Action ${where.action}: only a draw has "drawn".`, where);
  if ('end' in raw && !(hasTile && raw.tile !== null)) {
    return bad('INVALID_ACTION', `Action ${where.action}: only a play (with a tile) names an end.`, where);
  }
  let action: Action | undefined;
  if (isDraw) action = { type: 'draw', seat };
  else if (hasTile && raw.tile === null) action = { type: 'pass', seat };
  else if (hasTile) {
    // The rules check the tile and the end themselves (INVALID_TILE, UNKNOWN_END).
    action = {
      type: 'play',
      seat,
      tile: raw.tile as Tile,
      ...('end' in raw ? { end: raw.end as string } : {}),
    };
  } else if (!timeout)
    return bad('INVALID_ACTION', `Action ${where.action} says nothing to do. ${ACTION_SHAPE}`, where);
  return good({
    seat,
    timeout,
    auto,
    ...(action ? { action } : {}),
    ...('drawn' in raw ? { drawn: raw.drawn } : {}),
  });
}

const sameAction = (a: Action, b: Action): boolean =>
  a.type === b.type &&
  a.seat === b.seat &&
  (a.type !== 'play' || (b.type === 'play' && sameTile(a.tile, b.tile) && a.end === b.end));

/** Applies one case action to a match whose round is in play, or says why not. */
function applyCaseAction(
  match: MatchState,
  parsed: ParsedAction,
  where: { round?: number; action: number },
): Step<MatchState> {
  const round = match.round as RoundState;
  if (round.result !== null)
    return bad('NO_ROUND_IN_PLAY', `Action ${where.action} comes after the round ended.`, where);
  let action = parsed.action;
  let by: ActionOrigin = parsed.auto ? 'auto' : 'player';
  if (parsed.timeout) {
    if (parsed.seat !== round.turn) {
      return bad(
        'NOT_YOUR_TURN',
        `Action ${where.action}: it is seat ${round.turn}'s turn, not seat ${parsed.seat}'s.`,
        where,
      );
    }
    // P16: the table acts for the seat. A timeout that also states the action (a replayed log) must agree.
    const chosen = deadlineAction(match) as Action;
    if (action !== undefined && !sameAction(action, chosen)) {
      return bad(
        'INVALID_ACTION',
        `Action ${where.action}: at the deadline the table would ${actionText(chosen)}, not ${actionText(action)} (P16).`,
        where,
      );
    }
    action = chosen;
    by = 'deadline';
  }
  const applied = applyAction(match, action as Action, by);
  if (!applied.ok) return bad(applied.error.code, `Action ${where.action}: ${applied.error.message}`, where);
  if (parsed.drawn !== undefined) {
    const entry = (applied.value.round as RoundState).log.at(-1);
    const drawn = entry?.type === 'draw' ? entry.drawn : undefined;
    if (
      drawn === undefined ||
      !Array.isArray(parsed.drawn) ||
      !sameTile(drawn, parsed.drawn as unknown as Tile)
    ) {
      const took = drawn ? tileText(drawn) : 'nothing';
      return bad(
        'INVALID_ACTION',
        `Action ${where.action}: the draw takes ${took} from the stock, not ${JSON.stringify(parsed.drawn)}.`,
        where,
      );
    }
  }
  return good(applied.value);
}

// ---------------------------------------------------------------------------------------------
// Rounds

const ROUND_KEYS = ['hands', 'stock', 'opener', 'actions', 'complete'] as const;

interface RoundInput {
  readonly deal: Deal;
  readonly opener?: number;
  readonly actions: readonly unknown[];
  readonly complete: boolean;
}

function parseRound(
  variant: Variant,
  raw: Record<string, unknown>,
  where: { round?: number },
): Step<RoundInput> {
  const name = where.round === undefined ? 'The case' : `Round ${where.round}`;
  if (!Array.isArray(raw.hands)) {
    return bad('INVALID_CASE', `${name} needs "hands": one array of tiles per seat, in seat order.`, where);
  }
  const drawing = rulesOf(variant).drawsFromStock;
  if (drawing && !('stock' in raw)) {
    return bad('INVALID_CASE', `${name} needs "stock": the boneyard in draw order (D1, F1).`, where);
  }
  const stock = raw.stock ?? [];
  if (!Array.isArray(stock)) return bad('INVALID_CASE', `${name}: "stock" must be an array of tiles.`, where);
  const actions = raw.actions ?? [];
  if (!Array.isArray(actions)) return bad('INVALID_CASE', `${name}: "actions" must be an array.`, where);
  const complete = raw.complete ?? false;
  if (typeof complete !== 'boolean')
    return bad('INVALID_CASE', `${name}: "complete" must be true or false.`, where);
  const opener = raw.opener;
  if (opener !== undefined && (typeof opener !== 'number' || !Number.isInteger(opener))) {
    return bad('INVALID_CASE', `${name}: "opener" must be a seat number.`, where);
  }
  return good({
    deal: { hands: raw.hands as Tile[][], stock: stock as Tile[] },
    ...(opener !== undefined ? { opener: opener as number } : {}),
    actions,
    complete,
  });
}

/**
 * Plays one round of `match` from a case: the deal, the listed actions, then what the table does by
 * itself: the passes that close a locked board at once (P13, D6, F6), and with `complete` the deadline
 * action of every seat to move until the round ends (P16).
 */
function playRound(
  start: MatchState,
  input: RoundInput,
  where: { round?: number },
  openerRule: 'override' | 'must-match',
): Step<MatchState> {
  const deal: Deal =
    openerRule === 'override' && input.opener !== undefined
      ? { ...input.deal, opener: input.opener }
      : input.deal;
  const started = startRoundWithDeal(start, deal);
  if (!started.ok) return bad(started.error.code, started.error.message, where);
  let match = started.value;
  const opener = (match.round as RoundState).opener;
  if (openerRule === 'must-match' && input.opener !== undefined && input.opener !== opener) {
    const rule =
      match.config.variant === 'partnership'
        ? start.history.length === 0
          ? 'P5'
          : 'P6'
        : match.config.variant === 'draw'
          ? 'D2'
          : 'F2';
    return bad(
      'OPENER_MISMATCH',
      `Round ${where.round ?? 0} is opened by seat ${opener} (${rule}), not seat ${input.opener}.`,
      where,
    );
  }
  for (let i = 0; i < input.actions.length; i++) {
    const at = { ...where, action: i };
    const parsed = parseAction(input.actions[i], match.config.seats, at);
    if (!parsed.ok) return parsed;
    const applied = applyCaseAction(match, parsed.value, at);
    if (!applied.ok) return applied;
    match = applied.value;
  }
  match = closeLockedBoard(match);
  if (input.complete) {
    while (match.phase === 'playing' && (match.round as RoundState).result === null) {
      const action = deadlineAction(match) as Action;
      const applied = applyAction(match, action, 'deadline');
      if (!applied.ok) return bad('INTERNAL_ERROR', applied.error.message, where);
      match = closeLockedBoard(applied.value);
    }
  }
  return good(match);
}

/** The passes the table makes at once when nobody can ever play again (P13, D6, F6). */
function closeLockedBoard(start: MatchState): MatchState {
  let match = start;
  for (
    let action = automaticAction(match, () => false);
    action !== null;
    action = automaticAction(match, () => false)
  ) {
    const applied = applyAction(match, action, 'auto');
    if (!applied.ok) break;
    match = applied.value;
  }
  return match;
}

const handsOut = (hands: readonly (readonly Tile[])[]): [number, number][][] =>
  hands.map((hand) => hand.map(copyTile));

function unfinishedRound(match: MatchState): UnfinishedRound {
  const round = match.round as RoundState;
  return {
    finished: false,
    turn: round.turn,
    legal: legalActions(match, round.turn).map(toReplayAction),
    ends: endValues(round.board),
    handCounts: round.hands.map((hand) => hand.length),
    log: round.log.map(toReplayEntry),
  };
}

function roundOutput(match: MatchState): RoundOutput {
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
    log: round.log.map(toReplayEntry),
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

// ---------------------------------------------------------------------------------------------
// Cases

const ROUND_CASE_KEYS = ['variant', 'seats', ...ROUND_KEYS] as const;
const MATCH_CASE_KEYS = ['variant', 'seats', 'target', 'oneRound', 'rounds'] as const;

function parseVariant(value: unknown): Step<Variant> {
  if (value === undefined)
    return bad('INVALID_CASE', `A case needs "variant": one of ${VARIANTS.join(', ')}.`);
  if (!VARIANTS.includes(value as Variant)) {
    return bad(
      'INVALID_CASE',
      `Unknown variant ${JSON.stringify(value)}: use one of ${VARIANTS.join(', ')}.`,
    );
  }
  return good(value as Variant);
}

/**
 * Seats come from the hands (or an explicit "seats", which must agree). A partnership table always
 * has 4 (P1), so there the deal check reports a wrong number of hands.
 */
function seatCount(variant: Variant, raw: Record<string, unknown>, hands: unknown): Step<number | undefined> {
  const rules = rulesOf(variant);
  const fromHands = Array.isArray(hands) && rules.minSeats !== rules.maxSeats ? hands.length : undefined;
  if (raw.seats === undefined) return good(fromHands);
  if (typeof raw.seats !== 'number' || !Number.isInteger(raw.seats))
    return bad('INVALID_CASE', '"seats" must be a whole number.');
  if (fromHands !== undefined && fromHands !== raw.seats) {
    return bad('INVALID_DEAL', `The case says ${raw.seats} seats but deals ${fromHands} hands.`);
  }
  return good(raw.seats);
}

function replayRoundCase(variant: Variant, raw: Record<string, unknown>): Step<RoundOutput> {
  const extra = unknownKey(raw, ROUND_CASE_KEYS);
  if (extra !== undefined) return bad('INVALID_CASE', `Unknown field "${extra}" in a round case.`);
  const input = parseRound(variant, raw, {});
  if (!input.ok) return input;
  const seats = seatCount(variant, raw, raw.hands);
  if (!seats.ok) return seats;
  const created = createMatch({ variant, ...(seats.value !== undefined ? { seats: seats.value } : {}) });
  if (!created.ok) return bad(created.error.code, created.error.message);
  const played = playRound(created.value, input.value, {}, 'override');
  if (!played.ok) return played;
  return good(roundOutput(played.value));
}

function replayMatchCase(variant: Variant, raw: Record<string, unknown>): Step<MatchOutput> {
  const extra = unknownKey(raw, MATCH_CASE_KEYS);
  if (extra !== undefined) return bad('INVALID_CASE', `Unknown field "${extra}" in a match case.`);
  const rounds = raw.rounds;
  if (!Array.isArray(rounds) || rounds.length === 0) {
    return bad('INVALID_CASE', 'A match case needs "rounds": a non-empty array of rounds.');
  }
  const first: unknown = rounds[0];
  const seats = seatCount(variant, raw, isObject(first) ? first.hands : undefined);
  if (!seats.ok) return seats;
  const created = createMatch({
    variant,
    ...(seats.value !== undefined ? { seats: seats.value } : {}),
    ...(raw.target !== undefined ? { target: raw.target as number } : {}),
    ...(raw.oneRound !== undefined ? { oneRound: raw.oneRound as boolean } : {}),
  });
  if (!created.ok) return bad(created.error.code, created.error.message);
  let match = created.value;
  for (let r = 0; r < rounds.length; r++) {
    const where = { round: r };
    const item: unknown = rounds[r];
    if (match.phase === 'over') {
      return bad('MATCH_OVER', `The match ended after round ${r - 1}; round ${r} cannot be played.`, where);
    }
    if (!isObject(item)) return bad('INVALID_CASE', `Round ${r} must be an object.`, where);
    const extraKey = unknownKey(item, ROUND_KEYS);
    if (extraKey !== undefined)
      return bad('INVALID_CASE', `Unknown field "${extraKey}" in round ${r}.`, where);
    const input = parseRound(variant, item, where);
    if (!input.ok) return input;
    const played = playRound(match, input.value, where, 'must-match');
    if (!played.ok) return played;
    match = played.value;
    if (match.phase === 'playing' && r < rounds.length - 1) {
      return bad(
        'ROUND_UNFINISHED',
        `Round ${r} has not ended, yet round ${r + 1} follows: finish it or add "complete": true.`,
        where,
      );
    }
  }
  const result = matchResult(match);
  const side = variant === 'partnership' ? 'winnerTeam' : 'winnerSeat';
  const summaries = match.history.map((h) => ({
    opener: h.opener,
    [side]: h.winnerSide,
    points: h.points,
    blocked: h.blocked,
  }));
  return good({
    finished: result.finished,
    [side]: result.winnerSide,
    scores: result.scores.slice(),
    rounds: summaries as MatchRoundOutput[],
    ...(match.phase === 'playing' ? { current: unfinishedRound(match) } : {}),
  } as MatchOutput);
}

/** Replays one case given as a parsed JSON value. Never throws. */
export function replayCase(input: unknown): ReplayOutput {
  try {
    const step = replayCaseSteps(input);
    return step.ok ? step.value : { error: step.error };
  } catch (thrown) {
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    return { error: { code: 'INTERNAL_ERROR', message: `The replay failed unexpectedly: ${message}` } };
  }
}

function replayCaseSteps(input: unknown): Step<ReplayOutput> {
  if (!isObject(input)) {
    return bad(
      'INVALID_CASE',
      'A case is a JSON object: a round {"variant","hands",...} or a match {"variant","rounds":[...]}.',
    );
  }
  const variant = parseVariant(input.variant);
  if (!variant.ok) return variant;
  if ('rounds' in input) {
    if ('hands' in input)
      return bad('INVALID_CASE', 'A case is a round ("hands") or a match ("rounds"), not both.');
    return replayMatchCase(variant.value, input);
  }
  return replayRoundCase(variant.value, input);
}

/** Replays one line of JSON Lines input: one case in, one result (or error) out. Never throws. */
export function replayLine(line: string): ReplayOutput {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (thrown) {
    const detail = thrown instanceof Error ? thrown.message : 'unreadable';
    return { error: { code: 'INVALID_JSON', message: `The line is not JSON (${detail}).` } };
  }
  return replayCase(parsed);
}

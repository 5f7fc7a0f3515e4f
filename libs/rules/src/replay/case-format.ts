/**
 * The case format that `npm run replay` reads (examples/replay/README.md), checked by zod schemas,
 * and the one place where its action notation is read into the rules' `Action` and written back.
 *
 * A case is read a level at a time, as the replay reaches it: the case, then each round of a match,
 * then each action. So the first problem in play order is the one reported (an illegal action 3
 * before a malformed action 4), and an action's seat is checked against the table it is played at.
 * Tiles, ends, targets and deals are the rules' to check (INVALID_TILE, UNKNOWN_END, INVALID_TARGET,
 * INVALID_DEAL): the format only says where they are.
 */
import { z } from 'zod';
import { rulesOf, type Deal, type MatchConfigInput } from '../match';
import type { Tile } from '../tiles';
import { VARIANTS, type Action, type ActionOrigin, type Variant } from '../types';
import { bad, good, type ReplayErrorCode, type Step, type Where } from './step';

// ---------------------------------------------------------------------------------------------
// Actions

/**
 * An action as a case writes it, and as a replay's `log` and `legal` give it back: a play
 * `{seat, tile, end}`, a pass `{seat, tile: null}`, a draw `{seat, draw: true}` (with the `drawn`
 * tile in a log), a deadline `{seat, timeout: true}`. In a log, `timeout: true` marks what the table
 * did at a deadline and `auto: true` what it did at once.
 */
export interface CaseAction {
  readonly seat: number;
  readonly tile?: [number, number] | null;
  readonly end?: string;
  readonly draw?: true;
  readonly drawn?: [number, number];
  readonly timeout?: true;
  readonly auto?: true;
}

/** A case action in the rules' words. */
export interface CaseStep {
  readonly seat: number;
  /** The action; absent for a bare timeout, where the table picks it (P16). */
  readonly action?: Action;
  /** `timeout: true` is the table at a deadline, `auto: true` the table at once. */
  readonly by: ActionOrigin;
  /** A log's `drawn`, as written: the tile the draw must take. */
  readonly drawn?: unknown;
}

const ORIGIN_MARKS: Readonly<Record<ActionOrigin, { timeout?: true; auto?: true }>> = {
  player: {},
  deadline: { timeout: true },
  auto: { auto: true },
};

const copyTile = (tile: Tile): [number, number] => [tile[0], tile[1]];

/** An action, or a log entry (a replay reveals everything, so a draw shows its tile), in case notation. */
export function caseAction(
  entry: Action & { readonly by?: ActionOrigin; readonly drawn?: Tile },
): CaseAction {
  const marks = entry.by === undefined ? {} : ORIGIN_MARKS[entry.by];
  switch (entry.type) {
    case 'play':
      return {
        seat: entry.seat,
        tile: copyTile(entry.tile),
        ...(entry.end !== undefined ? { end: entry.end } : {}),
        ...marks,
      };
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

const ACTION_SHAPE =
  'An action is a play {"seat","tile":[a,b],"end"}, a pass {"seat","tile":null}, ' +
  'a draw {"seat","draw":true} or a timeout {"seat","timeout":true}.';

/** The fields of an action at a table of `seats` seats; `tile: null` is a pass, any other tile a play. */
const actionFields = (seats: number) =>
  z.strictObject({
    seat: z
      .int()
      .min(0)
      .max(seats - 1),
    tile: z.unknown().optional(),
    end: z.unknown().optional(),
    draw: z.literal(true).optional(),
    drawn: z.unknown().optional(),
    timeout: z.literal(true).optional(),
    auto: z.literal(true).optional(),
  });

type ActionFields = z.infer<ReturnType<typeof actionFields>>;

/** One schema per table size (2 to 4 seats), made when first needed. */
const actionSchemas = new Map<number, ReturnType<typeof actionFields>>();

function actionSchema(seats: number): ReturnType<typeof actionFields> {
  let schema = actionSchemas.get(seats);
  if (schema === undefined) {
    schema = actionFields(seats);
    actionSchemas.set(seats, schema);
  }
  return schema;
}

/** Reads action `where.action` of a round played at `seats` seats. */
export function readAction(raw: unknown, seats: number, where: Where & { action: number }): Step<CaseStep> {
  const at = `Action ${where.action}`;
  const parsed = actionSchema(seats).safeParse(raw);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    const problem = (message: string, code: ReplayErrorCode = 'INVALID_ACTION') => bad(code, message, where);
    if (issue.code === 'unrecognized_keys')
      return problem(`${at} has an unknown field "${issue.keys[0]}". ${ACTION_SHAPE}`);
    const field = issue.path[0];
    if (field === undefined) return problem(`${at} is not an object. ${ACTION_SHAPE}`);
    if (field === 'seat')
      return problem(`${at}: "seat" must be a whole number from 0 to ${seats - 1}.`, 'INVALID_SEAT');
    return problem(`${at}: "${String(field)}" can only be true.`);
  }
  return stepOf(parsed.data, at, where);
}

/** What a well-formed action means, or why its fields do not go together. */
function stepOf(fields: ActionFields, at: string, where: Where): Step<CaseStep> {
  const { seat, tile, end, draw, drawn, timeout, auto } = fields;
  if (timeout && auto) return bad('INVALID_ACTION', `${at} cannot be both a timeout and automatic.`, where);
  if (tile !== undefined && draw)
    return bad('INVALID_ACTION', `${at} is either a draw or has a tile, not both.`, where);
  if (drawn !== undefined && !draw) return bad('INVALID_ACTION', `${at}: only a draw has "drawn".`, where);
  if (end !== undefined && (tile === undefined || tile === null))
    return bad('INVALID_ACTION', `${at}: only a play (with a tile) names an end.`, where);
  let action: Action | undefined;
  if (draw) action = { type: 'draw', seat };
  else if (tile === null) action = { type: 'pass', seat };
  // The rules check the tile and the end themselves (INVALID_TILE, UNKNOWN_END).
  else if (tile !== undefined)
    action = { type: 'play', seat, tile: tile as Tile, ...(end !== undefined ? { end: end as string } : {}) };
  else if (!timeout) return bad('INVALID_ACTION', `${at} says nothing to do. ${ACTION_SHAPE}`, where);
  const by: ActionOrigin = timeout ? 'deadline' : auto ? 'auto' : 'player';
  return good({ seat, by, ...(action ? { action } : {}), ...(drawn !== undefined ? { drawn } : {}) });
}

// ---------------------------------------------------------------------------------------------
// Rounds

/** A round of a case: the deal (with its stock in draw order), an opener, actions, `complete`. */
export interface CaseRound {
  readonly deal: Deal;
  readonly opener?: number;
  /** Read one by one as the round is played (`readAction`). */
  readonly actions: readonly unknown[];
  readonly complete: boolean;
}

const wholeNumber = z.number().refine(Number.isInteger);
const SEATS_PROBLEM = '"seats" must be a whole number.';

/** The fields of a round, in the order they are checked. The draw and five-tile games need a stock (D1, F1). */
const roundShape = (drawsFromStock: boolean) => ({
  hands: z.array(z.unknown()),
  stock: drawsFromStock ? z.array(z.unknown()).nullable() : z.array(z.unknown()).nullish(),
  actions: z.array(z.unknown()).nullish(),
  complete: z.boolean().nullish(),
  opener: wholeNumber.optional(),
});

const ROUNDS = {
  line: z.strictObject(roundShape(false)),
  stock: z.strictObject(roundShape(true)),
};
/** A round case: the round's fields, then `seats`. */
const ROUND_CASES = {
  line: z.strictObject({ variant: z.unknown(), ...roundShape(false), seats: wholeNumber.optional() }),
  stock: z.strictObject({ variant: z.unknown(), ...roundShape(true), seats: wholeNumber.optional() }),
};

const schemaFor = <T>(variant: Variant, schemas: { line: T; stock: T }): T =>
  rulesOf(variant).drawsFromStock ? schemas.stock : schemas.line;

type RoundFields = z.infer<(typeof ROUNDS)['line']>;

/** A round's problem: `name` is "The case" or "Round r", `unknownIn` "a round case" or "round r". */
function roundProblem(
  issue: z.core.$ZodIssue,
  raw: unknown,
  names: { name: string; unknownIn: string },
  where: Where,
): Step<never> {
  const { name, unknownIn } = names;
  const problem = (message: string) => bad('INVALID_CASE', message, where);
  if (issue.code === 'unrecognized_keys') return problem(`Unknown field "${issue.keys[0]}" in ${unknownIn}.`);
  switch (issue.path[0]) {
    case undefined:
      return problem(`${name} must be an object.`);
    case 'hands':
      return problem(`${name} needs "hands": one array of tiles per seat, in seat order.`);
    case 'stock':
      return (raw as Record<string, unknown>).stock === undefined
        ? problem(`${name} needs "stock": the boneyard in draw order (D1, F1).`)
        : problem(`${name}: "stock" must be an array of tiles.`);
    case 'actions':
      return problem(`${name}: "actions" must be an array.`);
    case 'complete':
      return problem(`${name}: "complete" must be true or false.`);
    case 'opener':
      return problem(`${name}: "opener" must be a seat number.`);
    default:
      return problem(SEATS_PROBLEM);
  }
}

function caseRound(fields: RoundFields): CaseRound {
  return {
    // The rules check the deal: every hand, the whole set once (INVALID_DEAL, INVALID_TILE).
    deal: { hands: fields.hands as Tile[][], stock: (fields.stock ?? []) as Tile[] },
    ...(fields.opener !== undefined ? { opener: fields.opener } : {}),
    actions: fields.actions ?? [],
    complete: fields.complete ?? false,
  };
}

/** Reads round `where.round` of a match case. */
export function readRound(variant: Variant, raw: unknown, where: Where & { round: number }): Step<CaseRound> {
  const parsed = schemaFor(variant, ROUNDS).safeParse(raw);
  if (!parsed.success) {
    const names = { name: `Round ${where.round}`, unknownIn: `round ${where.round}` };
    return roundProblem(firstIssue(parsed.error), raw, names, where);
  }
  return good(caseRound(parsed.data));
}

// ---------------------------------------------------------------------------------------------
// Cases

/** A case, read: the match to create, and one round or the rounds of a match. */
export type Case =
  | { readonly kind: 'round'; readonly config: MatchConfigInput; readonly round: CaseRound }
  | { readonly kind: 'match'; readonly config: MatchConfigInput; readonly rounds: readonly unknown[] };

const VARIANT_LIST = VARIANTS.join(', ');
const CaseHead = z.looseObject({ variant: z.enum(VARIANTS) });
const MatchCase = z.strictObject({
  variant: z.unknown(),
  rounds: z.array(z.unknown()).min(1),
  seats: wholeNumber.optional(),
  // createMatch checks them (INVALID_TARGET, INVALID_CONFIG).
  target: z.unknown().optional(),
  oneRound: z.unknown().optional(),
});

/**
 * Seats come from the hands (or an explicit "seats", which must agree). A partnership table always
 * has 4 (P1), so there the deal check reports a wrong number of hands.
 */
function seatCount(variant: Variant, seats: number | undefined, hands: unknown): Step<number | undefined> {
  const rules = rulesOf(variant);
  const fromHands = Array.isArray(hands) && rules.minSeats !== rules.maxSeats ? hands.length : undefined;
  if (seats === undefined) return good(fromHands);
  if (fromHands !== undefined && fromHands !== seats) {
    return bad('INVALID_DEAL', `The case says ${seats} seats but deals ${fromHands} hands.`);
  }
  return good(seats);
}

const withSeats = (variant: Variant, seats: number | undefined): MatchConfigInput =>
  seats === undefined ? { variant } : { variant, seats };

/** Reads a case given as a parsed JSON value: a round `{"variant","hands",...}` or a match `{"variant","rounds"}`. */
export function readCase(input: unknown): Step<Case> {
  const head = CaseHead.safeParse(input);
  if (!head.success) {
    const record = input as Record<string, unknown>;
    if (firstIssue(head.error).path.length === 0) {
      return bad(
        'INVALID_CASE',
        'A case is a JSON object: a round {"variant","hands",...} or a match {"variant","rounds":[...]}.',
      );
    }
    return record.variant === undefined
      ? bad('INVALID_CASE', `A case needs "variant": one of ${VARIANT_LIST}.`)
      : bad('INVALID_CASE', `Unknown variant ${JSON.stringify(record.variant)}: use one of ${VARIANT_LIST}.`);
  }
  const variant = head.data.variant;
  if ('rounds' in head.data) {
    if ('hands' in head.data)
      return bad('INVALID_CASE', 'A case is a round ("hands") or a match ("rounds"), not both.');
    return readMatchCase(variant, input);
  }
  return readRoundCase(variant, input);
}

function readRoundCase(variant: Variant, input: unknown): Step<Case> {
  const parsed = schemaFor(variant, ROUND_CASES).safeParse(input);
  if (!parsed.success) {
    const names = { name: 'The case', unknownIn: 'a round case' };
    return roundProblem(firstIssue(parsed.error), input, names, {});
  }
  const seats = seatCount(variant, parsed.data.seats, parsed.data.hands);
  if (!seats.ok) return seats;
  return good({ kind: 'round', config: withSeats(variant, seats.value), round: caseRound(parsed.data) });
}

function readMatchCase(variant: Variant, input: unknown): Step<Case> {
  const parsed = MatchCase.safeParse(input);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    if (issue.code === 'unrecognized_keys')
      return bad('INVALID_CASE', `Unknown field "${issue.keys[0]}" in a match case.`);
    return issue.path[0] === 'seats'
      ? bad('INVALID_CASE', SEATS_PROBLEM)
      : bad('INVALID_CASE', 'A match case needs "rounds": a non-empty array of rounds.');
  }
  const { rounds, target, oneRound } = parsed.data;
  const first: unknown = rounds[0];
  const hands =
    typeof first === 'object' && first !== null ? (first as { hands?: unknown }).hands : undefined;
  const seats = seatCount(variant, parsed.data.seats, hands);
  if (!seats.ok) return seats;
  const config: MatchConfigInput = {
    ...withSeats(variant, seats.value),
    ...(target !== undefined ? { target: target as number } : {}),
    ...(oneRound !== undefined ? { oneRound: oneRound as boolean } : {}),
  };
  return good({ kind: 'match', config, rounds });
}

/** The issue reported: an unknown field first (it says the most about a misspelt case), else the first. */
function firstIssue(error: z.ZodError): z.core.$ZodIssue {
  const issues = error.issues;
  return (issues.find((issue) => issue.code === 'unrecognized_keys') ?? issues[0]) as z.core.$ZodIssue;
}

/**
 * A table's stored log (the `table_actions` rows of one match: `match-started`, `round-dealt`,
 * `action`, `round-ended`, …) as a match case of `npm run replay`, and the replay of it step by step.
 * The services store what the rules did; this reads it back through the rules alone, so a replay page
 * and `npm run replay` show the same match (issue 12, "Looking back").
 */
import type { Tile } from '../tiles';
import type { Action, ActionOrigin, MatchConfig, MatchState } from '../types';
import { caseAction, readCase } from './case-format';
import { matchOutput, type MatchOutput } from './output';
import { playCase } from './play';
import type { ReplayError } from './step';

/** One stored log row, as far as a replay reads it. */
export interface StoredLogRow {
  readonly kind: string;
  readonly payload: unknown;
}

/** A match case (examples/replay/README.md) built from a stored log; JSON, as `npm run replay` reads it. */
export interface StoredMatchCase {
  readonly variant: string;
  readonly seats: number;
  readonly target: number;
  readonly oneRound: boolean;
  readonly rounds: {
    hands: [number, number][][];
    stock: [number, number][];
    opener: number;
    actions: ReturnType<typeof caseAction>[];
    complete: boolean;
  }[];
}

const pair = (tile: Tile): [number, number] => [tile[0], tile[1]];

const field = (payload: unknown, name: string): unknown =>
  typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>)[name] : undefined;

/**
 * The rows of ONE match (in `seq` order) as a match case: each dealt round with its actions in case
 * notation (`timeout: true` for the table's deadline moves, `auto: true` for its automatic ones),
 * `complete` once a `round-ended` row closed it. Null when the rows hold no match start or no deal.
 */
export function matchCaseOfLog(rows: readonly StoredLogRow[]): StoredMatchCase | null {
  const started = rows.find((r) => r.kind === 'match-started');
  const config = field(started?.payload, 'config') as MatchConfig | undefined;
  if (!config) return null;
  const rounds: StoredMatchCase['rounds'] = [];
  for (const row of rows) {
    if (row.kind === 'round-dealt') {
      const p = row.payload as { hands: Tile[][]; stock: Tile[]; opener: number };
      const hands = p.hands.map((hand) => hand.map(pair));
      rounds.push({ hands, stock: p.stock.map(pair), opener: p.opener, actions: [], complete: false });
    }
    const round = rounds.at(-1);
    if (!round) continue;
    if (row.kind === 'round-ended') round.complete = true;
    if (row.kind === 'action') {
      const { action, by, drawn } = row.payload as { action: Action; by: ActionOrigin; drawn?: Tile };
      round.actions.push(caseAction({ ...action, by, ...(drawn ? { drawn } : {}) }));
    }
  }
  if (rounds.length === 0) return null;
  return {
    variant: config.variant,
    seats: config.seats,
    target: config.target,
    oneRound: config.oneRound,
    rounds,
  };
}

/** A replayed match: every state it passed through, per round (the deal first), and what it ended at. */
export interface ReplayTimeline {
  /** `rounds[r][0]` is round r just dealt; `rounds[r][i]` is after the round's i-th move. */
  readonly rounds: readonly (readonly MatchState[])[];
  readonly output: MatchOutput;
}

/**
 * Replays a match case (as `npm run replay` does: the same reading, the same loop), keeping each
 * state. Never throws: a case the rules refuse comes back as its error.
 */
export function replayTimeline(input: unknown): ReplayTimeline | ReplayError {
  const read = readCase(input);
  if (!read.ok) return { error: read.error };
  if (read.value.kind !== 'match')
    return { error: { code: 'INVALID_CASE', message: 'A replay timeline is of a match case.' } };
  const rounds: MatchState[][] = [];
  const played = playCase(read.value, (match) => {
    const dealt = match.round !== null && match.round.log.length === 0;
    if (dealt || rounds.length === 0) rounds.push([]);
    rounds.at(-1)!.push(match);
  });
  if (!played.ok) return { error: played.error };
  return { rounds, output: matchOutput(played.value) };
}

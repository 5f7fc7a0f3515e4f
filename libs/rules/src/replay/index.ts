/**
 * Replays: one case (a round or a match, given as JSON) in, one result out. Pure, no I/O: the
 * `npm run replay` command (cli/replay.ts) only feeds it lines. Players and operators use it to
 * check a disputed result; the services' tests use it to state expected outcomes.
 *
 * Three parts: the case format (`case-format.ts`: zod schemas, the action notation read into the
 * rules' `Action` and written back), the loop (`play.ts`), the output (`output.ts`).
 * A case never throws: anything malformed or illegal comes back as `{ error: { code, message } }`.
 */
import { readCase } from './case-format';
import { matchOutput, roundOutput, type MatchOutput, type RoundOutput } from './output';
import { playCase } from './play';
import type { ReplayError, Step } from './step';

export type { CaseAction } from './case-format';
export type {
  FinishedPartnershipRound,
  FinishedSoloRound,
  MatchOutput,
  MatchRoundOutput,
  RoundOutput,
  UnfinishedRound,
} from './output';
export type { ReplayError, ReplayErrorCode } from './step';
export {
  matchCaseOfLog,
  replayTimeline,
  type ReplayTimeline,
  type StoredLogRow,
  type StoredMatchCase,
} from './stored-log';

export type ReplayOutput = RoundOutput | MatchOutput | ReplayError;

/** Replays one case given as a parsed JSON value. Never throws. */
export function replayCase(input: unknown): ReplayOutput {
  try {
    const step = replaySteps(input);
    return step.ok ? step.value : { error: step.error };
  } catch (thrown) {
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    return { error: { code: 'INTERNAL_ERROR', message: `The replay failed unexpectedly: ${message}` } };
  }
}

function replaySteps(input: unknown): Step<ReplayOutput> {
  const read = readCase(input);
  if (!read.ok) return read;
  const played = playCase(read.value);
  if (!played.ok) return played;
  return {
    ok: true,
    value: read.value.kind === 'round' ? roundOutput(played.value) : matchOutput(played.value),
  };
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

/** The replay's errors, and the step type its parser and loop return instead of throwing. */
import type { RuleErrorCode } from '../errors';

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

/** Where in a case a problem is: the round of a match case, the action of a round. */
export interface Where {
  readonly round?: number;
  readonly action?: number;
}

type Fail = { -readonly [K in keyof ReplayError['error']]: ReplayError['error'][K] };
export type Step<T> = { ok: true; value: T } | { ok: false; error: Fail };

export const good = <T>(value: T): Step<T> => ({ ok: true, value });

export const bad = (code: ReplayErrorCode, message: string, where: Where = {}): Step<never> => ({
  ok: false,
  error: { code, message, ...where },
});

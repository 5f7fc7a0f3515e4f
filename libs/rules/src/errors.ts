/** Every way the rules refuse a configuration or an action. Codes are stable: clients and the protocol use them. */
export const RULE_ERROR_CODES = [
  'INVALID_CONFIG',
  'INVALID_SEAT_COUNT',
  'INVALID_TARGET',
  'INVALID_DEAL',
  'INVALID_ACTION',
  'INVALID_TILE',
  'INVALID_SEAT',
  'NO_ROUND_IN_PLAY',
  'ROUND_IN_PLAY',
  'MATCH_OVER',
  'NOT_YOUR_TURN',
  'TILE_NOT_IN_HAND',
  'MUST_OPEN_WITH_HIGHEST_DOUBLE',
  'UNKNOWN_END',
  'TILE_DOES_NOT_MATCH',
  'PASS_NOT_ALLOWED',
  'DRAW_NOT_ALLOWED',
  'MUST_DRAW',
] as const;

export type RuleErrorCode = (typeof RULE_ERROR_CODES)[number];

export interface RuleError {
  readonly code: RuleErrorCode;
  readonly message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: RuleError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(code: RuleErrorCode, message: string): Result<T> => ({
  ok: false,
  error: { code, message },
});

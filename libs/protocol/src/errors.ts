import { RULE_ERROR_CODES } from '@dominoes/rules';

/** Codes the gateway and the table-service add to the rules' own codes. */
export const PROTOCOL_ERROR_CODES = [
  'BAD_JSON',
  'FRAME_TOO_LARGE',
  /** An HTTP API body that is not `Content-Type: application/json` (415). */
  'UNSUPPORTED_MEDIA_TYPE',
  /** An HTTP API request from a browser page on an origin that is not allowed (403; ALLOWED_ORIGINS). */
  'FORBIDDEN_ORIGIN',
  'UNKNOWN_TYPE',
  'INVALID_MESSAGE',
  'RATE_LIMITED',
  'TOO_MANY_SOCKETS',
  'UNAUTHENTICATED',
  'TOKEN_INVALID',
  'TOKEN_EXPIRED',
  'ALREADY_AUTHENTICATED',
  'TABLE_NOT_FOUND',
  /** A `create` for a table code that exists: the gateway draws another code (never sent to a browser). */
  'TABLE_CODE_TAKEN',
  'TABLE_FULL',
  /** A waiting table that nobody filled in time was closed (WAITING_TABLE_TTL_MS). */
  'TABLE_CLOSED',
  /** The host already has MAX_OPEN_TABLES_PER_HOST tables that are not finished or closed. */
  'TOO_MANY_TABLES',
  'NOT_SEATED',
  /** A text message at a table whose host turned text chat off (quick phrases and reactions stay). */
  'CHAT_OFF',
  /** More chat messages than CHAT_RATE_MESSAGES per CHAT_RATE_WINDOW_MS from one player, on all gateways: not delivered. */
  'CHAT_RATE_LIMITED',
  /** An action (a move, a join's seat intents, ...) from a socket that watches a table: spectators cannot act. */
  'SPECTATORS_CANNOT_ACT',
  /** The table has MAX_WATCHERS_PER_TABLE watchers already. */
  'TOO_MANY_WATCHERS',
  'ALREADY_SEATED',
  'NOT_HOST',
  'MATCH_NOT_OVER',
  /** A replay (GET /api/replays/:matchId) of a match that is not stored. */
  'MATCH_NOT_FOUND',
  'NOT_ALLOWED_NOW',
  'UNAVAILABLE',
  /** The intent reached the table-service after its expiry (`expiresAt`): it was not applied. */
  'INTENT_EXPIRED',
  'INTERNAL',
] as const;

export const ERROR_CODES = [...PROTOCOL_ERROR_CODES, ...RULE_ERROR_CODES] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorBody {
  readonly code: ErrorCode;
  readonly message: string;
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { PlayerNameSchema } from '@dominoes/protocol';

/**
 * Player tokens: `base64url(JSON {pid, name, iat, exp}) + "." + base64url(HMAC-SHA256(secret, first part))`.
 * Self-contained, so any gateway replica checks them without a lookup, and a reconnect with the same
 * token returns the player to the same seat. `iat`/`exp` are in seconds since the epoch.
 */
export interface TokenClaims {
  readonly pid: string;
  readonly name: string;
  readonly iat: number;
  readonly exp: number;
}

export const TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
const MAX_TOKEN_LENGTH = 2048;

export type TokenCheck =
  | { readonly ok: true; readonly claims: TokenClaims }
  | { readonly ok: false; readonly code: 'TOKEN_INVALID' | 'TOKEN_EXPIRED'; readonly message: string };

/** What a token may carry: exactly what POST /api/identity puts in one, names checked as a display name. */
const ClaimsSchema = z
  .object({
    pid: z.uuid(),
    name: z.string(),
    iat: z.number().int().nonnegative(),
    exp: z.number().int().nonnegative(),
  })
  .strict()
  .refine((claims) => claims.exp > claims.iat, 'exp must be after iat')
  // The name as issued: it passes the display-name schema and is already in its checked form.
  .refine((claims) => PlayerNameSchema.safeParse(claims.name).data === claims.name, 'a bad name');

/** The one accepted spelling of a SHA-256 HMAC in base64url: 43 characters, no padding. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

const mac = (secret: string, body: string): Buffer => createHmac('sha256', secret).update(body).digest();

export function signToken(
  player: { readonly pid: string; readonly name: string },
  secret: string,
  nowMs: number,
  ttlSeconds = TOKEN_TTL_SECONDS,
): string {
  const iat = Math.floor(nowMs / 1000);
  const claims: TokenClaims = { pid: player.pid, name: player.name, iat, exp: iat + ttlSeconds };
  const body = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
  return `${body}.${mac(secret, body).toString('base64url')}`;
}

const invalid = (message: string): TokenCheck => ({ ok: false, code: 'TOKEN_INVALID', message });

/** Never throws: any string gives a typed answer. The signature is compared in constant time. */
export function verifyToken(token: unknown, secret: string, nowMs: number): TokenCheck {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
    return invalid('The token is missing or malformed.');
  }
  const parts = token.split('.');
  if (parts.length !== 2 || !/^[A-Za-z0-9_-]+$/.test(parts[0]!) || !/^[A-Za-z0-9_-]+$/.test(parts[1]!)) {
    return invalid('The token is malformed.');
  }
  const [body, signature] = parts as [string, string];
  // The received text is compared with the canonical encoding, not decoded: base64url decoding
  // ignores the unused low bits of the last character, so 4 spellings would decode to one HMAC.
  if (!SIGNATURE.test(signature)) return invalid('The token was not issued by this server.');
  const expected = Buffer.from(mac(secret, body).toString('base64url'), 'latin1');
  if (!timingSafeEqual(Buffer.from(signature, 'latin1'), expected)) {
    return invalid('The token was not issued by this server.');
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return invalid('The token is malformed.');
  }
  const claims = ClaimsSchema.safeParse(json);
  if (!claims.success) return invalid('The token is malformed.');
  if (claims.data.exp * 1000 <= nowMs) {
    return {
      ok: false,
      code: 'TOKEN_EXPIRED',
      message: 'The token has expired; ask for a new one (POST /api/identity).',
    };
  }
  return { ok: true, claims: claims.data };
}

import { ApiError } from '../http/errors';
import { verifyToken } from './tokens';

/** The player of an `Authorization: Bearer <token>` header, or a 401 ApiError saying what is wrong. */
export function playerOfBearer(
  authorization: string | undefined,
  secret: string,
  nowMs: number,
): { id: string; name: string } {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  if (!match)
    throw new ApiError(401, 'UNAUTHENTICATED', 'Send your token as "Authorization: Bearer <token>".');
  const check = verifyToken(match[1], secret, nowMs);
  if (!check.ok) throw new ApiError(401, check.code, check.message);
  return { id: check.claims.pid, name: check.claims.name };
}

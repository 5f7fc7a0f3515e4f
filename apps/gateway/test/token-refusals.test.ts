import { createHmac } from 'node:crypto';
import { signToken, verifyToken } from '../src/auth/tokens';

/**
 * What each refusal of a token says (the mutation run's survivors in tokens.ts, docs/testing.md): the
 * code and the message the client is shown, for each check in its order, including the boundaries
 * of the size limit and of the claims' instants.
 */
const SECRET = 'unit-test-secret-0123456789abcdef';
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const player = { pid: '6f1c2a8e-0d1b-4c55-9a3e-2b7d9f0e1a22', name: 'Ana' };

const sign = (body: string) => `${body}.${createHmac('sha256', SECRET).update(body).digest('base64url')}`;
const claimsToken = (claims: unknown) =>
  sign(Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url'));

const MISSING = { ok: false, code: 'TOKEN_INVALID', message: 'The token is missing or malformed.' };
const MALFORMED = { ok: false, code: 'TOKEN_INVALID', message: 'The token is malformed.' };
const FOREIGN = { ok: false, code: 'TOKEN_INVALID', message: 'The token was not issued by this server.' };

describe('each refusal of a token says why', () => {
  it('no token, an empty one or one over 2,048 characters: "missing or malformed"', () => {
    for (const token of [undefined, null, 42, '']) expect(verifyToken(token, SECRET, NOW)).toEqual(MISSING);
    expect(verifyToken('a'.repeat(2049), SECRET, NOW)).toEqual(MISSING);
  });

  it('a token of exactly 2,048 characters is read (its parts are checked, not its size)', () => {
    // 2,048 characters: a correctly signed body of 2,004 characters, a dot and 43 of signature.
    const token = sign('A'.repeat(2004));
    expect(token).toHaveLength(2048);
    expect(verifyToken(token, SECRET, NOW)).toEqual(MALFORMED);
  });

  it('not two base64url parts: "malformed"', () => {
    const good = signToken(player, SECRET, NOW);
    const [body, signature] = good.split('.') as [string, string];
    for (const token of [
      body,
      `${good}.x`,
      `${body}.`,
      `.${signature}`,
      `${body}!.${signature}`,
      `${body}.${signature}=`,
    ])
      expect(verifyToken(token, SECRET, NOW)).toEqual(MALFORMED);
  });

  it('a signature of another length or another secret: "not issued by this server"', () => {
    const good = signToken(player, SECRET, NOW);
    expect(verifyToken(good.slice(0, -1), SECRET, NOW)).toEqual(FOREIGN);
    expect(verifyToken(`${good}A`, SECRET, NOW)).toEqual(FOREIGN);
    expect(verifyToken(good, 'another-secret-0123456789abcdef', NOW)).toEqual(FOREIGN);
  });

  it('a correctly signed body that is not JSON, or not the claims: "malformed"', () => {
    expect(verifyToken(sign(Buffer.from('{not json').toString('base64url')), SECRET, NOW)).toEqual(MALFORMED);
    expect(verifyToken(claimsToken({ pid: player.pid }), SECRET, NOW)).toEqual(MALFORMED);
  });

  it('claims whose exp is not after iat are refused, even read before iat', () => {
    const iat = NOW / 1000 + 100;
    expect(verifyToken(claimsToken({ ...player, iat, exp: iat }), SECRET, NOW)).toEqual(MALFORMED);
    expect(verifyToken(claimsToken({ ...player, iat, exp: iat + 1 }), SECRET, NOW)).toMatchObject({
      ok: true,
    });
  });

  it('an expired token says so and how to get a new one', () => {
    const token = signToken(player, SECRET, NOW, 60);
    expect(verifyToken(token, SECRET, NOW + 60_000)).toEqual({
      ok: false,
      code: 'TOKEN_EXPIRED',
      message: 'The token has expired; ask for a new one (POST /api/identity).',
    });
  });
});

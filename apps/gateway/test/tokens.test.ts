import { signToken, TOKEN_TTL_SECONDS, verifyToken } from '../src/auth/tokens';

const SECRET = 'unit-test-secret-0123456789abcdef';
const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const player = { pid: '6f1c2a8e-0d1b-4c55-9a3e-2b7d9f0e1a22', name: 'Ana' };

describe('player tokens', () => {
  it('a signed token verifies and carries the player, issued now, valid for 30 days', () => {
    const token = signToken(player, SECRET, NOW);
    const check = verifyToken(token, SECRET, NOW + 1000);
    expect(check).toEqual({
      ok: true,
      claims: { pid: player.pid, name: 'Ana', iat: NOW / 1000, exp: NOW / 1000 + TOKEN_TTL_SECONDS },
    });
    expect(TOKEN_TTL_SECONDS).toBe(30 * 24 * 3600);
    // The format: base64url(JSON).base64url(HMAC-SHA256)
    const [body, mac] = token.split('.');
    expect(JSON.parse(Buffer.from(body!, 'base64url').toString())).toMatchObject({
      pid: player.pid,
      name: 'Ana',
    });
    expect(Buffer.from(mac!, 'base64url')).toHaveLength(32);
  });

  it('is still valid one second before it expires, and TOKEN_EXPIRED at expiry', () => {
    const token = signToken(player, SECRET, NOW);
    const expiry = NOW + TOKEN_TTL_SECONDS * 1000;
    expect(verifyToken(token, SECRET, expiry - 1000).ok).toBe(true);
    expect(verifyToken(token, SECRET, expiry)).toMatchObject({ ok: false, code: 'TOKEN_EXPIRED' });
    expect(verifyToken(signToken(player, SECRET, NOW, 60), SECRET, NOW + 61_000)).toMatchObject({
      ok: false,
      code: 'TOKEN_EXPIRED',
    });
  });

  it('a token signed with another secret is TOKEN_INVALID', () => {
    const token = signToken(player, 'another-secret-0123456789abcdef', NOW);
    expect(verifyToken(token, SECRET, NOW)).toMatchObject({ ok: false, code: 'TOKEN_INVALID' });
  });

  it('a forged payload (name or player changed, signature kept) is TOKEN_INVALID', () => {
    const token = signToken(player, SECRET, NOW);
    const [, mac] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ pid: 'someone-else', name: 'Ana', iat: NOW / 1000, exp: NOW / 1000 + 99 }),
    ).toString('base64url');
    expect(verifyToken(`${forged}.${mac}`, SECRET, NOW)).toMatchObject({ ok: false, code: 'TOKEN_INVALID' });
    // An expired token cannot be made young again by editing exp either.
    const old = signToken(player, SECRET, NOW - 40 * 24 * 3600 * 1000);
    const [oldBody, oldMac] = old.split('.');
    const claims = JSON.parse(Buffer.from(oldBody!, 'base64url').toString());
    const extended = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 90 * 24 * 3600 })).toString(
      'base64url',
    );
    expect(verifyToken(`${extended}.${oldMac}`, SECRET, NOW)).toMatchObject({
      ok: false,
      code: 'TOKEN_INVALID',
    });
  });

  it.each([
    ['empty', ''],
    ['no dot', 'abc'],
    ['three parts', 'a.b.c'],
    ['not base64url', 'a+b.c/d'],
    ['short signature', `${Buffer.from('{}').toString('base64url')}.AAAA`],
    ['too long', 'a'.repeat(5000)],
    ['not a string', 42],
  ])('garbage (%s) is TOKEN_INVALID and never throws', (_label, token) => {
    expect(verifyToken(token, SECRET, NOW)).toMatchObject({ ok: false, code: 'TOKEN_INVALID' });
  });

  it('a correctly signed body that is not the claims shape is TOKEN_INVALID', () => {
    const { createHmac } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    for (const payload of [
      'not json',
      JSON.stringify({ pid: 1 }),
      JSON.stringify({ ...player, iat: 1, exp: 2, admin: true }),
    ]) {
      const body = Buffer.from(payload).toString('base64url');
      const mac = createHmac('sha256', SECRET).update(body).digest('base64url');
      expect(verifyToken(`${body}.${mac}`, SECRET, NOW)).toMatchObject({ ok: false, code: 'TOKEN_INVALID' });
    }
  });
});

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

  describe('a signature has exactly one accepted spelling', () => {
    const token = signToken(player, SECRET, NOW);
    const [body, signature] = token.split('.') as [string, string];
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

    it('the canonical token verifies; its signature is 43 base64url characters', () => {
      expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(verifyToken(token, SECRET, NOW).ok).toBe(true);
    });

    it('the 3 other spellings of the last character (same bytes once decoded) are refused', () => {
      // 32 bytes = 42 full characters + one carrying 4 bits: its 2 low bits are unused by the decoder.
      const last = ALPHABET.indexOf(signature[42]!);
      const twins = [1, 2, 3].map(
        (low) => `${signature.slice(0, 42)}${ALPHABET[(last & ~3) | ((last + low) & 3)]}`,
      );
      for (const twin of twins) {
        expect(Buffer.from(twin, 'base64url').equals(Buffer.from(signature, 'base64url'))).toBe(true);
        expect(verifyToken(`${body}.${twin}`, SECRET, NOW)).toMatchObject({
          ok: false,
          code: 'TOKEN_INVALID',
        });
      }
    });

    it.each([
      ['truncated by one character', signature.slice(0, 42)],
      ['truncated to 40 characters', signature.slice(0, 40)],
      ['with padding', `${signature}=`],
      ['one character longer', `${signature}A`],
      ['in standard base64', Buffer.from(signature, 'base64url').toString('base64')],
      [
        'with one byte changed',
        (() => {
          const bytes = Buffer.from(signature, 'base64url');
          bytes[7] = bytes[7]! ^ 0x01;
          return bytes.toString('base64url');
        })(),
      ],
      ['empty', ''],
    ])('a signature %s is TOKEN_INVALID', (_label, altered) => {
      expect(altered).not.toBe(signature);
      expect(verifyToken(`${body}.${altered}`, SECRET, NOW)).toMatchObject({
        ok: false,
        code: 'TOKEN_INVALID',
      });
    });
  });

  describe('claims are checked like the identity that issued them', () => {
    const { createHmac } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const signed = (claims: Record<string, unknown>) => {
      const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
      return `${body}.${createHmac('sha256', SECRET).update(body).digest('base64url')}`;
    };
    const good = { pid: player.pid, name: 'Ana', iat: NOW / 1000, exp: NOW / 1000 + 60 };

    it('correctly signed good claims verify (so the refusals below are about the claims)', () => {
      expect(verifyToken(signed(good), SECRET, NOW)).toEqual({ ok: true, claims: good });
    });

    it.each([
      ['a pid that is not a UUID', { ...good, pid: 'someone' }],
      ['a name with a control character', { ...good, name: 'A\u0007na' }],
      ['an empty name', { ...good, name: '' }],
      ['a name of 25 characters', { ...good, name: 'x'.repeat(25) }],
      ['a name with spaces around it (never issued so)', { ...good, name: ' Ana ' }],
      ['a name that is not a string', { ...good, name: 7 }],
      ['iat as a string', { ...good, iat: String(good.iat) }],
      ['exp as a string', { ...good, exp: String(good.exp) }],
      ['a fractional exp', { ...good, exp: good.exp + 0.5 }],
      ['exp before iat', { ...good, exp: good.iat - 1 }],
      ['a negative iat', { ...good, iat: -1 }],
      ['a missing pid', { name: 'Ana', iat: good.iat, exp: good.exp }],
    ])('%s is TOKEN_INVALID', (_label, claims) => {
      expect(verifyToken(signed(claims), SECRET, NOW)).toMatchObject({ ok: false, code: 'TOKEN_INVALID' });
    });
  });
});

import { createHmac } from 'node:crypto';
import { signToken, verifyToken } from '../src/auth/tokens';
import { clientAddress, normaliseAddress } from '../src/edge/client-address';
import { originOf } from '../src/edge/origin-policy';
import { TrustedProxies } from '../src/edge/trusted-proxies';

/**
 * The edge's checks at their boundaries (the mutation run's survivors in tokens.ts,
 * client-address.ts, origin-policy.ts and trusted-proxies.ts, docs/testing.md): a character outside
 * base64url anywhere in a token's parts, addresses that only look like an IPv4 one, CIDR prefixes
 * written in other ways, and what a refused origin says.
 */
const SECRET = 'unit-test-secret-0123456789abcdef';
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const player = { pid: '6f1c2a8e-0d1b-4c55-9a3e-2b7d9f0e1a22', name: 'Ana' };
const sign = (body: string) => `${body}.${createHmac('sha256', SECRET).update(body).digest('base64url')}`;

describe('a token part with a character outside base64url, wherever it is', () => {
  const [body, signature] = signToken(player, SECRET, NOW).split('.') as [string, string];

  it('at the start of a correctly signed body: malformed (decoding would skip it and accept the claims)', () => {
    expect(verifyToken(sign(`!${body}`), SECRET, NOW)).toEqual({
      ok: false,
      code: 'TOKEN_INVALID',
      message: 'The token is malformed.',
    });
    expect(verifyToken(sign(body), SECRET, NOW)).toMatchObject({ ok: true });
  });

  it('at the start of the signature: malformed, before the signature is compared', () => {
    expect(verifyToken(`${body}.!${signature.slice(1)}`, SECRET, NOW)).toEqual({
      ok: false,
      code: 'TOKEN_INVALID',
      message: 'The token is malformed.',
    });
  });
});

describe('addresses that only look like IPv4', () => {
  const proxies = new Set(['10.0.0.1']);

  it('a hop with text before an IPv4 address is garbage, not that address', () => {
    expect(clientAddress('10.0.0.1', 'abcdefg203.0.113.7', proxies)).toBe('10.0.0.1');
    expect(normaliseAddress('abcdefg203.0.113.7')).toBe('abcdefg203.0.113.7');
  });

  it('only an IPv4-mapped address loses its ::ffff: prefix', () => {
    expect(normaliseAddress('::ffff:1:2')).toBe('::ffff:1:2');
    expect(normaliseAddress('::FFFF:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddress('10.0.0.1', '::ffff:1:2', proxies)).toBe('::ffff:1:2');
  });
});

describe('TRUSTED_PROXIES prefixes', () => {
  it('a prefix up to the family\u2019s length is a range: /32 and /0 for IPv4, /64 and /128 for IPv6', () => {
    const proxies = new TrustedProxies(['10.0.0.5/32', 'fd00::/64', '2001:db8::1/128']);
    expect(proxies.has('10.0.0.5')).toBe(true);
    expect(proxies.has('10.0.0.6')).toBe(false);
    expect(proxies.has('fd00::1234')).toBe(true);
    expect(proxies.has('fd00:0:0:1::1')).toBe(false);
    expect(proxies.has('2001:db8::1')).toBe(true);
    expect(new TrustedProxies(['0.0.0.0/0']).has('198.51.100.1')).toBe(true);
  });

  it.each([
    '10.0.0.0/x8',
    '10.0.0.0/8x',
    '10.0.0.0/33',
    'fd00::/129',
    '10.0.0.0/',
    '10.0.0.0/+8',
    '10.0.0.0/1/2',
  ])('%s is refused with the entry named', (entry) => {
    expect(() => new TrustedProxies([entry])).toThrow(`not an IP address or CIDR range: "${entry}"`);
  });
});

describe('an origin', () => {
  it('that is not http(s) is refused, naming the URL', () => {
    expect(() => originOf('ftp://dominoes.example')).toThrow(
      'an origin is http or https; got "ftp://dominoes.example"',
    );
  });
});

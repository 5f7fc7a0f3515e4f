import { clientAddress, normaliseAddress } from '../src/edge/client-address';
import { originAllowed, originOf } from '../src/edge/origin-policy';

describe('clientAddress: X-Forwarded-For only from trusted proxies', () => {
  const none = new Set<string>();
  const proxies = new Set(['10.0.0.1', '10.0.0.2']);

  it('with no trusted proxy the header is ignored: the peer is the client', () => {
    expect(clientAddress('198.51.100.9', '203.0.113.7', none)).toBe('198.51.100.9');
  });

  it('from a peer that is not a trusted proxy the header is ignored', () => {
    expect(clientAddress('198.51.100.9', '203.0.113.7', proxies)).toBe('198.51.100.9');
  });

  it('from a trusted proxy the header is read from the right, skipping trusted hops', () => {
    expect(clientAddress('10.0.0.1', '203.0.113.7', proxies)).toBe('203.0.113.7');
    // A client can write anything on the left: the first untrusted hop from the right wins.
    expect(clientAddress('10.0.0.1', '1.2.3.4, 203.0.113.7, 10.0.0.2', proxies)).toBe('203.0.113.7');
    expect(clientAddress('10.0.0.1', ['1.2.3.4', '203.0.113.7'], proxies)).toBe('203.0.113.7');
  });

  it('garbage in the header is skipped; a header of trusted hops only gives the leftmost', () => {
    expect(clientAddress('10.0.0.1', 'not-an-ip, 203.0.113.7, <script>', proxies)).toBe('203.0.113.7');
    expect(clientAddress('10.0.0.1', '10.0.0.2, 10.0.0.1', proxies)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.1', 'junk', proxies)).toBe('10.0.0.1');
    expect(clientAddress('10.0.0.1', undefined, proxies)).toBe('10.0.0.1');
  });

  it('IPv4-mapped IPv6 is the same client; no peer is the empty address', () => {
    expect(clientAddress('::ffff:198.51.100.9', undefined, none)).toBe('198.51.100.9');
    expect(clientAddress('::ffff:10.0.0.1', '::ffff:203.0.113.7', proxies)).toBe('203.0.113.7');
    expect(normaliseAddress('2001:DB8::1')).toBe('2001:db8::1');
    expect(clientAddress(undefined, '203.0.113.7', proxies)).toBe('');
  });
});

describe('originAllowed: browser origins of PUBLIC_URL and ALLOWED_ORIGINS', () => {
  const allowed = ['https://dominoes.example', 'http://localhost:8080'];

  it('an allowed origin passes, in any letter case', () => {
    expect(originAllowed('https://dominoes.example', allowed)).toBe(true);
    expect(originAllowed('HTTPS://Dominoes.Example', allowed)).toBe(true);
    expect(originAllowed('http://localhost:8080', allowed)).toBe(true);
  });

  it('another origin, scheme or port is refused', () => {
    expect(originAllowed('https://evil.example', allowed)).toBe(false);
    expect(originAllowed('http://dominoes.example', allowed)).toBe(false);
    expect(originAllowed('http://localhost:8081', allowed)).toBe(false);
    expect(originAllowed('https://dominoes.example.evil.example', allowed)).toBe(false);
    expect(originAllowed('null', allowed)).toBe(false);
  });

  it('no Origin (not a browser page) passes', () => {
    expect(originAllowed(undefined, allowed)).toBe(true);
    expect(originAllowed('', allowed)).toBe(true);
  });

  it('originOf keeps scheme, host and port only, and refuses what is not http(s)', () => {
    expect(originOf('https://Dominoes.Example:443/play?x=1')).toBe('https://dominoes.example');
    expect(originOf('http://localhost:8080/')).toBe('http://localhost:8080');
    expect(() => originOf('ftp://dominoes.example')).toThrow();
    expect(() => originOf('not a url')).toThrow();
  });
});

import { clientAddress } from '../src/edge/client-address';
import { TrustedProxies } from '../src/edge/trusted-proxies';
import { readGatewayConfig } from '../src/config';

const config = (value: string) => readGatewayConfig({ TRUSTED_PROXIES: value, TOKEN_SECRET: 'x'.repeat(40) });

describe('TRUSTED_PROXIES: addresses and CIDR ranges', () => {
  it('a range trusts every address in it (an Ingress controller pod whose address changes)', () => {
    const proxies = config('10.42.0.0/16, 192.0.2.7, fd00:1::/32').trustedProxies;
    expect(proxies.size).toBe(3);
    for (const inside of ['10.42.0.1', '10.42.255.254', '::ffff:10.42.3.4', '192.0.2.7', 'fd00:1:2::9']) {
      expect({ inside, trusted: proxies.has(inside) }).toEqual({ inside, trusted: true });
    }
    for (const outside of ['10.43.0.1', '192.0.2.8', 'fd00:2::1', '2001:db8::1', '', 'not-an-ip']) {
      expect({ outside, trusted: proxies.has(outside) }).toEqual({ outside, trusted: false });
    }
  });

  it('behind a trusted range the forwarded client is the address; from elsewhere the header is ignored', () => {
    const proxies = config('10.42.0.0/16').trustedProxies;
    expect(clientAddress('10.42.7.9', '198.51.100.4', proxies)).toBe('198.51.100.4');
    // Hops inside the range are skipped from the right.
    expect(clientAddress('10.42.7.9', '203.0.113.9, 198.51.100.4, 10.42.1.1', proxies)).toBe('198.51.100.4');
    expect(clientAddress('198.51.100.77', '203.0.113.1', proxies)).toBe('198.51.100.77');
  });

  it('none configured: nothing is trusted', () => {
    const proxies = config('').trustedProxies;
    expect(proxies.size).toBe(0);
    expect(clientAddress('10.42.7.9', '198.51.100.4', proxies)).toBe('10.42.7.9');
  });

  it.each(['10.0.0.0/33', 'fd00::/129', '10.0.0.0/x', '10.0.0.0/8/1', 'example.com', '10.0.0.256', '/8'])(
    'refuses %p at start with a message naming TRUSTED_PROXIES',
    (entry) => {
      expect(() => config(entry)).toThrow(/TRUSTED_PROXIES holds IP addresses and CIDR ranges/);
      expect(() => new TrustedProxies([entry])).toThrow(/not an IP address or CIDR range/);
    },
  );
});

import { BlockList, isIP } from 'node:net';
import { normaliseAddress } from './client-address';

/** What clientAddress asks of the trusted proxies: a plain Set of addresses is one. */
export interface ProxyMatcher {
  readonly size: number;
  has(address: string): boolean;
}

/**
 * TRUSTED_PROXIES: addresses and CIDR ranges (`10.0.0.5`, `10.42.0.0/16`, `fd00::/8`). Behind a
 * Kubernetes Ingress the peer is an ingress-controller pod whose address changes with every restart,
 * so its pod range is what can be listed.
 */
export class TrustedProxies implements ProxyMatcher {
  private readonly list = new BlockList();
  readonly size: number;

  /** Throws on an entry that is neither an IP address nor a CIDR range. */
  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address = '', prefix, extra] = entry.split('/');
      const ip = normaliseAddress(address);
      const family = isIP(ip);
      if (family === 0 || extra !== undefined) throw new Error(`not an IP address or CIDR range: "${entry}"`);
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) {
        this.list.addAddress(ip, type);
        continue;
      }
      const bits = Number(prefix);
      if (!/^\d{1,3}$/.test(prefix) || bits > (family === 4 ? 32 : 128)) {
        throw new Error(`not an IP address or CIDR range: "${entry}"`);
      }
      this.list.addSubnet(ip, bits, type);
    }
    this.size = entries.length;
  }

  has(address: string): boolean {
    const ip = normaliseAddress(address);
    const family = isIP(ip);
    if (family === 0) return false;
    return this.list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
  }
}

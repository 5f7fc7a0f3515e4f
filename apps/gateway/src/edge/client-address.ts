import { isIP } from 'node:net';
import type { ProxyMatcher } from './trusted-proxies';

/**
 * The address a request or upgrade comes from, for per-client limits.
 *
 * `X-Forwarded-For` is anyone's to write, so it is believed only when the peer that sent it is
 * one of the configured trusted proxies (TRUSTED_PROXIES). The header is then read from the right:
 * each trusted hop is skipped, and the first address that is not a trusted proxy is the client.
 * With no trusted proxy configured the header is ignored and the socket's own address is used.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxies: ProxyMatcher,
): string {
  const direct = normaliseAddress(peer ?? '');
  if (trustedProxies.size === 0 || !trustedProxies.has(direct)) return direct;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '');
  const hops = header
    .split(',')
    .map((hop) => normaliseAddress(hop.trim()))
    .filter((hop) => isIP(hop) !== 0);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] as string;
    if (!trustedProxies.has(hop)) return hop;
  }
  return hops[0] ?? direct;
}

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client. */
export function normaliseAddress(address: string): string {
  const lower = address.toLowerCase();
  return lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4 ? lower.slice(7) : lower;
}

/**
 * Which browser origins may use the HTTP API and open a WebSocket: the origin of PUBLIC_URL and
 * any listed in ALLOWED_ORIGINS. A request without an `Origin` header is not from a page in a
 * browser (browsers always send one on a WebSocket upgrade and on a cross-site POST), so it cannot
 * be a cross-site request riding on a player's browser; it is let through, and the token still decides.
 */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined || origin === '') return true;
  return allowed.includes(origin.toLowerCase());
}

/** `https://Example.com:443/path` → `https://example.com`; throws on what is not an http(s) URL. */
export function originOf(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`an origin is http or https; got "${url}"`);
  }
  return parsed.origin.toLowerCase();
}

import type { IncomingMessage, ServerResponse } from 'node:http';

type Next = (error?: unknown) => void;

/** `http://a.example` → `ws://a.example`, `https://…` → `wss://…`. */
const socketOrigin = (origin: string): string => origin.replace(/^http/, 'ws');

/**
 * The page's Content-Security-Policy. The built client (apps/web/dist) is one module script and one
 * stylesheet from /assets, no inline script or style element, SVG icons as files or data: URLs; React
 * sets styles through the DOM (element.style), which style-src does not govern. The socket is
 * same-origin ('self' covers ws: in CSP 3; the ws(s) origins are listed for browsers that predate it).
 */
export function contentSecurityPolicy(allowedOrigins: readonly string[]): string {
  const sockets = allowedOrigins.map(socketOrigin);
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src 'self' ${sockets.join(' ')}`.trim(),
    "img-src 'self' data:",
    "font-src 'self'",
    "manifest-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

/**
 * Sets the security headers on every HTTP response of the gateway: the page, its assets, the API and
 * the errors. Registered first, so nothing answers before it.
 */
export function securityHeaders(allowedOrigins: readonly string[]) {
  const headers: [string, string][] = [
    ['Content-Security-Policy', contentSecurityPolicy(allowedOrigins)],
    ['X-Content-Type-Options', 'nosniff'],
    ['Referrer-Policy', 'no-referrer'],
    ['X-Frame-Options', 'DENY'],
    ['Cross-Origin-Opener-Policy', 'same-origin'],
    ['Cross-Origin-Resource-Policy', 'same-origin'],
  ];
  return (_req: IncomingMessage, res: ServerResponse, next: Next): void => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { originAllowed } from '../edge/origin-policy';
import { errorBody, sendJson } from './errors';

type Next = (error?: unknown) => void;

/**
 * The HTTP API (`/api/...`) answers only pages of the allowed origins (PUBLIC_URL's and
 * ALLOWED_ORIGINS): a request whose `Origin` is another site's gets 403 FORBIDDEN_ORIGIN before any
 * handler runs, so a page elsewhere cannot make a player's browser call the API. Requests without
 * `Origin` (not from a browser page) go through; their token still decides.
 */
export function apiOrigin(allowedOrigins: readonly string[]) {
  return (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    const path = req.url ?? '/';
    if (path !== '/api' && !path.startsWith('/api/') && !path.startsWith('/api?')) {
      next();
      return;
    }
    const origin = req.headers.origin;
    if (originAllowed(origin, allowedOrigins)) {
      next();
      return;
    }
    req.resume();
    sendJson(
      res,
      403,
      errorBody('FORBIDDEN_ORIGIN', `Requests from ${String(origin).slice(0, 100)} may not use this API.`),
    );
  };
}

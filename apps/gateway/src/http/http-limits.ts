import type { IncomingMessage } from 'node:http';
import { clientAddress } from '../edge/client-address';
import type { LimitedAction, RateLimiter } from '../edge/rate-limiter';
import type { ProxyMatcher } from '../edge/trusted-proxies';
import type { GatewayMetrics } from '../metrics';
import { ApiError } from './errors';

const WHAT: Record<LimitedAction, string> = {
  identity: 'new identities',
  table: 'new tables',
  'lookup-miss': 'lookups of tables that do not exist',
  'quick-play': 'quick play requests',
};

/** The HTTP API's per-address limits: which address a request is from, and the 429 it gets. */
export class HttpLimits {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly trustedProxies: ProxyMatcher,
    private readonly metrics: GatewayMetrics,
  ) {}

  addressOf(req: IncomingMessage): string {
    return clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.trustedProxies);
  }

  /** Counts one `action` from the request's address; throws 429 RATE_LIMITED when over the limit. */
  async take(action: LimitedAction, address: string): Promise<void> {
    const outcome = await this.limiter.hit(action, address);
    if (outcome.allowed) {
      if (outcome.degraded) this.metrics.httpLimits.inc({ action, outcome: 'unchecked' });
      return;
    }
    this.metrics.httpLimits.inc({ action, outcome: 'limited' });
    throw new ApiError(
      429,
      'RATE_LIMITED',
      `Too many ${WHAT[action]} from your address; try again in ${outcome.retryAfterSeconds} s.`,
      { 'retry-after': String(outcome.retryAfterSeconds) },
    );
  }

  /** Gives back one `action` that turned out not to count (a lookup that found its table). */
  refund(action: LimitedAction, address: string): Promise<void> {
    return this.limiter.refund(action, address);
  }

  /** Resolves once Redis answers (or after a few seconds: the limits then fail open until it does). */
  ready(): Promise<void> {
    return this.limiter.ready();
  }

  close(): Promise<void> {
    return this.limiter.close();
  }
}

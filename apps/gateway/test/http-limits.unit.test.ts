/**
 * HttpLimits (the HTTP API's per-address limits) on a real RateLimiter and real Redis: which address
 * a request is from, the 429 it gets and its Retry-After, refunds, the metric of each outcome, and a
 * Redis that does not answer (the request goes through, counted as unchecked).
 */
import type { IncomingMessage } from 'node:http';
import { createLogger } from '@dominoes/platform';
import { RateLimiter, type LimitedAction, type WindowLimit } from '../src/edge/rate-limiter';
import { TrustedProxies } from '../src/edge/trusted-proxies';
import { ApiError } from '../src/http/errors';
import { HttpLimits } from '../src/http/http-limits';
import { GatewayMetrics } from '../src/metrics';
import { uniquePrefix, waitFor } from './support';
import { RedisConnections } from './unit-fakes';

const redis = new RedisConnections();
const logger = createLogger('http-limits-test', 'silent');
const WINDOW = 60_000;
const LIMITS: Record<LimitedAction, WindowLimit> = {
  identity: { max: 1, windowMs: WINDOW },
  table: { max: 2, windowMs: WINDOW },
  'lookup-miss': { max: 1, windowMs: WINDOW },
  'quick-play': { max: 1, windowMs: WINDOW },
};

function limitsOn(client = redis.open('limits'), proxies: string[] = [], limits = LIMITS) {
  const metrics = new GatewayMetrics(false);
  const limiter = new RateLimiter({ redis: client, prefix: uniquePrefix('httplimits'), limits, logger });
  return { limits: new HttpLimits(limiter, new TrustedProxies(proxies), metrics), metrics, limiter };
}

const request = (peer: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

const counted = async (metrics: GatewayMetrics) =>
  (await metrics.httpLimits.get()).values.map((v) => ({ ...v.labels, value: v.value }));

async function refusalOf(attempt: Promise<void>): Promise<ApiError> {
  try {
    await attempt;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('not refused');
}

afterAll(() => redis.closeAll());

describe('HttpLimits.addressOf', () => {
  it('is the socket’s address; X-Forwarded-For only from a trusted proxy', () => {
    const { limits: direct } = limitsOn();
    expect(direct.addressOf(request('198.51.100.7', '203.0.113.9'))).toBe('198.51.100.7');
    const { limits: proxied } = limitsOn(undefined, ['10.0.0.1']);
    expect(proxied.addressOf(request('10.0.0.1', '203.0.113.9'))).toBe('203.0.113.9');
    expect(proxied.addressOf(request('198.51.100.7', '203.0.113.9'))).toBe('198.51.100.7');
  });
});

describe('HttpLimits.take', () => {
  it.each([
    ['identity', 1, 'new identities'],
    ['table', 2, 'new tables'],
    ['lookup-miss', 1, 'lookups of tables that do not exist'],
    ['quick-play', 1, 'quick play requests'],
  ] as const)(
    '%s: %i allowed per window, then a 429 RATE_LIMITED naming "%s" with its Retry-After',
    async (action, max, what) => {
      const { limits, metrics } = limitsOn();
      // Connected first: a take waits at most 250 ms for Redis, and a loaded machine can take longer
      // to connect (the take then goes through unchecked, which is the next test's case).
      await limits.ready();
      for (let i = 0; i < max; i++) await limits.take(action, '198.51.100.1');
      expect(await counted(metrics)).toEqual([]);
      const refused = await refusalOf(limits.take(action, '198.51.100.1'));
      expect(refused.status).toBe(429);
      expect(refused.code).toBe('RATE_LIMITED');
      const seconds = Number(refused.headers['retry-after']);
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(WINDOW / 1000);
      expect(refused.headers).toEqual({ 'retry-after': String(seconds) });
      expect(refused.message).toBe(`Too many ${what} from your address; try again in ${seconds} s.`);
      expect(await counted(metrics)).toEqual([{ action, outcome: 'limited', value: 1 }]);
      // Another address has its own window.
      await limits.take(action, '198.51.100.2');
    },
  );

  it('a refund gives a slot back', async () => {
    const { limits } = limitsOn();
    await limits.ready();
    await limits.take('lookup-miss', '198.51.100.3');
    await limits.refund('lookup-miss', '198.51.100.3');
    await limits.take('lookup-miss', '198.51.100.3');
    await expect(limits.take('lookup-miss', '198.51.100.3')).rejects.toBeInstanceOf(ApiError);
  });

  it('an action without a limit (max 0) is never refused nor counted', async () => {
    const { limits, metrics } = limitsOn(undefined, [], {
      ...LIMITS,
      'quick-play': { max: 0, windowMs: WINDOW },
    });
    for (let i = 0; i < 3; i++) await limits.take('quick-play', '198.51.100.4');
    expect(await counted(metrics)).toEqual([]);
  });

  it('with Redis not answering, requests go through and are counted as unchecked', async () => {
    const down = redis.open('limits-down');
    const { limits, metrics } = limitsOn(down);
    await limits.ready();
    down.disconnect();
    await limits.take('identity', '198.51.100.5');
    await limits.take('identity', '198.51.100.5');
    expect(await counted(metrics)).toEqual([{ action: 'identity', outcome: 'unchecked', value: 2 }]);
  });

  it('ready resolves once Redis answers; close quits the limiter’s connection', async () => {
    const client = redis.open('limits-close');
    const { limits } = limitsOn(client);
    await limits.ready();
    expect(client.status).toBe('ready');
    await limits.close();
    await waitFor(() => client.status === 'end', 3000, 'the connection closed');
  });
});

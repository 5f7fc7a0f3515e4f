import { isIP } from 'node:net';
import type { Logger, RedisClient } from '@dominoes/platform';
import { redisNames } from '@dominoes/protocol';

/** What the HTTP API limits per client address (docs/decisions/0008-http-rate-limits.md). */
export type LimitedAction = 'identity' | 'table' | 'lookup-miss' | 'quick-play';

export interface WindowLimit {
  /** How many in one window; 0 means no limit. */
  readonly max: number;
  readonly windowMs: number;
}

export type LimitOutcome =
  | { readonly allowed: true; readonly count: number; readonly degraded: boolean }
  | { readonly allowed: false; readonly count: number; readonly retryAfterSeconds: number };

/**
 * One fixed window per (action, address): INCR, and PEXPIRE when the key is new (or has lost its
 * TTL), in one script, so every gateway replica counts in the same key and no key lives forever.
 * Answers [count, ms left in the window].
 */
const HIT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
`;

/** Gives back one hit (a lookup that found its table), only while the window still exists. */
const REFUND = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end
return 0
`;

export interface RateLimiterOptions {
  readonly redis: RedisClient;
  /** The config's redisPrefix: keys are `<prefix>:ratelimit:<action>:<address>`. */
  readonly prefix: string;
  readonly limits: Readonly<Record<LimitedAction, WindowLimit>>;
  /** How long to wait for Redis before letting the request through (fail open). */
  readonly timeoutMs?: number;
  readonly logger: Logger;
  /** Called when Redis did not answer and the request went through unlimited. */
  readonly onDegraded?: (action: LimitedAction) => void;
}

/**
 * Per-address limits kept in Redis, shared by every gateway replica. When Redis does not answer
 * (error or `timeoutMs`), the request is let through (fail open): nothing these limits protect can
 * grow without Redis (a table is created through Redis; identities are not stored), and table codes
 * are too long to guess at any rate one outage allows (decision 0008).
 */
/** The two scripts as commands: ioredis sends EVALSHA, and the script itself only after NOSCRIPT. */
interface LimitCommands {
  rateLimitHit(key: string, windowMs: string): Promise<[number, number]>;
  rateLimitRefund(key: string): Promise<number>;
}

export class RateLimiter {
  private readonly timeoutMs: number;
  private readonly commands: LimitCommands;
  private readonly names: ReturnType<typeof redisNames>;
  private lastWarning = 0;

  constructor(private readonly options: RateLimiterOptions) {
    this.timeoutMs = options.timeoutMs ?? 250;
    this.names = redisNames(options.prefix);
    options.redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT });
    options.redis.defineCommand('rateLimitRefund', { numberOfKeys: 1, lua: REFUND });
    this.commands = options.redis as unknown as LimitCommands;
  }

  key(action: LimitedAction, address: string): string {
    return this.names.rateLimit(action, limitSubject(address));
  }

  /** Counts one request of `action` from `address`; refuses it when the window is full. */
  async hit(action: LimitedAction, address: string): Promise<LimitOutcome> {
    const limit = this.options.limits[action];
    if (limit.max === 0) return { allowed: true, count: 0, degraded: false };
    const reply = await this.withinTimeout(
      this.commands.rateLimitHit(this.key(action, address), String(limit.windowMs)),
    );
    if (!Array.isArray(reply)) {
      this.degraded(action);
      return { allowed: true, count: 0, degraded: true };
    }
    const count = Number(reply[0]);
    const ttl = Number(reply[1]);
    if (count <= limit.max) return { allowed: true, count, degraded: false };
    return { allowed: false, count, retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
  }

  /** Takes back one hit of `action` (e.g. a lookup that found its table is not a failed one). */
  async refund(action: LimitedAction, address: string): Promise<void> {
    if (this.options.limits[action].max === 0) return;
    await this.withinTimeout(this.commands.rateLimitRefund(this.key(action, address)));
  }

  /** Resolves when the connection is ready, or after `waitMs` (the limits fail open until then). */
  async ready(waitMs = 5_000): Promise<void> {
    const { redis } = this.options;
    if (redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      timer.unref();
      redis.once('ready', done);
    });
  }

  async close(): Promise<void> {
    await this.options.redis.quit().catch(() => this.options.redis.disconnect());
  }

  private withinTimeout(command: Promise<unknown>): Promise<unknown> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), this.timeoutMs);
      timer.unref();
      command.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        () => {
          clearTimeout(timer);
          resolve(null);
        },
      );
    });
  }

  private degraded(action: LimitedAction): void {
    this.options.onDegraded?.(action);
    const now = Date.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.options.logger.warn({ action }, 'rate limits: Redis did not answer; letting requests through');
  }
}

/**
 * Who a limit applies to: an IPv4 address as it is, an IPv6 address by its /64 (one subscriber
 * line gets a whole /64, so counting single IPv6 addresses would give one client 2^64 budgets).
 */
export function limitSubject(address: string): string {
  if (isIP(address) !== 6) return address === '' ? 'unknown' : address;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** `2001:db8::1` → ['2001', 'db8', '0', '0', '0', '0', '0', '1'] (an embedded IPv4 tail becomes two groups). */
function expandIPv6(address: string): string[] {
  let text = address.toLowerCase().split('%')[0] as string;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => group.replace(/^0+(?=.)/, ''));
}

import { createServer, type Server } from 'node:net';
import pino from 'pino';
import { createLogger, createRedis, type Redis } from '@dominoes/platform';
import { limitSubject, RateLimiter, type LimitedAction, type WindowLimit } from '../src/edge/rate-limiter';
import { REDIS_URL, uniquePrefix } from './support';

const logger = createLogger('rate-limiter-test', 'silent');
const quiet = { warn: () => undefined, info: () => undefined };
const limits = (over: Partial<Record<LimitedAction, WindowLimit>> = {}) => ({
  identity: { max: 3, windowMs: 60_000 },
  table: { max: 0, windowMs: 60_000 },
  'lookup-miss': { max: 2, windowMs: 60_000 },
  'quick-play': { max: 0, windowMs: 60_000 },
  ...over,
});

const connections: Redis[] = [];
const redis = (url = REDIS_URL, options = {}) => {
  const client = createRedis(url, 'rate-limiter-test', options, quiet);
  connections.push(client);
  return client;
};

afterAll(async () => {
  for (const client of connections) {
    if (client.status === 'ready') await client.quit();
    else if (client.status !== 'end') client.disconnect();
  }
});

describe('RateLimiter (real Redis)', () => {
  it('counts per address in one window, refuses past the limit with the seconds left, and keeps its keys under the prefix with a TTL', async () => {
    const prefix = uniquePrefix('limits');
    const store = redis();
    const limiter = new RateLimiter({ redis: store, prefix, limits: limits(), logger });
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await limiter.hit('identity', '203.0.113.7'));
    expect(outcomes.map((o) => o.allowed)).toEqual([true, true, true, false, false]);
    const refused = outcomes[3]!;
    if (refused.allowed) throw new Error('expected a refusal');
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    // Another address and another action have their own counts.
    expect((await limiter.hit('identity', '203.0.113.8')).allowed).toBe(true);
    expect((await limiter.hit('lookup-miss', '203.0.113.7')).allowed).toBe(true);
    const key = `${prefix}:ratelimit:identity:203.0.113.7`;
    expect(limiter.key('identity', '203.0.113.7')).toBe(key);
    expect(await store.get(key)).toBe('5');
    const ttl = await store.pttl(key);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('two limiters on one Redis (two gateway replicas) share one count', async () => {
    const prefix = uniquePrefix('limits');
    const a = new RateLimiter({ redis: redis(), prefix, limits: limits(), logger });
    const b = new RateLimiter({ redis: redis(), prefix, limits: limits(), logger });
    const seen = [
      await a.hit('identity', '198.51.100.1'),
      await b.hit('identity', '198.51.100.1'),
      await a.hit('identity', '198.51.100.1'),
      await b.hit('identity', '198.51.100.1'),
    ];
    expect(seen.map((o) => o.allowed)).toEqual([true, true, true, false]);
  });

  it('parallel hits cannot overrun the limit (the count is one atomic script)', async () => {
    const prefix = uniquePrefix('limits');
    const limiter = new RateLimiter({ redis: redis(), prefix, limits: limits(), logger });
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, () => limiter.hit('lookup-miss', '192.0.2.9')),
    );
    expect(outcomes.filter((o) => o.allowed)).toHaveLength(2);
  });

  it('a refund gives one hit back, and never makes a key without a TTL', async () => {
    const prefix = uniquePrefix('limits');
    const store = redis();
    const limiter = new RateLimiter({ redis: store, prefix, limits: limits(), logger });
    await limiter.hit('lookup-miss', '192.0.2.10');
    await limiter.hit('lookup-miss', '192.0.2.10');
    await limiter.refund('lookup-miss', '192.0.2.10');
    expect((await limiter.hit('lookup-miss', '192.0.2.10')).allowed).toBe(true);
    expect((await limiter.hit('lookup-miss', '192.0.2.10')).allowed).toBe(false);
    await limiter.refund('lookup-miss', '192.0.2.99');
    expect(await store.exists(limiter.key('lookup-miss', '192.0.2.99'))).toBe(0);
  });

  it('a new window starts when the old one expires', async () => {
    const prefix = uniquePrefix('limits');
    const limiter = new RateLimiter({
      redis: redis(),
      prefix,
      limits: limits({ identity: { max: 1, windowMs: 300 } }),
      logger,
    });
    expect((await limiter.hit('identity', '192.0.2.11')).allowed).toBe(true);
    const refused = await limiter.hit('identity', '192.0.2.11');
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await limiter.hit('identity', '192.0.2.11')).allowed).toBe(true);
  });

  it('a limit of 0 is no limit and writes nothing', async () => {
    const prefix = uniquePrefix('limits');
    const store = redis();
    const limiter = new RateLimiter({ redis: store, prefix, limits: limits(), logger });
    for (let i = 0; i < 10; i++) expect((await limiter.hit('table', '192.0.2.12')).allowed).toBe(true);
    expect(await store.keys(`${prefix}:*`)).toEqual([]);
  });
});

describe('RateLimiter when Redis does not answer: fails open (decision 0008)', () => {
  it('Redis down (connection refused): the request is let through at once, marked degraded', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const degraded: LimitedAction[] = [];
    const limiter = new RateLimiter({
      redis: redis(`redis://127.0.0.1:${closed}`, { maxRetriesPerRequest: 1, enableOfflineQueue: false }),
      prefix: uniquePrefix('limits'),
      limits: limits({ identity: { max: 1, windowMs: 60_000 } }),
      logger,
      onDegraded: (action) => degraded.push(action),
    });
    const started = Date.now();
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await limiter.hit('identity', '192.0.2.13'));
    expect(outcomes).toEqual(Array(3).fill({ allowed: true, count: 0, degraded: true }));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(degraded).toEqual(['identity', 'identity', 'identity']);
  });

  it('Redis hanging (accepts, never answers): let through after the timeout', async () => {
    const sockets: import('node:net').Socket[] = [];
    const hung: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', () => resolve()));
    const { port } = hung.address() as { port: number };
    const client = redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1, enableReadyCheck: false });
    try {
      const limiter = new RateLimiter({
        redis: client,
        prefix: uniquePrefix('limits'),
        limits: limits(),
        timeoutMs: 200,
        logger,
      });
      const started = Date.now();
      expect(await limiter.hit('identity', '192.0.2.14')).toEqual({
        allowed: true,
        count: 0,
        degraded: true,
      });
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(190);
      expect(took).toBeLessThan(1000);
    } finally {
      client.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => hung.close(resolve));
    }
  });
});

describe('limitSubject', () => {
  it('an IPv4 address is its own subject', () => {
    expect(limitSubject('203.0.113.7')).toBe('203.0.113.7');
  });

  it('IPv6 addresses count by their /64, whatever their spelling', () => {
    const subject = '2001:db8:aa:bb::/64';
    expect(limitSubject('2001:db8:aa:bb::1')).toBe(subject);
    expect(limitSubject('2001:0db8:00aa:00bb:1234:5678:9abc:def0')).toBe(subject);
    expect(limitSubject('2001:DB8:AA:BB:ffff::')).toBe(subject);
    expect(limitSubject('2001:db8:aa:bc::1')).not.toBe(subject);
    expect(limitSubject('::1')).toBe('0:0:0:0::/64');
    expect(limitSubject('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(limitSubject('::ffff:1.2.3.4')).toBe('0:0:0:0::/64');
  });

  it('no address at all is one subject, not a free pass', () => {
    expect(limitSubject('')).toBe('unknown');
  });
});

/** A port nothing listens on: a Redis there refuses every connection. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Resolves when the connection has ended (the test times out if it never does). */
const ended = (client: Redis) =>
  new Promise<void>((resolve) => (client.status === 'end' ? resolve() : client.once('end', () => resolve())));

describe('RateLimiter: what operators see (the degraded flag, the warning, start-up and shutdown)', () => {
  it('an answer from Redis is never marked degraded (the `unchecked` metric counts only requests let through unlimited)', async () => {
    const limiter = new RateLimiter({
      redis: redis(),
      prefix: uniquePrefix('limits'),
      limits: limits(),
      logger,
    });
    expect(await limiter.hit('identity', '192.0.2.20')).toEqual({ allowed: true, count: 1, degraded: false });
    expect(await limiter.hit('table', '192.0.2.20')).toEqual({ allowed: true, count: 0, degraded: false });
  });

  it('Redis down: one warning line per 10 s, not one per request; a refused command is not waited out to the timeout', async () => {
    const lines: { level: number; action?: string; msg: string }[] = [];
    const recording = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const limiter = new RateLimiter({
      redis: redis(`redis://127.0.0.1:${await closedPort()}`, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
      }),
      prefix: uniquePrefix('limits'),
      limits: limits(),
      timeoutMs: 5_000,
      logger: recording,
    });
    const started = Date.now();
    for (let i = 0; i < 3; i++)
      expect(await limiter.hit('identity', '192.0.2.21')).toMatchObject({ degraded: true });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(lines).toEqual([
      expect.objectContaining({
        action: 'identity',
        msg: 'rate limits: Redis did not answer; letting requests through',
      }),
    ]);
  });

  it('ready() resolves at once on a ready connection, and after its wait when Redis is down (the gateway starts, failing open); close() ends the connection either way', async () => {
    const up = redis();
    await new Promise((resolve) => up.once('ready', resolve));
    const limiter = new RateLimiter({ redis: up, prefix: uniquePrefix('limits'), limits: limits(), logger });
    let started = Date.now();
    await limiter.ready(2_000);
    expect(Date.now() - started).toBeLessThan(200);
    await limiter.close();
    await ended(up);

    const fresh = redis();
    const waiting = new RateLimiter({
      redis: fresh,
      prefix: uniquePrefix('limits'),
      limits: limits(),
      logger,
    });
    await waiting.ready(5_000);
    expect(fresh.status).toBe('ready');
    await waiting.close();
    await ended(fresh);

    const down = redis(`redis://127.0.0.1:${await closedPort()}`, { maxRetriesPerRequest: 1 });
    const failing = new RateLimiter({
      redis: down,
      prefix: uniquePrefix('limits'),
      limits: limits(),
      logger,
    });
    started = Date.now();
    await failing.ready(300);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2000);
    // close() answers here too, but leaves this client reconnecting (ioredis: QUIT on a connection
    // that never came up); reported, not asserted.
    await failing.close();
    down.disconnect();
  });
});

describe('limitSubject: the /64 of an IPv6 address written with an IPv4 tail', () => {
  it('the IPv4 tail is two groups: a long right side after `::` puts its groups where they belong', () => {
    expect(limitSubject('2001:db8::aa:bb:cc:192.0.2.33')).toBe('2001:db8:0:aa::/64');
    expect(limitSubject('2001:db8:0:aa:bb:cc:c000:221')).toBe('2001:db8:0:aa::/64');
  });
});

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError } from '@dominoes/platform';
import { DEFAULT_CHAT_RATE } from '@dominoes/protocol';
import { DEV_TOKEN_SECRET, readGatewayConfig } from '../src/config';

/** What every case sets: a database (the base config needs one) and nothing of the gateway's own. */
const BASE = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/postgres' };
/** 32 characters, made here: a literal would be a published secret (public-secrets.test.ts). */
const SECRET = randomBytes(16).toString('hex');
const read = (env: Record<string, string> = {}) => readGatewayConfig({ ...BASE, ...env });
const production = (env: Record<string, string> = {}) =>
  read({ NODE_ENV: 'production', TOKEN_SECRET: SECRET, ...env });

/** The ConfigError a configuration is refused with (fails the test when it is not refused). */
function refusal(env: Record<string, string>): string {
  try {
    read(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(env)}`);
}

describe('readGatewayConfig: defaults', () => {
  it('without any gateway variable: port 8080 on loopback with the development secret, and the documented defaults', () => {
    const config = read({ GATEWAY_ID: 'gw-1' });
    expect(config).toMatchObject({
      port: 8080,
      metricsPort: 9464,
      host: '127.0.0.1',
      publicUrl: 'http://localhost:8080',
      tokenSecret: DEV_TOKEN_SECRET,
      devTokenSecret: true,
      gatewayId: 'gw-1',
      webDist: resolve(__dirname, '../../web/dist'),
      helloTimeoutMs: 10_000,
      replyTimeoutMs: 10_000,
      intentExpiryMs: 8_000,
      rateLimit: { perSecond: 20, burst: 40, abuseLimit: 200 },
      pingIntervalMs: 10_000,
      pongTimeoutMs: 5_000,
      maxSocketsPerPlayer: 5,
      heartbeatMs: 3_000,
      heartbeatTtlMs: 10_000,
      allowedOrigins: ['http://localhost:8080'],
      httpLimits: {
        identity: { max: 10, windowMs: 60_000 },
        table: { max: 20, windowMs: 60_000 },
        'lookup-miss': { max: 30, windowMs: 60_000 },
        'quick-play': { max: 30, windowMs: 60_000 },
      },
      chatRate: { messages: DEFAULT_CHAT_RATE.messages, windowMs: DEFAULT_CHAT_RATE.windowMs },
    });
    expect(config.trustedProxies.size).toBe(0);
  });

  it('a gateway id is made from the host name and 6 random hex digits when GATEWAY_ID is not set, a new one per read', () => {
    const pattern = new RegExp(`^${hostname().replace(/[.]/g, '\\.')}-[0-9a-f]{6}$`);
    const [a, b] = [read().gatewayId, read().gatewayId];
    expect(a).toMatch(pattern);
    expect(b).toMatch(pattern);
  });

  it('with TOKEN_SECRET it signs with that secret and listens on every interface by default', () => {
    const config = read({ TOKEN_SECRET: SECRET });
    expect(config).toMatchObject({ tokenSecret: SECRET, devTokenSecret: false, host: '0.0.0.0' });
    expect(read({ TOKEN_SECRET: SECRET, HOST: '10.0.0.2' }).host).toBe('10.0.0.2');
  });

  it('reads every variable it documents', () => {
    const config = read({
      PORT: '9000',
      METRICS_PORT: '9001',
      TOKEN_SECRET: SECRET,
      PUBLIC_URL: 'https://play.example.org',
      GATEWAY_ID: 'gw.a_1-b',
      WEB_DIST: '/srv/web',
      HELLO_TIMEOUT_MS: '2000',
      REPLY_TIMEOUT_MS: '7000',
      WS_RATE_PER_SECOND: '3',
      WS_RATE_BURST: '4',
      WS_ABUSE_LIMIT: '5',
      WS_PING_INTERVAL_MS: '6000',
      WS_PONG_TIMEOUT_MS: '700',
      WS_MAX_SOCKETS_PER_PLAYER: '8',
      GATEWAY_HEARTBEAT_MS: '900',
      GATEWAY_HEARTBEAT_TTL_MS: '1800',
      RATE_LIMIT_WINDOW_MS: '5000',
      RATE_LIMIT_IDENTITIES: '1',
      RATE_LIMIT_TABLES: '2',
      RATE_LIMIT_LOOKUP_MISSES: '3',
      RATE_LIMIT_QUICK_PLAYS: '0',
      CHAT_RATE_MESSAGES: '9',
      CHAT_RATE_WINDOW_MS: '1500',
      TRUSTED_PROXIES: '10.0.0.5,10.42.0.0/16',
    });
    expect(config).toMatchObject({
      port: 9000,
      metricsPort: 9001,
      publicUrl: 'https://play.example.org',
      gatewayId: 'gw.a_1-b',
      webDist: '/srv/web',
      helloTimeoutMs: 2000,
      replyTimeoutMs: 7000,
      intentExpiryMs: 5000,
      rateLimit: { perSecond: 3, burst: 4, abuseLimit: 5 },
      pingIntervalMs: 6000,
      pongTimeoutMs: 700,
      maxSocketsPerPlayer: 8,
      heartbeatMs: 900,
      heartbeatTtlMs: 1800,
      httpLimits: {
        identity: { max: 1, windowMs: 5000 },
        table: { max: 2, windowMs: 5000 },
        'lookup-miss': { max: 3, windowMs: 5000 },
        'quick-play': { max: 0, windowMs: 5000 },
      },
      chatRate: { messages: 9, windowMs: 1500 },
    });
    expect(config.trustedProxies.size).toBe(2);
    expect(config.trustedProxies.has('10.42.7.1')).toBe(true);
    expect(config.trustedProxies.has('10.0.0.6')).toBe(false);
  });
});

describe('readGatewayConfig: what one variable cannot say alone', () => {
  it('METRICS_PORT must differ from PORT, except both 0 (a free port each)', () => {
    expect(refusal({ PORT: '8080', METRICS_PORT: '8080' })).toBe(
      "METRICS_PORT must differ from PORT (8080): /metrics is not served on the players' port.",
    );
    expect(read({ PORT: '0', METRICS_PORT: '0' })).toMatchObject({ port: 0, metricsPort: 0 });
  });

  it('in production TOKEN_SECRET must be set, be 32 characters or more, and not be a secret this repository published', () => {
    expect(refusal({ NODE_ENV: 'production' })).toBe(
      'TOKEN_SECRET must be set when NODE_ENV=production (a random string of 32 or more characters).',
    );
    expect(refusal({ NODE_ENV: 'production', TOKEN_SECRET: SECRET.slice(1) })).toBe(
      'TOKEN_SECRET must have at least 32 characters in production.',
    );
    expect(refusal({ NODE_ENV: 'production', TOKEN_SECRET: 'gateway-test-secret-0123456789abcdef' })).toMatch(
      /^TOKEN_SECRET is a secret published in this repository/,
    );
    expect(production().tokenSecret).toBe(SECRET);
    // Outside production, a short or published secret is accepted (tests and development use them).
    expect(read({ TOKEN_SECRET: 'short' }).tokenSecret).toBe('short');
    expect(read({ TOKEN_SECRET: 'gateway-test-secret-0123456789abcdef' }).devTokenSecret).toBe(false);
  });

  it('without TOKEN_SECRET the gateway listens on loopback only: localhost, ::1 and 127.x.y.z, never another HOST', () => {
    for (const host of ['localhost', '::1', '127.0.0.1', '127.10.200.3', '127.0.0.254'])
      expect(read({ HOST: host }).host).toBe(host);
    for (const host of [
      '0.0.0.0',
      '10.0.0.2',
      '127.0.0.1.example.org',
      'x127.0.0.1',
      '127.0.0',
      '127.1000.0.1',
    ])
      expect(refusal({ HOST: host })).toBe(
        `HOST=${host} without TOKEN_SECRET: the development secret is public, so the gateway listens on loopback only. Set TOKEN_SECRET to listen on ${host}.`,
      );
  });

  it('PUBLIC_URL loses its trailing slashes, must be absolute, and is an allowed origin', () => {
    const config = read({ PUBLIC_URL: 'https://Play.Example.org//' });
    expect(config.publicUrl).toBe('https://Play.Example.org');
    expect(config.allowedOrigins).toEqual(['https://play.example.org']);
    expect(read({ PORT: '9123' }).publicUrl).toBe('http://localhost:9123');
    expect(refusal({ PUBLIC_URL: 'play.example.org/' })).toBe(
      'PUBLIC_URL must be an absolute URL; got "play.example.org".',
    );
  });

  it('ALLOWED_ORIGINS are added as origins, once each; an entry that is not an http(s) URL is refused', () => {
    const config = read({
      PUBLIC_URL: 'https://play.example.org',
      ALLOWED_ORIGINS: 'https://PLAY.example.org/x,http://localhost:5173,http://localhost:5173/',
    });
    expect(config.allowedOrigins).toEqual(['https://play.example.org', 'http://localhost:5173']);
    expect(refusal({ ALLOWED_ORIGINS: 'ftp://files.example.org' })).toBe(
      'ALLOWED_ORIGINS holds absolute http(s) URLs; got "ftp://files.example.org".',
    );
  });

  it('GATEWAY_ID holds letters, digits, _ . - only', () => {
    expect(refusal({ GATEWAY_ID: 'gw 1' })).toBe(
      `GATEWAY_ID may hold letters, digits, '_', '.', '-' (1 to 64); got "gw 1".`,
    );
  });

  it('the heartbeat TTL must be at least twice the heartbeat interval', () => {
    expect(read({ GATEWAY_HEARTBEAT_MS: '1000', GATEWAY_HEARTBEAT_TTL_MS: '2000' }).heartbeatTtlMs).toBe(
      2000,
    );
    expect(refusal({ GATEWAY_HEARTBEAT_MS: '1000', GATEWAY_HEARTBEAT_TTL_MS: '1999' })).toBe(
      'GATEWAY_HEARTBEAT_TTL_MS (1999) must be at least twice GATEWAY_HEARTBEAT_MS (1000), or one late heartbeat makes a live gateway look dead.',
    );
  });

  it('TRUSTED_PROXIES that are not addresses or ranges are refused, saying which', () => {
    expect(refusal({ TRUSTED_PROXIES: '10.0.0.1,proxy.local' })).toBe(
      'TRUSTED_PROXIES holds IP addresses and CIDR ranges, comma-separated; not an IP address or CIDR range: "proxy.local".',
    );
  });

  it('the intent expiry defaults to the reply timeout less 2 s (less 1 s under 5 s), and must be 1 s shorter than it at least', () => {
    expect(read({ REPLY_TIMEOUT_MS: '5000' }).intentExpiryMs).toBe(3000);
    expect(read({ REPLY_TIMEOUT_MS: '4999' }).intentExpiryMs).toBe(3999);
    expect(read({ REPLY_TIMEOUT_MS: '1100' }).intentExpiryMs).toBe(100);
    expect(read({ REPLY_TIMEOUT_MS: '5000', INTENT_EXPIRY_MS: '4000' }).intentExpiryMs).toBe(4000);
    expect(refusal({ REPLY_TIMEOUT_MS: '5000', INTENT_EXPIRY_MS: '4001' })).toBe(
      'INTENT_EXPIRY_MS (4001) must be at least 1000 ms shorter than REPLY_TIMEOUT_MS (5000): the gateway answers "not applied" only once an intent can no longer be applied.',
    );
  });
});

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError, intFromEnv, readBaseConfig, stringFromEnv, type BaseConfig } from '@dominoes/platform';
import { DEV_TOKEN_SECRET, isPublicSecret } from './auth/public-secrets';
import { originOf } from './edge/origin-policy';
import type { LimitedAction, WindowLimit } from './edge/rate-limiter';
import { TrustedProxies, type ProxyMatcher } from './edge/trusted-proxies';

export interface RateLimitConfig {
  /** Frames a socket may send per second, on average. */
  readonly perSecond: number;
  /** Frames it may send at once. */
  readonly burst: number;
  /** Refused (rate-limited) frames within 10 s after which the socket is closed with 1008. */
  readonly abuseLimit: number;
}

export interface GatewayConfig extends BaseConfig {
  readonly port: number;
  /** The port of `/metrics` alone (METRICS_PORT); never the players' port. */
  readonly metricsPort: number;
  readonly host: string;
  readonly publicUrl: string;
  readonly tokenSecret: string;
  /** True when TOKEN_SECRET was not set and the development secret is in use (never in production). */
  readonly devTokenSecret: boolean;
  readonly gatewayId: string;
  /** The built web client (apps/web/dist), served when it exists. */
  readonly webDist: string;
  readonly helloTimeoutMs: number;
  readonly replyTimeoutMs: number;
  /**
   * INTENT_EXPIRY_MS: a player's intent is applied only this soon after it was sent (checked by the
   * table-service and by Postgres inside the write); REPLY_TIMEOUT_MS must be longer by at least 1 s,
   * so that an UNAVAILABLE answer after the timeout means "not applied".
   */
  readonly intentExpiryMs: number;
  readonly rateLimit: RateLimitConfig;
  /** How long a socket may go without a ping from the gateway (WS_PING_INTERVAL_MS). */
  readonly pingIntervalMs: number;
  /** How long the gateway waits for the pong before it drops the socket (WS_PONG_TIMEOUT_MS). */
  readonly pongTimeoutMs: number;
  /** Open sockets one player may hold on all gateways; one more closes the oldest (WS_MAX_SOCKETS_PER_PLAYER). */
  readonly maxSocketsPerPlayer: number;
  readonly shutdownGraceMs: number;
  /** How often the gateway's heartbeat key is set (GATEWAY_HEARTBEAT_MS). */
  readonly heartbeatMs: number;
  /** The heartbeat key's TTL (GATEWAY_HEARTBEAT_TTL_MS): how long a dead gateway still looks alive. */
  readonly heartbeatTtlMs: number;
  /** Browser origins allowed on the HTTP API and the WebSocket upgrade: PUBLIC_URL's and ALLOWED_ORIGINS. */
  readonly allowedOrigins: readonly string[];
  /** Peers whose X-Forwarded-For is believed (TRUSTED_PROXIES, comma-separated IP addresses and CIDR ranges). */
  readonly trustedProxies: ProxyMatcher;
  /** HTTP API requests per client address and window, counted in Redis (RATE_LIMIT_*; 0: no limit). */
  readonly httpLimits: Readonly<Record<LimitedAction, WindowLimit>>;
}

export { DEV_TOKEN_SECRET };
const MIN_SECRET_LENGTH = 32;

export function readGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const base = readBaseConfig(env);
  const port = intFromEnv(env, 'PORT', 8080, 0, 65535);
  const metricsPort = intFromEnv(env, 'METRICS_PORT', 9464, 0, 65535);
  if (metricsPort === port && port !== 0) {
    throw new ConfigError(
      `METRICS_PORT must differ from PORT (${port}): /metrics is not served on the players' port.`,
    );
  }
  const production = env.NODE_ENV === 'production';
  const secret = env.TOKEN_SECRET ?? '';
  if (secret === '' && production) {
    throw new ConfigError(
      'TOKEN_SECRET must be set when NODE_ENV=production (a random string of 32 or more characters).',
    );
  }
  if (secret !== '' && production && secret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(`TOKEN_SECRET must have at least ${MIN_SECRET_LENGTH} characters in production.`);
  }
  if (production && isPublicSecret(secret)) {
    throw new ConfigError(
      'TOKEN_SECRET is a secret published in this repository (a default, an example or a test): anyone could forge tokens with it. Set a random one, e.g. `openssl rand -base64 48`.',
    );
  }
  // Without TOKEN_SECRET the development secret signs tokens: anyone can forge them, so such a
  // gateway listens on loopback only (HOST defaults to 127.0.0.1) and refuses another HOST.
  const host = stringFromEnv(env, 'HOST', secret === '' ? '127.0.0.1' : '0.0.0.0');
  if (secret === '' && !isLoopback(host)) {
    throw new ConfigError(
      `HOST=${host} without TOKEN_SECRET: the development secret is public, so the gateway listens on loopback only. Set TOKEN_SECRET to listen on ${host}.`,
    );
  }
  const publicUrl = stringFromEnv(env, 'PUBLIC_URL', `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicUrl);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute URL; got "${publicUrl}".`);
  }
  const gatewayId = stringFromEnv(env, 'GATEWAY_ID', `${hostname()}-${randomBytes(3).toString('hex')}`);
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(gatewayId)) {
    throw new ConfigError(
      `GATEWAY_ID may hold letters, digits, '_', '.', '-' (1 to 64); got "${gatewayId}".`,
    );
  }
  const heartbeatMs = intFromEnv(env, 'GATEWAY_HEARTBEAT_MS', 3_000, 50, 60_000);
  const heartbeatTtlMs = intFromEnv(env, 'GATEWAY_HEARTBEAT_TTL_MS', 10_000, 100, 600_000);
  if (heartbeatTtlMs < 2 * heartbeatMs) {
    throw new ConfigError(
      `GATEWAY_HEARTBEAT_TTL_MS (${heartbeatTtlMs}) must be at least twice GATEWAY_HEARTBEAT_MS (${heartbeatMs}), or one late heartbeat makes a live gateway look dead.`,
    );
  }
  const allowedOrigins = [publicUrl, ...listFromEnv(env, 'ALLOWED_ORIGINS')].map((url) => {
    try {
      return originOf(url);
    } catch {
      throw new ConfigError(`ALLOWED_ORIGINS holds absolute http(s) URLs; got "${url}".`);
    }
  });
  let trustedProxies: TrustedProxies;
  try {
    trustedProxies = new TrustedProxies(listFromEnv(env, 'TRUSTED_PROXIES'));
  } catch (error) {
    throw new ConfigError(
      `TRUSTED_PROXIES holds IP addresses and CIDR ranges, comma-separated; ${(error as Error).message}.`,
    );
  }
  const replyTimeoutMs = intFromEnv(env, 'REPLY_TIMEOUT_MS', 10_000, 1_100, 600_000);
  const intentExpiryMs = intFromEnv(
    env,
    'INTENT_EXPIRY_MS',
    replyTimeoutMs - (replyTimeoutMs >= 5_000 ? 2_000 : 1_000),
    100,
    600_000,
  );
  if (intentExpiryMs > replyTimeoutMs - 1_000) {
    throw new ConfigError(
      `INTENT_EXPIRY_MS (${intentExpiryMs}) must be at least 1000 ms shorter than REPLY_TIMEOUT_MS (${replyTimeoutMs}): the gateway answers "not applied" only once an intent can no longer be applied.`,
    );
  }
  return {
    ...base,
    port,
    metricsPort,
    host,
    publicUrl,
    tokenSecret: secret === '' ? DEV_TOKEN_SECRET : secret,
    devTokenSecret: secret === '',
    gatewayId,
    webDist: stringFromEnv(env, 'WEB_DIST', resolve(__dirname, '../../web/dist')),
    helloTimeoutMs: intFromEnv(env, 'HELLO_TIMEOUT_MS', 10_000, 100, 600_000),
    replyTimeoutMs,
    intentExpiryMs,
    rateLimit: {
      perSecond: intFromEnv(env, 'WS_RATE_PER_SECOND', 20, 1, 10_000),
      burst: intFromEnv(env, 'WS_RATE_BURST', 40, 1, 100_000),
      abuseLimit: intFromEnv(env, 'WS_ABUSE_LIMIT', 200, 1, 1_000_000),
    },
    pingIntervalMs: intFromEnv(env, 'WS_PING_INTERVAL_MS', 10_000, 100, 600_000),
    pongTimeoutMs: intFromEnv(env, 'WS_PONG_TIMEOUT_MS', 5_000, 100, 600_000),
    maxSocketsPerPlayer: intFromEnv(env, 'WS_MAX_SOCKETS_PER_PLAYER', 5, 1, 1_000),
    shutdownGraceMs: intFromEnv(env, 'SHUTDOWN_GRACE_MS', 10_000, 100, 120_000),
    heartbeatMs,
    heartbeatTtlMs,
    allowedOrigins: [...new Set(allowedOrigins)],
    trustedProxies,
    httpLimits: readHttpLimits(env),
  };
}

/**
 * Defaults sized for real players behind one NAT (a school, a café): a player keeps one identity
 * for 30 days, a host opens one table per match, and a mistyped code is retyped a few times.
 */
function readHttpLimits(env: NodeJS.ProcessEnv): Record<LimitedAction, WindowLimit> {
  const windowMs = intFromEnv(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 1_000, 3_600_000);
  const limit = (name: string, fallback: number): WindowLimit => ({
    max: intFromEnv(env, name, fallback, 0, 1_000_000),
    windowMs,
  });
  return {
    identity: limit('RATE_LIMIT_IDENTITIES', 10),
    table: limit('RATE_LIMIT_TABLES', 20),
    'lookup-miss': limit('RATE_LIMIT_LOOKUP_MISSES', 30),
  };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function listFromEnv(env: NodeJS.ProcessEnv, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import {
  ConfigError,
  envInt,
  envList,
  envOptionalInt,
  envOptionalString,
  envString,
  serviceConfig,
  type BaseConfig,
} from '@dominoes/platform';
import { DEFAULT_CHAT_RATE, GATEWAY_ID_PATTERN } from '@dominoes/protocol';
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
  /** Chat messages (texts, phrases, reactions) one player may send per window, on all gateways (CHAT_RATE_*). */
  readonly chatRate: { readonly messages: number; readonly windowMs: number };
}

export { DEV_TOKEN_SECRET };
const MIN_SECRET_LENGTH = 32;

/**
 * Defaults of the HTTP limits sized for real players behind one NAT (a school, a café): a player
 * keeps one identity for 30 days, a host opens one table per match, and a mistyped code is retyped
 * a few times.
 */
const GATEWAY_ENV = {
  PORT: envInt(8080, 0, 65535),
  METRICS_PORT: envInt(9464, 0, 65535),
  NODE_ENV: envOptionalString(),
  TOKEN_SECRET: envString(''),
  HOST: envOptionalString(),
  PUBLIC_URL: envOptionalString(),
  GATEWAY_ID: envOptionalString(),
  WEB_DIST: envString(resolve(__dirname, '../../web/dist')),
  GATEWAY_HEARTBEAT_MS: envInt(3_000, 50, 60_000),
  GATEWAY_HEARTBEAT_TTL_MS: envInt(10_000, 100, 600_000),
  ALLOWED_ORIGINS: envList(),
  TRUSTED_PROXIES: envList(),
  HELLO_TIMEOUT_MS: envInt(10_000, 100, 600_000),
  REPLY_TIMEOUT_MS: envInt(10_000, 1_100, 600_000),
  /** Default: REPLY_TIMEOUT_MS less 2 s (less 1 s under 5 s). */
  INTENT_EXPIRY_MS: envOptionalInt(100, 600_000),
  WS_RATE_PER_SECOND: envInt(20, 1, 10_000),
  WS_RATE_BURST: envInt(40, 1, 100_000),
  WS_ABUSE_LIMIT: envInt(200, 1, 1_000_000),
  WS_PING_INTERVAL_MS: envInt(10_000, 100, 600_000),
  WS_PONG_TIMEOUT_MS: envInt(5_000, 100, 600_000),
  WS_MAX_SOCKETS_PER_PLAYER: envInt(5, 1, 1_000),
  RATE_LIMIT_WINDOW_MS: envInt(60_000, 1_000, 3_600_000),
  RATE_LIMIT_IDENTITIES: envInt(10, 0, 1_000_000),
  RATE_LIMIT_TABLES: envInt(20, 0, 1_000_000),
  RATE_LIMIT_LOOKUP_MISSES: envInt(30, 0, 1_000_000),
  RATE_LIMIT_QUICK_PLAYS: envInt(30, 0, 1_000_000),
  CHAT_RATE_MESSAGES: envInt(DEFAULT_CHAT_RATE.messages, 1, 10_000),
  CHAT_RATE_WINDOW_MS: envInt(DEFAULT_CHAT_RATE.windowMs, 100, 3_600_000),
};

/** The gateway's configuration; what one variable cannot say alone (ports, secret, host) is checked here. */
export const readGatewayConfig: (env?: NodeJS.ProcessEnv) => GatewayConfig = serviceConfig(
  GATEWAY_ENV,
  (env) => {
    const port = env.PORT;
    if (env.METRICS_PORT === port && port !== 0) {
      throw new ConfigError(
        `METRICS_PORT must differ from PORT (${port}): /metrics is not served on the players' port.`,
      );
    }
    const production = env.NODE_ENV === 'production';
    const secret = env.TOKEN_SECRET;
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
    const host = env.HOST ?? (secret === '' ? '127.0.0.1' : '0.0.0.0');
    if (secret === '' && !isLoopback(host)) {
      throw new ConfigError(
        `HOST=${host} without TOKEN_SECRET: the development secret is public, so the gateway listens on loopback only. Set TOKEN_SECRET to listen on ${host}.`,
      );
    }
    const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
    try {
      new URL(publicUrl);
    } catch {
      throw new ConfigError(`PUBLIC_URL must be an absolute URL; got "${publicUrl}".`);
    }
    const gatewayId = env.GATEWAY_ID ?? `${hostname()}-${randomBytes(3).toString('hex')}`;
    if (!GATEWAY_ID_PATTERN.test(gatewayId)) {
      throw new ConfigError(
        `GATEWAY_ID may hold letters, digits, '_', '.', '-' (1 to 64); got "${gatewayId}".`,
      );
    }
    const heartbeatMs = env.GATEWAY_HEARTBEAT_MS;
    const heartbeatTtlMs = env.GATEWAY_HEARTBEAT_TTL_MS;
    if (heartbeatTtlMs < 2 * heartbeatMs) {
      throw new ConfigError(
        `GATEWAY_HEARTBEAT_TTL_MS (${heartbeatTtlMs}) must be at least twice GATEWAY_HEARTBEAT_MS (${heartbeatMs}), or one late heartbeat makes a live gateway look dead.`,
      );
    }
    const allowedOrigins = [publicUrl, ...env.ALLOWED_ORIGINS].map((url) => {
      try {
        return originOf(url);
      } catch {
        throw new ConfigError(`ALLOWED_ORIGINS holds absolute http(s) URLs; got "${url}".`);
      }
    });
    let trustedProxies: TrustedProxies;
    try {
      trustedProxies = new TrustedProxies(env.TRUSTED_PROXIES);
    } catch (error) {
      throw new ConfigError(
        `TRUSTED_PROXIES holds IP addresses and CIDR ranges, comma-separated; ${(error as Error).message}.`,
      );
    }
    const replyTimeoutMs = env.REPLY_TIMEOUT_MS;
    const intentExpiryMs = env.INTENT_EXPIRY_MS ?? replyTimeoutMs - (replyTimeoutMs >= 5_000 ? 2_000 : 1_000);
    if (intentExpiryMs > replyTimeoutMs - 1_000) {
      throw new ConfigError(
        `INTENT_EXPIRY_MS (${intentExpiryMs}) must be at least 1000 ms shorter than REPLY_TIMEOUT_MS (${replyTimeoutMs}): the gateway answers "not applied" only once an intent can no longer be applied.`,
      );
    }
    const windowMs = env.RATE_LIMIT_WINDOW_MS;
    return {
      port,
      metricsPort: env.METRICS_PORT,
      host,
      publicUrl,
      tokenSecret: secret === '' ? DEV_TOKEN_SECRET : secret,
      devTokenSecret: secret === '',
      gatewayId,
      webDist: env.WEB_DIST,
      helloTimeoutMs: env.HELLO_TIMEOUT_MS,
      replyTimeoutMs,
      intentExpiryMs,
      rateLimit: {
        perSecond: env.WS_RATE_PER_SECOND,
        burst: env.WS_RATE_BURST,
        abuseLimit: env.WS_ABUSE_LIMIT,
      },
      pingIntervalMs: env.WS_PING_INTERVAL_MS,
      pongTimeoutMs: env.WS_PONG_TIMEOUT_MS,
      maxSocketsPerPlayer: env.WS_MAX_SOCKETS_PER_PLAYER,
      heartbeatMs,
      heartbeatTtlMs,
      allowedOrigins: [...new Set(allowedOrigins)],
      trustedProxies,
      httpLimits: {
        identity: { max: env.RATE_LIMIT_IDENTITIES, windowMs },
        table: { max: env.RATE_LIMIT_TABLES, windowMs },
        'lookup-miss': { max: env.RATE_LIMIT_LOOKUP_MISSES, windowMs },
        'quick-play': { max: env.RATE_LIMIT_QUICK_PLAYS, windowMs },
      },
      chatRate: { messages: env.CHAT_RATE_MESSAGES, windowMs: env.CHAT_RATE_WINDOW_MS },
    };
  },
);

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

import { DEFAULT_REDIS_PREFIX, DEFAULT_TABLE_SHARDS } from '@dominoes/protocol';
import { RULE_DURATIONS, type Durations } from '@dominoes/rules';

/** Configuration comes only from the environment, with defaults that work on a laptop. */
export interface BaseConfig {
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly redisPrefix: string;
  readonly tableShards: number;
  readonly logLevel: string;
  readonly durations: Durations;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/dominoes';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export function intFromEnv(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}; got "${raw}".`);
  }
  return value;
}

export function stringFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name];
  return raw === undefined || raw === '' ? fallback : raw;
}

/**
 * The rules' durations (P16 45 s, P17 5 s, P18 30 s). TURN_MS, DISCONNECTED_TURN_MS and BREAK_MS
 * shorten them for tests and load tests; no table can change them.
 */
function durationsFromEnv(env: NodeJS.ProcessEnv): Durations {
  return {
    turnMs: intFromEnv(env, 'TURN_MS', RULE_DURATIONS.turnMs, 100, 3_600_000),
    disconnectedTurnMs: intFromEnv(
      env,
      'DISCONNECTED_TURN_MS',
      RULE_DURATIONS.disconnectedTurnMs,
      100,
      3_600_000,
    ),
    breakMs: intFromEnv(env, 'BREAK_MS', RULE_DURATIONS.breakMs, 100, 3_600_000),
  };
}

export function readBaseConfig(env: NodeJS.ProcessEnv = process.env): BaseConfig {
  return {
    databaseUrl: stringFromEnv(env, 'DATABASE_URL', DEFAULT_DATABASE_URL),
    redisUrl: stringFromEnv(env, 'REDIS_URL', DEFAULT_REDIS_URL),
    redisPrefix: stringFromEnv(env, 'REDIS_PREFIX', DEFAULT_REDIS_PREFIX),
    tableShards: intFromEnv(env, 'TABLE_SHARDS', DEFAULT_TABLE_SHARDS, 1, 1024),
    logLevel: stringFromEnv(env, 'LOG_LEVEL', 'info'),
    durations: durationsFromEnv(env),
  };
}

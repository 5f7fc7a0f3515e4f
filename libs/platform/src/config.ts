import { z } from 'zod';
import { DEFAULT_DEADLINE_GROUPS, DEFAULT_REDIS_PREFIX, DEFAULT_TABLE_SHARDS } from '@dominoes/protocol';
import { RULE_DURATIONS, type Durations } from '@dominoes/rules';
import { parseShardMap, type ShardMap } from './shard-map';

/**
 * Configuration comes only from the environment, with defaults that work on a laptop. Each service
 * describes its variables once, as a zod schema (`serviceConfig`), parsed once at start: a bad value
 * stops the service with one line per variable that names it, the range and what was given.
 */
export interface BaseConfig {
  /** The home database (DATABASE_URLS' first, or DATABASE_URL): players, locks, migrations' default. */
  readonly databaseUrl: string;
  /** Every database and which shard is in which (DATABASE_URLS, DATABASE_SHARD_MAP; decision 0027). */
  readonly shardMap: ShardMap;
  readonly redisUrl: string;
  /** REDIS_CLUSTER_NODES: when it lists any node, Redis is that Redis Cluster and REDIS_URL is not used. */
  readonly redisClusterNodes: readonly string[];
  readonly redisPrefix: string;
  readonly tableShards: number;
  /** DEADLINE_GROUPS: how many BullMQ deadline queues the shards are spread over (shard mod groups). */
  readonly deadlineGroups: number;
  readonly logLevel: string;
  readonly durations: Durations;
  /** How long a shutdown may take before the process exits anyway (SHUTDOWN_GRACE_MS). */
  readonly shutdownGraceMs: number;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/dominoes';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** An unset or empty variable takes its default. */
const raw = z.string().optional();
const unset = (value: string | undefined): value is undefined | '' => value === undefined || value === '';

function wholeNumber(value: string, min: number, max: number, ctx: z.RefinementCtx): number {
  const parsed = Number(value);
  if (Number.isInteger(parsed) && parsed >= min && parsed <= max) return parsed;
  ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}; got "${value}"` });
  return z.NEVER;
}

/** A whole number from `min` to `max`; `fallback` when unset. */
export const envInt = (fallback: number, min: number, max: number) =>
  raw.transform((value, ctx): number => (unset(value) ? fallback : wholeNumber(value, min, max, ctx)));

/** A whole number from `min` to `max`, or undefined when unset (its default depends on another variable). */
export const envOptionalInt = (min: number, max: number) =>
  raw.transform((value, ctx): number | undefined =>
    unset(value) ? undefined : wholeNumber(value, min, max, ctx),
  );

/** A string; `fallback` when unset. */
export const envString = (fallback: string) =>
  raw.transform((value): string => (unset(value) ? fallback : value));

/** A string, or undefined when unset. */
export const envOptionalString = () => raw.transform((value) => (unset(value) ? undefined : value));

/** Comma-separated items, trimmed, empty ones dropped; [] when unset. */
export const envList = () =>
  raw.transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );

/** What every service reads. TURN_MS, DISCONNECTED_TURN_MS and BREAK_MS shorten the rules' durations for tests. */
export const BASE_ENV = {
  DATABASE_URL: envString(DEFAULT_DATABASE_URL),
  // Postgres split by shard (decision 0027): when it lists any URL, DATABASE_URL is not used.
  DATABASE_URLS: envList(),
  DATABASE_SHARD_MAP: envOptionalString(),
  REDIS_URL: envString(DEFAULT_REDIS_URL),
  REDIS_CLUSTER_NODES: envList(),
  REDIS_PREFIX: envString(DEFAULT_REDIS_PREFIX),
  TABLE_SHARDS: envInt(DEFAULT_TABLE_SHARDS, 1, 1024),
  DEADLINE_GROUPS: envInt(DEFAULT_DEADLINE_GROUPS, 1, 1024),
  LOG_LEVEL: envString('info'),
  // The rules' durations (P16 45 s, P17 5 s, P18 30 s); no table can change them.
  TURN_MS: envInt(RULE_DURATIONS.turnMs, 100, 3_600_000),
  DISCONNECTED_TURN_MS: envInt(RULE_DURATIONS.disconnectedTurnMs, 100, 3_600_000),
  BREAK_MS: envInt(RULE_DURATIONS.breakMs, 100, 3_600_000),
  SHUTDOWN_GRACE_MS: envInt(10_000, 100, 120_000),
};

type BaseEnv = { readonly [K in keyof typeof BASE_ENV]: z.output<(typeof BASE_ENV)[K]> };
/** The parsed variables: BASE_ENV's and the service's own. */
export type ParsedEnv<S extends z.ZodRawShape> = BaseEnv & { readonly [K in keyof S]: z.output<S[K]> };

/** Parses `env` with the schema; every bad variable is one line of the ConfigError. */
export function parseEnv<S extends z.ZodRawShape>(shape: S, env: NodeJS.ProcessEnv): ParsedEnv<S> {
  const result = z.object({ ...BASE_ENV, ...shape }).safeParse(env);
  if (result.success) return result.data as ParsedEnv<S>;
  throw new ConfigError(
    result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}.`).join('\n'),
  );
}

function baseOf(env: BaseEnv): BaseConfig {
  if (env.DEADLINE_GROUPS > env.TABLE_SHARDS)
    throw new ConfigError(
      `DEADLINE_GROUPS must be at most TABLE_SHARDS (${env.TABLE_SHARDS}); got "${env.DEADLINE_GROUPS}".`,
    );
  const badNode = env.REDIS_CLUSTER_NODES.find(
    (node) => !/^(rediss?:\/\/[^/]*@?)?[^\s:/]+:\d{1,5}$/.test(node),
  );
  if (badNode !== undefined)
    throw new ConfigError(`REDIS_CLUSTER_NODES must be host:port,host:port,...; got "${badNode}".`);
  const databaseUrls = env.DATABASE_URLS.length > 0 ? env.DATABASE_URLS : [env.DATABASE_URL];
  const badUrl = databaseUrls.find((url) => !/^postgres(ql)?:\/\/\S+$/.test(url));
  if (badUrl !== undefined)
    throw new ConfigError(`DATABASE_URLS must be postgresql://... URLs, comma-separated; got "${badUrl}".`);
  let databaseOfShard: number[];
  try {
    databaseOfShard = parseShardMap(env.DATABASE_SHARD_MAP, env.TABLE_SHARDS, databaseUrls.length);
  } catch (error) {
    throw new ConfigError(`DATABASE_SHARD_MAP ${(error as Error).message}.`);
  }
  return {
    databaseUrl: databaseUrls[0]!,
    shardMap: { databaseUrls, databaseOfShard },
    redisUrl: env.REDIS_URL,
    redisClusterNodes: env.REDIS_CLUSTER_NODES,
    redisPrefix: env.REDIS_PREFIX,
    tableShards: env.TABLE_SHARDS,
    deadlineGroups: env.DEADLINE_GROUPS,
    logLevel: env.LOG_LEVEL,
    durations: { turnMs: env.TURN_MS, disconnectedTurnMs: env.DISCONNECTED_TURN_MS, breakMs: env.BREAK_MS },
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
  };
}

/**
 * A service's configuration reader: its variables (besides BASE_ENV) as zod schemas, and how the
 * parsed values make its config (where the cross-variable checks throw ConfigError).
 */
export function serviceConfig<S extends z.ZodRawShape, C extends object>(
  shape: S,
  build: (env: ParsedEnv<S>, base: BaseConfig) => C,
): (env?: NodeJS.ProcessEnv) => Readonly<BaseConfig & C> {
  return (env = process.env) => {
    const parsed = parseEnv(shape, env);
    const base = baseOf(parsed);
    return { ...base, ...build(parsed, base) };
  };
}

/** The variables every service shares (`npm start` and migrate read only these). */
export const readBaseConfig = serviceConfig({}, () => ({}));

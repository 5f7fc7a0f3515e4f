/**
 * The command line: `--name value` or `--name=value`, flags alone. Node's `parseArgs` reads it, the
 * rules library checks the table (variant, seats, target), and every problem is an ArgError with a
 * sentence that says what was expected.
 */
import { parseArgs as readArgv, type ParseArgsConfig } from 'node:util';
import { createMatch, RULE_SETS, VARIANTS, type Variant } from '@dominoes/rules';

export type Mode = 'play' | 'idle';

export interface MetricsTarget {
  /** A short name for the charts: given as `name=url`, else the URL's host:port. */
  readonly name: string;
  readonly url: string;
}

export interface LoadConfig {
  /** The gateway's base URL (HTTP API and /ws). */
  readonly url: string;
  readonly tables: number;
  readonly variant: Variant;
  readonly seats: number;
  readonly target: number;
  /** Think time before each intent: uniform in [min, max] ms; [0, 0] acts at once. */
  readonly thinkMs: readonly [number, number];
  /** Tables are opened evenly over this time; measuring starts after it. */
  readonly rampMs: number;
  /** The measure window after the ramp. */
  readonly durationMs: number;
  /** play: seats play legal moves; idle: seats never act, the deadlines play every turn. */
  readonly mode: Mode;
  /** Open and join every table's sockets, then only hold them (memory per socket). */
  readonly socketsOnly: boolean;
  /**
   * --sockets-only: after the hold, the sockets are closed and the gateway's /metrics are still read
   * for this long (the reading with no socket open that the memory per socket is measured against);
   * 0: no settle, no per-socket figure. Other modes ignore it.
   */
  readonly settleMs: number;
  readonly metrics: readonly MetricsTarget[];
  readonly metricsIntervalMs: number;
  /** Report directory; null means bench-results/loadtest-<timestamp>/ under the current directory. */
  readonly out: string | null;
  readonly seed: string;
  readonly replyTimeoutMs: number;
  /**
   * --seat-rate: the most intents a seat sends per second (0: no limit). The gateway drops a socket's
   * frames above WS_RATE_PER_SECOND (20 by default) without an answer; a seat at a lone table with no
   * think time would go past it.
   */
  readonly seatRate: number;
  /** No progress line (tests). */
  readonly quiet: boolean;
  /** Redis to read INFO from at the window's start and end (the cost per action), or null. */
  readonly redisUrl: string | null;
  /**
   * --redis-cluster-nodes: seed host:port of a Redis Cluster whose every primary and replica is read
   * like --redis-url (per node and summed). Absent when not given.
   */
  readonly redisClusterNodes?: readonly string[];
  /** Postgres database to read pg_stat_database / pg_stat_wal from (the cost per action), or null; the first of several. */
  readonly databaseUrl: string | null;
  /** --database-url given more than once (or comma-separated): every database, read each and summed. Absent for one. */
  readonly databaseUrls?: readonly string[];
  /** Sum the CPU time of local processes by group from /proc (Linux) at the window's start and end. */
  readonly localProcs: boolean;
  /**
   * --slice K/N: this process opens only slice K (0-based) of N of the run's tables: table g of the
   * run when g mod N = K (identities are named by g, so slices never collide). null: every table.
   */
  readonly slice: Slice | null;
  /** --workers N: fork N processes on this machine, one slice each, and merge their reports. */
  readonly workers: number;
  /** --print-report: the whole report.json on stdout as one line, instead of the summary line (pods). */
  readonly printReport: boolean;
}

export interface Slice {
  readonly index: number;
  readonly count: number;
}

/** The run's table numbers that a slice opens (every one without a slice). */
export function sliceTables(tables: number, slice: Slice | null): number[] {
  const out: number[] = [];
  for (let g = slice?.index ?? 0; g < tables; g += slice?.count ?? 1) out.push(g);
  return out;
}

/**
 * "K/N", or "job/N" for a Kubernetes Indexed Job: K is then the pod's JOB_COMPLETION_INDEX.
 */
export function parseSlice(text: string, env: NodeJS.ProcessEnv = process.env): Slice {
  const m = /^(\d+|job)\/(\d+)$/.exec(text.trim());
  if (!m) throw new ArgError(`--slice must look like K/N (slice K of N, from 0) or job/N; got "${text}".`);
  let indexText = m[1]!;
  if (indexText === 'job') {
    const fromEnv = env['JOB_COMPLETION_INDEX'];
    if (fromEnv === undefined || !/^\d+$/.test(fromEnv))
      throw new ArgError(
        `--slice job/N takes K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job sets it); it is ${fromEnv === undefined ? 'not set' : `"${fromEnv}"`}.`,
      );
    indexText = fromEnv;
  }
  const index = Number(indexText);
  const count = Number(m[2]);
  if (count < 1 || count > 10_000) throw new ArgError(`--slice: N must be from 1 to 10000; got ${count}.`);
  if (index >= count)
    throw new ArgError(`--slice: K must be below N (from 0 to ${count - 1}); got ${index}.`);
  return { index, count };
}

export class ArgError extends Error {
  override readonly name = 'ArgError';
}

export const USAGE = `Usage: npm run loadtest -- [options]

  --url URL            gateway base URL (default http://localhost:8080)
  --tables N           tables to open (default 10)
  --variant V          ${VARIANTS.join(' | ')} (default partnership)
  --seats N            seats per table, as many as the variant allows (default: the most)
  --target N           points to win a match, one the variant allows (default: the highest);
                       a finished match is followed by a new one, started by the host
  --think A-Bs         think time before each move, uniform in [A, B] (default 1-3s; 0 = none)
  --ramp T             open the tables evenly over T (default 30s)
  --duration T         measure for T after the ramp (default 5m)
  --mode play|idle     idle: seats never act, every turn is played by its deadline (default play)
  --sockets-only       open and join every table's sockets, then only hold them
  --settle T           --sockets-only: after the hold, close the sockets and keep reading the
                       gateway's /metrics for T (default 60s; 0 = no settle, no per-socket figure)
  --metrics URLS       comma-separated /metrics URLs of the services, each optionally name=URL,
                       sampled every 5 s (default: none)
  --metrics-interval T sampling interval (default 5s)
  --out DIR            report directory (default bench-results/loadtest-<timestamp>/)
  --seed S             seed of the moves and think times (default 1)
  --reply-timeout T    how long an intent may wait for its ack (default 10s)
  --seat-rate N        at most N intents per second from one seat (default 15; the gateway
                       drops frames above 20 a second per socket by default; 0 = no limit)
  --quiet              no progress line
  --redis-url URL      read this Redis's INFO (commandstats, stats, cpu) at the window's start
                       and end: Redis commands, bytes and CPU per action
  --redis-cluster-nodes HOST:PORT,...
                       a Redis Cluster instead: find every primary and replica (CLUSTER NODES)
                       and read each one's INFO; per node and summed
  --database-url URL   read pg_stat_database (and pg_stat_wal) of this Postgres database at the
                       window's start and end: commits, rows written, WAL bytes per action;
                       repeat it (or comma-separate) for several databases: each and the sum
  --local-procs        (Linux) CPU time per action of local processes from /proc: postgres,
                       redis-server, gateway, table-service, timer-service, and this tool
  --workers N          run N processes on this machine, each its slice of the tables, and
                       merge their reports into one (default 1)
  --slice K/N          this process runs only slice K of N (table g when g mod N = K), for one
                       process or pod per slice; job/N takes K from JOB_COMPLETION_INDEX
  --print-report       print the whole report.json on stdout (one line) instead of the
                       summary line, for kubectl logs
  --help               this text

  npm run loadtest -- merge REPORT.json... --out DIR
                       join the reports of one run's slices into one report.json and report.html

Times: 500ms, 30s, 5m, 1h, 1m30s, or a plain number of seconds.`;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "30s", "5m", "1m30s", "250ms", "2" (seconds) → milliseconds. */
export function parseDuration(text: string, what = 'a time'): number {
  const trimmed = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed)
    throw new ArgError(`${what} must look like 500ms, 30s, 5m, 1h or 1m30s; got "${text}".`);
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0));
}

/** "1-3s" (both in s), "500ms-2s", "2s" (fixed), "0" → [min, max] ms. */
export function parseThink(text: string): [number, number] {
  const trimmed = text.trim().toLowerCase();
  const [left, right, ...rest] = trimmed.split('-');
  if (rest.length > 0 || left === undefined || left === '')
    throw new ArgError(`--think must look like 1-3s, 500ms-2s, 2s or 0; got "${text}".`);
  if (right === undefined) {
    const fixed = parseDuration(left, '--think');
    return [fixed, fixed];
  }
  // A bare left number takes the right side's unit: 1-3s is 1s to 3s.
  const unit = /(ms|s|m|h)$/.exec(right)?.[1] ?? 's';
  const min = parseDuration(/^\d+(\.\d+)?$/.test(left) ? `${left}${unit}` : left, '--think');
  const max = parseDuration(right, '--think');
  if (min > max) throw new ArgError(`--think: the lower bound is above the upper one in "${text}".`);
  return [min, max];
}

function wholeNumber(text: string, flag: string): number {
  if (!/^\d+$/.test(text.trim())) throw new ArgError(`${flag} must be a whole number; got "${text}".`);
  return Number(text);
}

function parseWhole(text: string, flag: string, min: number, max: number): number {
  const value = wholeNumber(text, flag);
  if (value < min || value > max) throw new ArgError(`${flag} must be from ${min} to ${max}; got ${value}.`);
  return value;
}

function parseUrl(text: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ArgError(`${flag} must be an absolute http(s) URL; got "${text}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ArgError(`${flag} must be an http:// or https:// URL; got "${text}".`);
  return text.replace(/\/+$/, '');
}

/** A redis:// or rediss:// URL, or a postgres:// or postgresql:// one. */
function parseStoreUrl(text: string, flag: string, protocols: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ArgError(`${flag} must be a ${protocols.join(' or ')}// URL; got "${text}".`);
  }
  if (!protocols.includes(url.protocol))
    throw new ArgError(`${flag} must be a ${protocols.join(' or ')}// URL; got "${text}".`);
  return text;
}

/** --redis-cluster-nodes' host:port items (at least one). */
function parseClusterNodes(items: readonly string[]): string[] {
  if (items.length === 0) throw new ArgError('--redis-cluster-nodes needs host:port,host:port,...');
  for (const item of items)
    if (!/^[^\s:/]+:\d{1,5}$/.test(item) || Number(item.slice(item.lastIndexOf(':') + 1)) > 65535)
      throw new ArgError(`--redis-cluster-nodes must be host:port,host:port,...; got "${item}".`);
  return [...items];
}

/** The URL without its password, for the report and the log. */
export function redactUrl(text: string | null): string | null {
  if (text === null) return null;
  try {
    const url = new URL(text);
    if (url.password === '') return text;
    url.password = '***';
    return url.toString();
  } catch {
    return text;
  }
}

export function parseMetrics(text: string): MetricsTarget[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => {
      const eq = item.indexOf('=');
      const named = eq > 0 && !item.slice(0, eq).includes('/');
      const url = parseUrl(named ? item.slice(eq + 1) : item, '--metrics');
      const u = new URL(url);
      return {
        name: named ? item.slice(0, eq) : u.host + (u.pathname === '/metrics' ? '' : u.pathname),
        url,
      };
    });
}

/** Every option, with its default. Flags may also be written `--flag=true` or `--flag=false`. */
const OPTIONS = {
  url: { type: 'string', default: 'http://localhost:8080' },
  tables: { type: 'string', default: '10' },
  variant: { type: 'string', default: 'partnership' },
  seats: { type: 'string' },
  target: { type: 'string' },
  think: { type: 'string', default: '1-3s' },
  ramp: { type: 'string', default: '30s' },
  duration: { type: 'string', default: '5m' },
  mode: { type: 'string', default: 'play' },
  'sockets-only': { type: 'boolean' },
  settle: { type: 'string', default: '60s' },
  metrics: { type: 'string' },
  'metrics-interval': { type: 'string', default: '5s' },
  out: { type: 'string' },
  seed: { type: 'string', default: '1' },
  'reply-timeout': { type: 'string', default: '10s' },
  'seat-rate': { type: 'string', default: '15' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
  'redis-url': { type: 'string' },
  'redis-cluster-nodes': { type: 'string' },
  'database-url': { type: 'string', multiple: true },
  'local-procs': { type: 'boolean' },
  workers: { type: 'string', default: '1' },
  slice: { type: 'string' },
  'print-report': { type: 'boolean' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

type OptionName = keyof typeof OPTIONS;
type StringOption = {
  [K in OptionName]: (typeof OPTIONS)[K]['type'] extends 'string' ? K : never;
}[OptionName];

/**
 * Reads argv with `parseArgs` (not strict: the checks below say what is wrong in the tool's own words).
 * A value that looks like another option (`--tables --quiet`) is a missing value.
 */
function readOptions(argv: readonly string[]) {
  const { values, tokens } = readArgv({
    args: [...argv],
    options: OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const given = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option' || !token.rawName.startsWith('--'))
      throw new ArgError(`Unexpected argument "${argv[token.index]}". See --help.`);
    if (!Object.hasOwn(OPTIONS, token.name))
      throw new ArgError(`Unknown option --${token.name}. See --help.`);
    const { value } = token;
    if (OPTIONS[token.name as OptionName].type === 'boolean') {
      if (value !== undefined && value !== 'true' && value !== 'false')
        throw new ArgError(`--${token.name} takes no value.`);
    } else if (value === undefined || (!token.inlineValue && value.startsWith('--') && value.length > 2)) {
      throw new ArgError(`--${token.name} needs a value.`);
    }
    given.add(token.name);
  }
  return {
    given: (name: OptionName): boolean => given.has(name),
    flag: (name: OptionName): boolean => values[name] === true || values[name] === 'true',
    text: (name: StringOption): string | undefined => {
      const value = values[name] as string | string[] | undefined;
      return Array.isArray(value) ? value.at(-1) : value;
    },
    /** Every value of an option given more than once, each split at commas. */
    list: (name: StringOption): string[] => {
      const value = values[name] as string | string[] | undefined;
      return (value === undefined ? [] : [value].flat())
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v !== '');
    },
  };
}

/** The table: variant, seats and target as the rules allow them (the rules' own refusals). */
function readTable(options: ReturnType<typeof readOptions>): {
  variant: Variant;
  seats: number;
  target: number;
} {
  const variantText = options.text('variant') as string;
  if (!(VARIANTS as readonly string[]).includes(variantText))
    throw new ArgError(
      `--variant must be ${VARIANTS.slice(0, -1).join(', ')} or ${VARIANTS.at(-1)}; got "${variantText}".`,
    );
  const variant = variantText as Variant;
  const rules = RULE_SETS[variant];
  const seatsText = options.text('seats');
  const seats = seatsText === undefined ? rules.maxSeats : wholeNumber(seatsText, '--seats');
  // By default the longest match the variant allows: a load test plays long matches.
  const targetText = options.text('target');
  const target = targetText === undefined ? Math.max(...rules.targets) : wholeNumber(targetText, '--target');
  const created = createMatch({ variant, seats, target });
  if (!created.ok) {
    const flags: Partial<Record<string, string>> = {
      INVALID_SEAT_COUNT: '--seats',
      INVALID_TARGET: '--target',
    };
    const flag = flags[created.error.code] ?? '--variant';
    throw new ArgError(`${flag} (${variant}): ${created.error.message}`);
  }
  return { variant, seats, target };
}

/** Parses argv (without node and the script); returns null when --help was asked for. */
export function parseArgs(
  argv: readonly string[],
  platform: string = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): LoadConfig | null {
  const options = readOptions(argv);
  if (options.given('help')) return null;
  const text = (name: StringOption): string => options.text(name) as string;
  const { variant, seats, target } = readTable(options);

  const mode = text('mode');
  if (mode !== 'play' && mode !== 'idle') throw new ArgError(`--mode must be play or idle; got "${mode}".`);

  const metricsText = options.text('metrics');
  const intervalMs = parseDuration(text('metrics-interval'), '--metrics-interval');
  if (intervalMs < 500) throw new ArgError('--metrics-interval must be at least 500ms.');
  const replyTimeoutMs = parseDuration(text('reply-timeout'), '--reply-timeout');
  if (replyTimeoutMs < 100) throw new ArgError('--reply-timeout must be at least 100ms.');
  const durationMs = parseDuration(text('duration'), '--duration');
  if (durationMs < 1000) throw new ArgError('--duration must be at least 1s.');
  const settleMs = parseDuration(text('settle'), '--settle');
  const redisUrl = options.text('redis-url');
  const databaseUrls = options
    .list('database-url')
    .map((u) => parseStoreUrl(u, '--database-url', ['postgres:', 'postgresql:']));
  if (options.given('database-url') && databaseUrls.length === 0)
    throw new ArgError('--database-url needs a postgres:// or postgresql:// URL.');
  if (new Set(databaseUrls).size < databaseUrls.length)
    throw new ArgError('--database-url names one database twice: its figures would count twice in the sum.');
  const clusterNodes = options.given('redis-cluster-nodes')
    ? parseClusterNodes(options.list('redis-cluster-nodes'))
    : null;
  if (clusterNodes !== null && redisUrl !== undefined)
    throw new ArgError(
      '--redis-url and --redis-cluster-nodes do not go together: read one Redis or one cluster.',
    );
  const localProcs = options.flag('local-procs');
  if (localProcs && platform !== 'linux')
    throw new ArgError(`--local-procs reads /proc: Linux only (this is ${platform}).`);
  const tables = parseWhole(text('tables'), '--tables', 1, 100_000);
  const workers = parseWhole(text('workers'), '--workers', 1, 64);
  const sliceText = options.text('slice');
  const slice = sliceText === undefined ? null : parseSlice(sliceText, env);
  if (slice !== null && workers > 1)
    throw new ArgError('--workers and --slice do not go together: --workers makes the slices itself.');
  const slices = slice?.count ?? workers;
  if (slices > tables)
    throw new ArgError(
      `${slice ? '--slice' : '--workers'}: ${slices} slices of ${tables} tables would leave some empty.`,
    );

  return {
    url: parseUrl(text('url'), '--url'),
    tables,
    variant,
    seats,
    target,
    thinkMs: parseThink(text('think')),
    rampMs: parseDuration(text('ramp'), '--ramp'),
    durationMs,
    mode,
    socketsOnly: options.flag('sockets-only'),
    settleMs,
    metrics: metricsText === undefined ? [] : parseMetrics(metricsText),
    metricsIntervalMs: intervalMs,
    out: options.text('out') ?? null,
    seed: text('seed'),
    replyTimeoutMs,
    seatRate: parseWhole(text('seat-rate'), '--seat-rate', 0, 100_000),
    quiet: options.flag('quiet'),
    redisUrl: redisUrl === undefined ? null : parseStoreUrl(redisUrl, '--redis-url', ['redis:', 'rediss:']),
    ...(clusterNodes === null ? {} : { redisClusterNodes: clusterNodes }),
    databaseUrl: databaseUrls[0] ?? null,
    ...(databaseUrls.length > 1 ? { databaseUrls } : {}),
    localProcs,
    slice,
    workers,
    printReport: options.flag('print-report'),
  };
}

/** The gateway's WebSocket URL: http → ws, https → wss, plus /ws. */
export function wsUrlOf(httpUrl: string): string {
  return httpUrl.replace(/^http/, 'ws') + '/ws';
}

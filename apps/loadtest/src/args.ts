/**
 * The command line, parsed by hand (no dependency): `--name value` or `--name=value`, flags alone.
 * Every problem is an ArgError with a sentence that says what was expected.
 */

export type Variant = 'partnership' | 'draw' | 'five-tile';
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
  /** No progress line (tests). */
  readonly quiet: boolean;
  /** Redis to read INFO from at the window's start and end (the cost per action), or null. */
  readonly redisUrl: string | null;
  /** Postgres database to read pg_stat_database / pg_stat_wal from (the cost per action), or null. */
  readonly databaseUrl: string | null;
  /** Sum the CPU time of local processes by group from /proc (Linux) at the window's start and end. */
  readonly localProcs: boolean;
}

export class ArgError extends Error {
  override readonly name = 'ArgError';
}

export const USAGE = `Usage: npm run loadtest -- [options]

  --url URL            gateway base URL (default http://localhost:8080)
  --tables N           tables to open (default 10)
  --variant V          partnership | draw | five-tile (default partnership)
  --seats N            seats per table, 2-4 (partnership: always 4; default 4)
  --target N           points to win a match (default 500, five-tile: 100); a finished
                       match is followed by a new one, started by the host
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
  --quiet              no progress line
  --redis-url URL      read this Redis's INFO (commandstats, stats, cpu) at the window's start
                       and end: Redis commands, bytes and CPU per action
  --database-url URL   read pg_stat_database (and pg_stat_wal) of this Postgres database at the
                       window's start and end: commits, rows written, WAL bytes per action
  --local-procs        (Linux) CPU time per action of local processes from /proc: postgres,
                       redis-server, gateway, table-service, timer-service, and this tool
  --help               this text

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

function parseWhole(text: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(text.trim())) throw new ArgError(`${flag} must be a whole number; got "${text}".`);
  const value = Number(text);
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

const VARIANTS: readonly Variant[] = ['partnership', 'draw', 'five-tile'];
const FLAGS = new Set(['sockets-only', 'quiet', 'help', 'local-procs']);

/** Parses argv (without node and the script); returns null when --help was asked for. */
export function parseArgs(argv: readonly string[], platform: string = process.platform): LoadConfig | null {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new ArgError(`Unexpected argument "${arg}". See --help.`);
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    let value: string;
    if (FLAGS.has(name)) {
      value = eq > 0 ? arg.slice(eq + 1) : 'true';
    } else if (eq > 0) {
      value = arg.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('--') && next.length > 2))
        throw new ArgError(`--${name} needs a value.`);
      value = next;
      i++;
    }
    if (!KNOWN.has(name)) throw new ArgError(`Unknown option --${name}. See --help.`);
    values.set(name, value);
  }
  if (values.has('help')) return null;
  const flag = (name: string): boolean => {
    const v = values.get(name);
    if (v === undefined || v === 'false') return false;
    if (v === 'true') return true;
    throw new ArgError(`--${name} takes no value.`);
  };

  const variantText = values.get('variant') ?? 'partnership';
  if (!VARIANTS.includes(variantText as Variant))
    throw new ArgError(`--variant must be partnership, draw or five-tile; got "${variantText}".`);
  const variant = variantText as Variant;
  const seatsText = values.get('seats');
  const seats = seatsText === undefined ? 4 : parseWhole(seatsText, '--seats', 2, 4);
  if (variant === 'partnership' && seats !== 4)
    throw new ArgError('--seats: a partnership table has exactly 4 seats.');
  const targetText = values.get('target');
  const target =
    targetText === undefined
      ? variant === 'five-tile'
        ? 100
        : 500
      : parseWhole(targetText, '--target', 50, 500);
  if (variant === 'five-tile' && target !== 100)
    throw new ArgError('--target: the five-tile game is played to 100 (F8).');
  if (target % 50 !== 0) throw new ArgError(`--target must be 50 to 500 in steps of 50; got ${target}.`);

  const mode = values.get('mode') ?? 'play';
  if (mode !== 'play' && mode !== 'idle') throw new ArgError(`--mode must be play or idle; got "${mode}".`);

  const metricsText = values.get('metrics');
  const intervalMs = parseDuration(values.get('metrics-interval') ?? '5s', '--metrics-interval');
  if (intervalMs < 500) throw new ArgError('--metrics-interval must be at least 500ms.');
  const replyTimeoutMs = parseDuration(values.get('reply-timeout') ?? '10s', '--reply-timeout');
  if (replyTimeoutMs < 100) throw new ArgError('--reply-timeout must be at least 100ms.');
  const durationMs = parseDuration(values.get('duration') ?? '5m', '--duration');
  if (durationMs < 1000) throw new ArgError('--duration must be at least 1s.');
  const settleMs = parseDuration(values.get('settle') ?? '60s', '--settle');
  const redisUrl = values.get('redis-url');
  const databaseUrl = values.get('database-url');
  const localProcs = flag('local-procs');
  if (localProcs && platform !== 'linux')
    throw new ArgError(`--local-procs reads /proc: Linux only (this is ${platform}).`);

  return {
    url: parseUrl(values.get('url') ?? 'http://localhost:8080', '--url'),
    tables: parseWhole(values.get('tables') ?? '10', '--tables', 1, 100_000),
    variant,
    seats,
    target,
    thinkMs: parseThink(values.get('think') ?? '1-3s'),
    rampMs: parseDuration(values.get('ramp') ?? '30s', '--ramp'),
    durationMs,
    mode,
    socketsOnly: flag('sockets-only'),
    settleMs,
    metrics: metricsText === undefined ? [] : parseMetrics(metricsText),
    metricsIntervalMs: intervalMs,
    out: values.get('out') ?? null,
    seed: values.get('seed') ?? '1',
    replyTimeoutMs,
    quiet: flag('quiet'),
    redisUrl: redisUrl === undefined ? null : parseStoreUrl(redisUrl, '--redis-url', ['redis:', 'rediss:']),
    databaseUrl:
      databaseUrl === undefined
        ? null
        : parseStoreUrl(databaseUrl, '--database-url', ['postgres:', 'postgresql:']),
    localProcs,
  };
}

const KNOWN = new Set([
  'url',
  'tables',
  'variant',
  'seats',
  'target',
  'think',
  'ramp',
  'duration',
  'mode',
  'sockets-only',
  'settle',
  'metrics',
  'metrics-interval',
  'out',
  'seed',
  'reply-timeout',
  'quiet',
  'help',
  'redis-url',
  'database-url',
  'local-procs',
]);

/** The gateway's WebSocket URL: http → ws, https → wss, plus /ws. */
export function wsUrlOf(httpUrl: string): string {
  return httpUrl.replace(/^http/, 'ws') + '/ws';
}

/**
 * What the measure window cost Redis: `INFO` (commandstats, stats, cpu) read at the window's start
 * and end, and the difference divided by the actions. These are whole-server counters: every
 * client of that Redis counts, not only the services under test.
 */
import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { perAction, round } from './cost-math';

export interface RedisCommandStat {
  readonly calls: number;
  /** Time spent executing the command inside Redis, in µs. */
  readonly usec: number;
}

/** One reading of INFO. */
export interface RedisSnapshot {
  /** performance.now() when the reply came. */
  readonly atMs: number;
  /** By command name as commandstats spells it (`xadd`, `client|setname`). */
  readonly commands: Readonly<Record<string, RedisCommandStat>>;
  readonly totalCommandsProcessed: number;
  readonly netInputBytes: number;
  readonly netOutputBytes: number;
  /** used_cpu_sys + used_cpu_user of the server process (all its threads), in seconds. */
  readonly cpuSeconds: number;
  /** INFO replication's role (master → primary, slave → replica), when INFO has it. */
  readonly role?: 'primary' | 'replica';
}

export interface RedisTopCommand {
  readonly command: string;
  readonly calls: number;
  readonly perAction: number | null;
  /** Mean time inside Redis per call, µs. */
  readonly usecPerCall: number | null;
}

export interface RedisCost {
  /** The URL read (without its password). */
  readonly url: string;
  /** Between the two readings. */
  readonly seconds: number;
  /** The sum of commandstats' calls (the tool's own INFO excluded). */
  readonly commands: number;
  /** total_commands_processed (the tool's own INFO excluded). */
  readonly totalCommandsProcessed: number;
  readonly netInputBytes: number;
  readonly netOutputBytes: number;
  /** The server's CPU time (INFO cpu: used_cpu_sys + used_cpu_user). */
  readonly cpuMs: number;
  readonly cores: number;
  /** Every command that ran in the window, most calls first. */
  readonly topCommands: RedisTopCommand[];
  /** Null when the window has no actions. */
  readonly perAction: {
    readonly commands: number;
    readonly totalCommandsProcessed: number;
    readonly netInputBytes: number;
    readonly netOutputBytes: number;
    readonly cpuMs: number;
  } | null;
  readonly note: string;
}

/** INFO's text → field → value; section headers (`# Stats`) and blank lines skipped. */
export function parseInfo(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    out.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return out;
}

/** `calls=12,usec=34,usec_per_call=2.83,rejected_calls=0,failed_calls=0` → calls and usec. */
export function parseCommandStat(value: string): RedisCommandStat | null {
  const fields = new Map<string, string>();
  for (const pair of value.split(',')) {
    const eq = pair.indexOf('=');
    if (eq > 0) fields.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  const calls = Number(fields.get('calls'));
  const usec = Number(fields.get('usec') ?? 0);
  if (!Number.isFinite(calls)) return null;
  return { calls, usec: Number.isFinite(usec) ? usec : 0 };
}

function field(info: Map<string, string>, name: string): number {
  const value = Number(info.get(name));
  if (info.get(name) === undefined || !Number.isFinite(value))
    throw new Error(`Redis INFO has no number for ${name}`);
  return value;
}

/** One snapshot from the text of `INFO all` (or any INFO holding commandstats, stats and cpu). */
export function redisSnapshotFromInfo(text: string, atMs: number): RedisSnapshot {
  const info = parseInfo(text);
  const commands: Record<string, RedisCommandStat> = {};
  for (const [key, value] of info) {
    if (!key.startsWith('cmdstat_')) continue;
    const stat = parseCommandStat(value);
    if (stat !== null) commands[key.slice('cmdstat_'.length).toLowerCase()] = stat;
  }
  return {
    atMs,
    commands,
    totalCommandsProcessed: field(info, 'total_commands_processed'),
    netInputBytes: field(info, 'total_net_input_bytes'),
    netOutputBytes: field(info, 'total_net_output_bytes'),
    cpuSeconds: field(info, 'used_cpu_sys') + field(info, 'used_cpu_user'),
    ...(info.get('role') === 'master'
      ? { role: 'primary' as const }
      : info.get('role') === 'slave'
        ? { role: 'replica' as const }
        : {}),
  };
}

export const REDIS_NOTE =
  'Whole-server counters: every client of this Redis counts, not only the services under test. ' +
  'Commands called inside Lua scripts (EVALSHA, FCALL: BullMQ) count under their own names as well as the script call. ' +
  "The tool's own INFO (one command) is left out.";

/**
 * From two snapshots to the window's cost. `ownInfoCalls`: INFO commands the tool itself sent
 * between them (the reading taken at the start counts in the end's figures).
 */
export function redisCost(
  a: RedisSnapshot,
  b: RedisSnapshot,
  actions: number,
  url: string,
  ownInfoCalls = 1,
): { cost: RedisCost; warnings: string[] } {
  const warnings: string[] = [];
  if (b.totalCommandsProcessed < a.totalCommandsProcessed)
    warnings.push(
      'Redis: total_commands_processed went down during the window (a restart or CONFIG RESETSTAT): the Redis figures are wrong.',
    );
  const seconds = Math.max(0, (b.atMs - a.atMs) / 1000);
  const rows: { command: string; calls: number; usec: number }[] = [];
  for (const [command, end] of Object.entries(b.commands)) {
    const start = a.commands[command] ?? { calls: 0, usec: 0 };
    let calls = end.calls - start.calls;
    if (command === 'info') calls -= ownInfoCalls;
    if (calls > 0) rows.push({ command, calls, usec: Math.max(0, end.usec - start.usec) });
  }
  return {
    cost: redisCostOf({
      url,
      seconds,
      rows,
      totalCommandsProcessed: Math.max(0, b.totalCommandsProcessed - a.totalCommandsProcessed - ownInfoCalls),
      netInputBytes: Math.max(0, b.netInputBytes - a.netInputBytes),
      netOutputBytes: Math.max(0, b.netOutputBytes - a.netOutputBytes),
      cpuMs: Math.max(0, (b.cpuSeconds - a.cpuSeconds) * 1000),
      actions,
      note: REDIS_NOTE,
    }),
    warnings,
  };
}

/** A window's differences, by command and in total, before they are rounded and divided. */
export interface RedisWindow {
  readonly url: string;
  readonly seconds: number;
  /** Calls and µs by command (any order). */
  readonly rows: readonly { readonly command: string; readonly calls: number; readonly usec: number }[];
  readonly totalCommandsProcessed: number;
  readonly netInputBytes: number;
  readonly netOutputBytes: number;
  readonly cpuMs: number;
  readonly actions: number;
  readonly note: string;
}

/** The RedisCost of a window: rounded totals, commands most calls first, and per action. */
export function redisCostOf(w: RedisWindow): RedisCost {
  const rows = [...w.rows].sort((x, y) => y.calls - x.calls || x.command.localeCompare(y.command));
  const commands = rows.reduce((s, r) => s + r.calls, 0);
  const per = (n: number, digits = 2) => perAction(n, w.actions, digits);
  return {
    url: w.url,
    seconds: round(w.seconds, 3),
    commands,
    totalCommandsProcessed: w.totalCommandsProcessed,
    netInputBytes: w.netInputBytes,
    netOutputBytes: w.netOutputBytes,
    cpuMs: round(w.cpuMs, 1),
    cores: w.seconds > 0 ? round(w.cpuMs / 1000 / w.seconds, 3) : 0,
    topCommands: rows.map((r) => ({
      command: r.command,
      calls: r.calls,
      perAction: per(r.calls),
      usecPerCall: round(r.usec / r.calls, 2),
    })),
    perAction:
      w.actions > 0
        ? {
            commands: per(commands)!,
            totalCommandsProcessed: per(w.totalCommandsProcessed)!,
            netInputBytes: per(w.netInputBytes, 0)!,
            netOutputBytes: per(w.netOutputBytes, 0)!,
            cpuMs: per(w.cpuMs, 3)!,
          }
        : null,
    note: w.note,
  };
}

/** One connection to the Redis, opened before the ramp and read at the window's edges. */
export class RedisSampler {
  private constructor(
    private readonly redis: Redis,
    readonly url: string,
  ) {}

  /** Connects (and fails fast, within `timeoutMs`, when Redis is not there). */
  static async connect(url: string, timeoutMs = 5000): Promise<RedisSampler> {
    const redis = new Redis(url, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      maxRetriesPerRequest: 1,
      enableReadyCheck: false,
      // A dropped connection is tried again a few times (the window's end still needs a reading).
      retryStrategy: (times) => (times > 5 ? null : 200 * times),
      connectionName: 'dominoes-loadtest-cost',
    });
    // ioredis rejects with "Connection is closed."; the socket's own error says why.
    let cause: Error | null = null;
    redis.on('error', (error: Error) => (cause ??= error));
    try {
      await redis.connect();
    } catch (error) {
      redis.disconnect();
      throw cause ?? error;
    }
    return new RedisSampler(redis, url);
  }

  /** `INFO all`: one command, whatever the server's version (7.0 takes several sections, 6 does not). */
  async snapshot(): Promise<RedisSnapshot> {
    const text = await this.redis.info('all');
    return redisSnapshotFromInfo(text, performance.now());
  }

  /** Another command's text reply (CLUSTER NODES), sent outside the window. */
  async command(name: string, ...args: string[]): Promise<string> {
    return String(await this.redis.call(name, ...args));
  }

  close(): void {
    this.redis.disconnect();
  }
}

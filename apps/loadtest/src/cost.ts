/**
 * The measured cost of one action in each process: readings of Redis (INFO), Postgres
 * (pg_stat_database, pg_stat_wal), local processes (/proc) and the services' /metrics at the
 * measure window's start and end, divided by the window's actions (docs/loadtest.md, "Cost").
 */
import { redactUrl, type LoadConfig } from './args';
import { perAction, round } from './cost-math';
import { postgresCost, PostgresSampler, type PgSnapshot, type PostgresCost } from './postgres-cost';
import {
  clockTicksPerSecond,
  processesCost,
  readProcSnapshot,
  type ProcessesCost,
  type ProcSnapshot,
} from './proc-cost';
import { redisCost, RedisSampler, type RedisCost, type RedisSnapshot } from './redis-cost';
import type { ServiceSample } from './service-metrics';

/** A service's CPU over the window from its /metrics (process_cpu_seconds_total). */
export interface ServiceMetricsCost {
  readonly name: string;
  /** Seconds since the run's start of the two scrapes used. */
  readonly fromT: number | null;
  readonly toT: number | null;
  readonly cpuMs: number | null;
  readonly cpuMsPerAction: number | null;
  readonly cores: number | null;
}

export type CpuSource = '/proc' | '/metrics' | 'redis INFO cpu' | 'process.cpuUsage';

export interface CostReport {
  /** The denominator: the window's acknowledged moves (play), its deadline moves (idle), else 0. */
  readonly actions: number;
  readonly denominator: 'acknowledged moves' | 'deadline moves' | 'none';
  readonly windowSeconds: number;
  /** Other stored events of the window, not in the denominator. */
  readonly alsoInWindow: {
    readonly acknowledgedMoves: number;
    readonly hostIntents: number;
    readonly deadlineMoves: number;
  };
  /** The headline figures; every value null when there is no action. */
  readonly perAction: {
    /** CPU ms per action by group, from the best source measured (see cpuSource). */
    readonly cpuMs: Record<string, number | null>;
    readonly cpuSource: Record<string, CpuSource>;
    readonly redisCommands: number | null;
    readonly redisNetInputBytes: number | null;
    readonly redisNetOutputBytes: number | null;
    readonly redisCpuMs: number | null;
    readonly pgCommits: number | null;
    readonly pgRowsWritten: number | null;
    readonly pgWalBytes: number | null;
  };
  readonly redis: RedisCost | null;
  readonly postgres: PostgresCost | null;
  readonly processes: ProcessesCost | null;
  /** From the services' /metrics (--metrics), one replica per URL. */
  readonly services: ServiceMetricsCost[];
  /** This tool over the window (process.cpuUsage()). */
  readonly tool: { readonly cpuMs: number; readonly cores: number };
}

/** One row of the report's CPU table: a group, its figure per action and where it comes from. */
export interface CpuRow {
  readonly group: string;
  readonly cpuMsPerAction: number | null;
  readonly cpuMs: number | null;
  readonly cores: number | null;
  /** "start → end" from /proc, else null. */
  readonly processes: string | null;
  readonly source: CpuSource;
  /** The /metrics figure when another source was preferred (to compare). */
  readonly metricsCpuMsPerAction: number | null;
}

export function cpuRows(cost: CostReport): CpuRow[] {
  const procs = new Map((cost.processes?.groups ?? []).map((g) => [g.group, g]));
  const metrics = new Map(cost.services.map((s) => [s.name, s]));
  return Object.entries(cost.perAction.cpuMs).map(([group, perAct]) => {
    const source = cost.perAction.cpuSource[group]!;
    const p = procs.get(group);
    const m = metrics.get(group);
    const totals =
      source === '/proc'
        ? { cpuMs: p!.cpuMs, cores: p!.cores }
        : source === '/metrics'
          ? { cpuMs: m!.cpuMs, cores: m!.cores }
          : source === 'redis INFO cpu'
            ? { cpuMs: cost.redis!.cpuMs, cores: cost.redis!.cores }
            : cost.tool;
    return {
      group,
      cpuMsPerAction: perAct,
      ...totals,
      processes: p ? `${p.processesAtStart} → ${p.processesAtEnd}` : null,
      source,
      metricsCpuMsPerAction: source !== '/metrics' ? (m?.cpuMsPerAction ?? null) : null,
    };
  });
}

/** The denominator of a run: see CostReport.actions. */
export function costDenominator(
  config: Pick<LoadConfig, 'mode' | 'socketsOnly'>,
  window: { readonly actions: number; readonly deadlineMoves: number },
): { actions: number; denominator: CostReport['denominator'] } {
  if (config.socketsOnly) return { actions: 0, denominator: 'none' };
  if (config.mode === 'idle') return { actions: window.deadlineMoves, denominator: 'deadline moves' };
  return { actions: window.actions, denominator: 'acknowledged moves' };
}

/** Each service's CPU between its scrape at the window's start and the one at its end. */
export function servicesCost(
  start: readonly ServiceSample[],
  end: readonly ServiceSample[],
  names: readonly string[],
  actions: number,
): { services: ServiceMetricsCost[]; warnings: string[] } {
  const warnings: string[] = [];
  const services = names.map((name, i): ServiceMetricsCost => {
    const a = start[i];
    const b = end[i];
    const none = {
      name,
      fromT: a?.t ?? null,
      toT: b?.t ?? null,
      cpuMs: null,
      cpuMsPerAction: null,
      cores: null,
    };
    if (a?.cpuSeconds == null || b?.cpuSeconds == null) return none;
    if (b.cpuSeconds < a.cpuSeconds) {
      warnings.push(
        `${name}: process_cpu_seconds_total went down during the window (a restart?): no CPU per action.`,
      );
      return none;
    }
    const cpuMs = (b.cpuSeconds - a.cpuSeconds) * 1000;
    const seconds = b.t - a.t;
    return {
      name,
      fromT: a.t,
      toT: b.t,
      cpuMs: round(cpuMs, 1),
      cpuMsPerAction: perAction(cpuMs, actions, 3),
      cores: seconds > 0 ? round(cpuMs / 1000 / seconds, 3) : null,
    };
  });
  return { services, warnings };
}

export interface CostParts {
  readonly actions: number;
  readonly denominator: CostReport['denominator'];
  readonly windowSeconds: number;
  readonly alsoInWindow: CostReport['alsoInWindow'];
  /** This tool's CPU over the window (process.cpuUsage()). */
  readonly toolCpuMs: number;
  readonly redis: RedisCost | null;
  readonly postgres: PostgresCost | null;
  readonly processes: ProcessesCost | null;
  readonly services: ServiceMetricsCost[];
}

/**
 * The cost section. CPU per action by group takes /proc when it saw the group's processes, else
 * the service's /metrics, else (Redis) INFO's CPU; the tool's own comes from process.cpuUsage().
 */
export function buildCost(p: CostParts): CostReport {
  const cpuMs: Record<string, number | null> = {};
  const cpuSource: Record<string, CpuSource> = {};
  const seen = (g: { processesAtStart: number; processesAtEnd: number }) =>
    g.processesAtStart + g.processesAtEnd > 0;
  for (const g of p.processes?.groups ?? []) {
    if (g.group === 'loadtest' || !seen(g)) continue;
    cpuMs[g.group] = g.cpuMsPerAction;
    cpuSource[g.group] = '/proc';
  }
  for (const s of p.services) {
    if (s.name in cpuMs || s.cpuMs === null) continue;
    cpuMs[s.name] = s.cpuMsPerAction;
    cpuSource[s.name] = '/metrics';
  }
  if (p.redis && !('redis-server' in cpuMs)) {
    cpuMs['redis-server'] = p.redis.perAction?.cpuMs ?? null;
    cpuSource['redis-server'] = 'redis INFO cpu';
  }
  cpuMs['loadtest'] = perAction(p.toolCpuMs, p.actions, 3);
  cpuSource['loadtest'] = 'process.cpuUsage';
  const rpa = p.redis?.perAction ?? null;
  const ppa = p.postgres?.perAction ?? null;
  return {
    actions: p.actions,
    denominator: p.denominator,
    windowSeconds: p.windowSeconds,
    alsoInWindow: p.alsoInWindow,
    perAction: {
      cpuMs,
      cpuSource,
      redisCommands: rpa?.commands ?? null,
      redisNetInputBytes: rpa?.netInputBytes ?? null,
      redisNetOutputBytes: rpa?.netOutputBytes ?? null,
      redisCpuMs: rpa?.cpuMs ?? null,
      pgCommits: ppa?.commits ?? null,
      pgRowsWritten: ppa?.rowsWritten ?? null,
      pgWalBytes: ppa?.walBytes ?? null,
    },
    redis: p.redis,
    postgres: p.postgres,
    processes: p.processes,
    services: p.services,
    tool: {
      cpuMs: round(p.toolCpuMs, 1),
      cores: p.windowSeconds > 0 ? round(p.toolCpuMs / 1000 / p.windowSeconds, 3) : 0,
    },
  };
}

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

interface Readings {
  redis: RedisSnapshot | null;
  postgres: PgSnapshot | null;
  processes: ProcSnapshot | null;
}

/**
 * The readings of Redis, Postgres and /proc that --redis-url, --database-url and --local-procs ask
 * for: connected before the ramp, read at the window's start and end. A source that cannot be
 * read leaves a warning and a null section; the run goes on.
 */
export class CostMeter {
  private startReadings: Readings = { redis: null, postgres: null, processes: null };
  private endReadings: Readings = { redis: null, postgres: null, processes: null };
  private readonly clockTicks: number | null;

  private constructor(
    private readonly redis: RedisSampler | null,
    private readonly postgres: PostgresSampler | null,
    localProcs: boolean,
    readonly warnings: string[],
    private readonly timeoutMs: number,
  ) {
    this.clockTicks = localProcs ? clockTicksPerSecond() : null;
  }

  static async open(config: LoadConfig, timeoutMs = 5000): Promise<CostMeter> {
    const warnings: string[] = [];
    const [redis, postgres] = await Promise.all([
      config.redisUrl === null
        ? null
        : RedisSampler.connect(config.redisUrl, timeoutMs).catch((error: unknown) => {
            warnings.push(
              `Redis cost not measured: cannot connect to ${redactUrl(config.redisUrl)}: ${message(error)}`,
            );
            return null;
          }),
      config.databaseUrl === null
        ? null
        : PostgresSampler.connect(config.databaseUrl, timeoutMs).catch((error: unknown) => {
            warnings.push(
              `Postgres cost not measured: cannot connect to ${redactUrl(config.databaseUrl)}: ${message(error)}`,
            );
            return null;
          }),
    ]);
    return new CostMeter(redis, postgres, config.localProcs, warnings, timeoutMs);
  }

  get enabled(): boolean {
    return this.redis !== null || this.postgres !== null || this.clockTicks !== null;
  }

  /** All readings at once (each source in parallel), so they describe the same moment. */
  private async read(edge: 'start' | 'end'): Promise<Readings> {
    const guard = <T>(what: string, f: () => Promise<T>): Promise<T | null> =>
      withTimeout(f(), this.timeoutMs, what).catch((error: unknown) => {
        this.warnings.push(`${what} at the window's ${edge} failed: ${message(error)}`);
        return null;
      });
    const redis = this.redis ? guard('Redis INFO', () => this.redis!.snapshot()) : Promise.resolve(null);
    const postgres = this.postgres
      ? guard('Postgres statistics', () => this.postgres!.snapshot())
      : Promise.resolve(null);
    let processes: ProcSnapshot | null = null;
    if (this.clockTicks !== null) {
      try {
        processes = readProcSnapshot(this.clockTicks);
      } catch (error) {
        this.warnings.push(`/proc at the window's ${edge} failed: ${message(error)}`);
      }
    }
    return { redis: await redis, postgres: await postgres, processes };
  }

  async start(): Promise<void> {
    this.startReadings = await this.read('start');
  }

  async end(): Promise<void> {
    this.endReadings = await this.read('end');
  }

  /** The three sections, from the readings taken; null where a reading is missing. */
  sections(actions: number): {
    redis: RedisCost | null;
    postgres: PostgresCost | null;
    processes: ProcessesCost | null;
  } {
    const a = this.startReadings;
    const b = this.endReadings;
    let redis: RedisCost | null = null;
    if (a.redis && b.redis && this.redis) {
      const r = redisCost(a.redis, b.redis, actions, redactUrl(this.redis.url)!);
      redis = r.cost;
      this.warnings.push(...r.warnings);
    }
    let postgres: PostgresCost | null = null;
    if (a.postgres && b.postgres) {
      const r = postgresCost(a.postgres, b.postgres, actions);
      postgres = r.cost;
      this.warnings.push(...r.warnings);
    }
    const processes = a.processes && b.processes ? processesCost(a.processes, b.processes, actions) : null;
    return { redis, postgres, processes };
  }

  async close(): Promise<void> {
    this.redis?.close();
    await this.postgres?.close();
  }
}

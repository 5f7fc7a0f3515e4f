/**
 * The measured cost of one action in each process: readings of Redis (INFO), Postgres
 * (pg_stat_database, pg_stat_wal), local processes (/proc) and the services' /metrics at the
 * measure window's start and end, divided by the window's actions (docs/loadtest.md, "Cost").
 */
import { redactUrl, type LoadConfig } from './args';
import { perAction, round } from './cost-math';
import {
  postgresCost,
  PostgresSampler,
  sumPostgresCosts,
  type PgSnapshot,
  type PostgresCost,
  type PostgresDatabaseCost,
} from './postgres-cost';
import {
  clockTicksPerSecond,
  processesCost,
  readProcSnapshot,
  type ProcessesCost,
  type ProcSnapshot,
} from './proc-cost';
import {
  clusterLabel,
  redisClusterCost,
  RedisClusterSampler,
  type RedisNodeCost,
} from './redis-cluster-cost';
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
  /** One Redis (--redis-url), or the sum over every node of a cluster (--redis-cluster-nodes). */
  readonly redis: RedisCost | null;
  /** --redis-cluster-nodes only: each primary and replica's own figures (`redis` is their sum). */
  readonly redisNodes?: RedisNodeCost[];
  /** One database, or the sum of several (--database-url given more than once). */
  readonly postgres: PostgresCost | null;
  /** Several databases only: each one's own figures (`postgres` is their sum). */
  readonly postgresDatabases?: PostgresDatabaseCost[];
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
  readonly redisNodes?: RedisNodeCost[];
  readonly postgres: PostgresCost | null;
  readonly postgresDatabases?: PostgresDatabaseCost[];
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
    ...(p.redisNodes ? { redisNodes: p.redisNodes } : {}),
    postgres: p.postgres,
    ...(p.postgresDatabases ? { postgresDatabases: p.postgresDatabases } : {}),
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
  /** By node id (--redis-cluster-nodes). */
  cluster: Map<string, RedisSnapshot> | null;
  /** One per database sampler, in --database-url's order (null where the reading failed). */
  postgres: (PgSnapshot | null)[];
  processes: ProcSnapshot | null;
}

const NO_READINGS: Readings = { redis: null, cluster: null, postgres: [], processes: null };

/** What CostMeter.sections gives: the report's store and process sections. */
export type CostSections = Pick<
  CostReport,
  'redis' | 'redisNodes' | 'postgres' | 'postgresDatabases' | 'processes'
>;

/**
 * The readings of Redis (one, or every node of a cluster), Postgres (one database or several) and
 * /proc that --redis-url / --redis-cluster-nodes, --database-url and --local-procs ask for:
 * connected before the ramp, read at the window's start and end. A source that cannot be read
 * leaves a warning and a null section; the run goes on.
 */
export class CostMeter {
  private startReadings: Readings = NO_READINGS;
  private endReadings: Readings = NO_READINGS;
  private readonly clockTicks: number | null;

  private constructor(
    private readonly redis: RedisSampler | null,
    private readonly cluster: RedisClusterSampler | null,
    private readonly postgres: readonly PostgresSampler[],
    localProcs: boolean,
    readonly warnings: string[],
    private readonly timeoutMs: number,
  ) {
    this.clockTicks = localProcs ? clockTicksPerSecond() : null;
  }

  static async open(config: LoadConfig, timeoutMs = 5000): Promise<CostMeter> {
    const warnings: string[] = [];
    const nodes = config.redisClusterNodes ?? [];
    const [redis, cluster, postgres] = await Promise.all([
      config.redisUrl === null
        ? null
        : RedisSampler.connect(config.redisUrl, timeoutMs).catch((error: unknown) => {
            warnings.push(
              `Redis cost not measured: cannot connect to ${redactUrl(config.redisUrl)}: ${message(error)}`,
            );
            return null;
          }),
      nodes.length === 0
        ? null
        : RedisClusterSampler.connect(nodes, timeoutMs).catch((error: unknown) => {
            warnings.push(`Redis Cluster cost not measured: ${message(error)}`);
            return null;
          }),
      Promise.all(
        databaseUrlsOf(config).map((url) =>
          PostgresSampler.connect(url, timeoutMs).catch((error: unknown) => {
            warnings.push(
              `Postgres cost not measured: cannot connect to ${redactUrl(url)}: ${message(error)}`,
            );
            return null;
          }),
        ),
      ),
    ]);
    const connected = postgres.filter((p): p is PostgresSampler => p !== null);
    // Several databases are a sum: one missing would make it a wrong one.
    if (connected.length < postgres.length && postgres.length > 1) {
      warnings.push('Postgres cost not measured: not every --database-url could be read (see above).');
      await Promise.all(connected.map((p) => p.close()));
      return new CostMeter(redis, cluster, [], config.localProcs, warnings, timeoutMs);
    }
    return new CostMeter(redis, cluster, connected, config.localProcs, warnings, timeoutMs);
  }

  get enabled(): boolean {
    return (
      this.redis !== null || this.cluster !== null || this.postgres.length > 0 || this.clockTicks !== null
    );
  }

  /** All readings at once (each source in parallel), so they describe the same moment. */
  private async read(edge: 'start' | 'end'): Promise<Readings> {
    const guard = <T>(what: string, f: () => Promise<T>): Promise<T | null> =>
      withTimeout(f(), this.timeoutMs, what).catch((error: unknown) => {
        this.warnings.push(`${what} at the window's ${edge} failed: ${message(error)}`);
        return null;
      });
    const redis = this.redis ? guard('Redis INFO', () => this.redis!.snapshot()) : Promise.resolve(null);
    const cluster = this.cluster
      ? guard('Redis Cluster INFO', () => this.cluster!.snapshot()).then((r) => {
          for (const f of r?.failed ?? [])
            this.warnings.push(`Redis Cluster INFO at the window's ${edge} failed on ${f}`);
          return r?.readings ?? null;
        })
      : Promise.resolve(null);
    const postgres = Promise.all(
      this.postgres.map((p) =>
        guard(
          this.postgres.length > 1 ? `Postgres statistics of ${redactUrl(p.url)}` : 'Postgres statistics',
          () => p.snapshot(),
        ),
      ),
    );
    let processes: ProcSnapshot | null = null;
    if (this.clockTicks !== null) {
      try {
        processes = readProcSnapshot(this.clockTicks);
      } catch (error) {
        this.warnings.push(`/proc at the window's ${edge} failed: ${message(error)}`);
      }
    }
    return { redis: await redis, cluster: await cluster, postgres: await postgres, processes };
  }

  async start(): Promise<void> {
    this.startReadings = await this.read('start');
  }

  async end(): Promise<void> {
    this.endReadings = await this.read('end');
  }

  /** The sections, from the readings taken; null where a reading is missing. */
  sections(actions: number): CostSections {
    const a = this.startReadings;
    const b = this.endReadings;
    let redis: RedisCost | null = null;
    let redisNodes: RedisNodeCost[] | undefined;
    if (a.redis && b.redis && this.redis) {
      const r = redisCost(a.redis, b.redis, actions, redactUrl(this.redis.url)!);
      redis = r.cost;
      this.warnings.push(...r.warnings);
    }
    if (a.cluster && b.cluster && this.cluster) {
      const r = redisClusterCost(
        this.cluster.nodes,
        a.cluster,
        b.cluster,
        actions,
        clusterLabel(this.cluster.seeds),
      );
      this.warnings.push(...r.warnings);
      if (r.nodes.length === this.cluster.nodes.length) {
        redis = r.sum;
        redisNodes = r.nodes;
      } else this.warnings.push('Redis Cluster cost not given: not every node was read at both edges.');
    }
    const { postgres, postgresDatabases } = this.postgresSections(a, b, actions);
    const processes = a.processes && b.processes ? processesCost(a.processes, b.processes, actions) : null;
    return {
      redis,
      ...(redisNodes ? { redisNodes } : {}),
      postgres,
      ...(postgresDatabases ? { postgresDatabases } : {}),
      processes,
    };
  }

  private postgresSections(
    a: Readings,
    b: Readings,
    actions: number,
  ): { postgres: PostgresCost | null; postgresDatabases?: PostgresDatabaseCost[] } {
    const costs: PostgresDatabaseCost[] = [];
    for (const [i, sampler] of this.postgres.entries()) {
      const start = a.postgres[i];
      const end = b.postgres[i];
      if (!start || !end) return { postgres: null };
      const r = postgresCost(start, end, actions);
      this.warnings.push(...r.warnings);
      costs.push({ ...r.cost, url: redactUrl(sampler.url)!, server: sampler.server });
    }
    if (costs.length === 0) return { postgres: null };
    if (costs.length === 1) {
      const { url: _url, server: _server, ...one } = costs[0]!;
      return { postgres: one };
    }
    return { postgres: sumPostgresCosts(costs, actions), postgresDatabases: costs };
  }

  async close(): Promise<void> {
    this.redis?.close();
    this.cluster?.close();
    await Promise.all(this.postgres.map((p) => p.close()));
  }
}

/** Every --database-url (databaseUrls), or the one databaseUrl of a config written before them. */
export function databaseUrlsOf(config: Pick<LoadConfig, 'databaseUrl' | 'databaseUrls'>): readonly string[] {
  return config.databaseUrls ?? (config.databaseUrl === null ? [] : [config.databaseUrl]);
}

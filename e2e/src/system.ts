import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import { createTestStores, type TestStores } from '../../libs/platform/src/test-stores';
import { freePort } from '../../libs/platform/src/free-port';
import { TestRedisCluster } from '../../libs/platform/src/test-redis-cluster';
import { parseShardMap } from '../../libs/platform/src/shard-map';
import { shardOf } from '@dominoes/protocol';
import { startPostgresServers } from './postgres-server';

/** `table-service` for the first instance, `table-service#1` for the second, ... */
export const instanceName = (service: ServiceName, index: number): string =>
  index === 0 ? service : `${service}#${index}`;

export const ROOT = resolve(__dirname, '../..');
export const ARTIFACTS = join(ROOT, 'test-artifacts');

export type ServiceName = 'gateway' | 'table-service' | 'timer-service';

export interface SystemOptions {
  /** How many processes of each service (default one each). */
  readonly replicas?: Partial<Record<ServiceName, number>>;
  readonly turnMs?: number;
  readonly disconnectedTurnMs?: number;
  readonly breakMs?: number;
  readonly shards?: number;
  readonly env?: Record<string, string>;
  /**
   * On a Redis Cluster of its own (3 primaries, 3 replicas: TestRedisCluster) instead of the one
   * Redis. Default: E2E_REDIS=cluster in the environment (the e2e-cluster jest project sets it).
   */
  readonly redisCluster?: boolean;
  /**
   * Postgres split by shard (decision 0027): this many Postgres clusters of its own
   * (TestPostgresServer, on loopback ports), one database on each, DATABASE_URLS listing them for
   * every service and apps/migrate run on them all. Default: E2E_POSTGRES_DATABASES in the
   * environment (the e2e-pgsplit jest project sets 2), else 1: the one test database, as before.
   */
  readonly databases?: number;
}

/** How many databases suites run on by default: E2E_POSTGRES_DATABASES (jest project e2e-pgsplit), else 1. */
export const postgresDatabases = (): number => Number(process.env['E2E_POSTGRES_DATABASES'] ?? 1);

/** The databases of a split system, and what removes them (and the clusters it started) at its stop. */
interface SplitDatabases {
  readonly urls: string[];
  dispose(): Promise<void>;
}

/**
 * A database on each of `count` Postgres servers, migrated by the real runner
 * (apps/migrate/dist/main.js with DATABASE_URLS, which creates them): what the services get as
 * DATABASE_URLS, in that order. The servers are the e2e-pgsplit project's, started once for its
 * suites (E2E_POSTGRES_SERVERS, e2e/pgsplit/postgres-servers.global.ts), else clusters of its own.
 */
async function startSplitDatabases(label: string, count: number): Promise<SplitDatabases> {
  const shared = (process.env['E2E_POSTGRES_SERVERS'] ?? '').split(',').filter((url) => url !== '');
  const servers = shared.length >= count ? [] : await startPostgresServers(label, count);
  const serverUrls = shared.length >= count ? shared.slice(0, count) : servers.map((s) => s.url);
  const name = `dominoes_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(3).toString('hex')}`;
  const urls = serverUrls.map((serverUrl) => {
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return url.toString();
  });
  const dispose = async () => {
    if (servers.length > 0) {
      await Promise.all(servers.map((s) => s.stop()));
      return;
    }
    for (const serverUrl of serverUrls) {
      const admin = new Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`drop database if exists "${name}" with (force)`).finally(() => admin.end());
    }
  };
  const migrate = spawnSync(process.execPath, [join(ROOT, 'apps', 'migrate', 'dist', 'main.js')], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URLS: urls.join(','), LOG_PRETTY: '0' },
    encoding: 'utf8',
  });
  if (migrate.status !== 0) {
    await dispose().catch(() => undefined);
    throw new Error(`migrate on ${urls.join(', ')} exited with ${migrate.status}: ${migrate.stderr}`);
  }
  return { urls, dispose };
}

/** Whether suites run on a Redis Cluster: E2E_REDIS=cluster (jest project e2e-cluster). */
export const onRedisCluster = (): boolean => process.env['E2E_REDIS'] === 'cluster';

async function waitReady(url: string, child: ChildProcess, timeoutMs = 90_000): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} was not ready within ${timeoutMs} ms`);
}

interface Running {
  readonly child: ChildProcess;
  readonly port: number;
}

/**
 * The whole system as separate processes (node apps/<service>/dist/main.js), on a database and a
 * Redis prefix of its own, as the README's start command runs it. Logs go to test-artifacts/logs.
 */
export class TestSystem {
  /** Running processes by instance name: `gateway`, `gateway#1`, `table-service#2`, ... */
  private readonly running = new Map<string, Running>();
  private readonly ports = new Map<string, number>();
  /** The gateways' METRICS_PORT (the other services serve /metrics on their PORT). */
  private readonly metricsPorts = new Map<string, number>();

  private constructor(
    readonly label: string,
    readonly stores: TestStores,
    private readonly options: SystemOptions,
    /** The Redis Cluster the services use, when on one (else the stores' one Redis). */
    readonly redisCluster: TestRedisCluster | null = null,
    /** The services' DATABASE_URLS, database 0 (the home database) first; one: the stores' database. */
    readonly databaseUrls: readonly string[] = [stores.databaseUrl],
    /** Removes a split system's databases (and the clusters it started for them). */
    private readonly disposeDatabases: () => Promise<void> = async () => undefined,
  ) {}

  /** Which database (index in databaseUrls) holds table `tableId`: its shard's, by DATABASE_SHARD_MAP. */
  databaseOfTable(tableId: string): number {
    const shards = this.options.shards ?? 4;
    const map = parseShardMap(this.options.env?.['DATABASE_SHARD_MAP'], shards, this.databaseUrls.length);
    return map[shardOf(tableId, shards)]!;
  }

  /** The URL of the database holding table `tableId` (the stores' one database unless split). */
  databaseUrlOf(tableId: string): string {
    return this.databaseUrls[this.databaseOfTable(tableId)]!;
  }

  static async start(label: string, options: SystemOptions = {}): Promise<TestSystem> {
    const stores = await createTestStores(label);
    const redisCluster =
      (options.redisCluster ?? onRedisCluster())
        ? await TestRedisCluster.start(label).catch(async (error: unknown) => {
            await stores.dispose();
            throw error;
          })
        : null;
    // Timely BullMQ delayed jobs (ENVIRONMENT.md): Redis's default hz 10 makes them up to 100 ms late.
    // On the Redis the services use: options.env.REDIS_URL (a test's own redis-server) or the shared
    // one (a test cluster's nodes are started with hz 100).
    if (!redisCluster) {
      const redis = new Redis(options.env?.['REDIS_URL'] ?? stores.redisUrl, { maxRetriesPerRequest: 1 });
      await redis.config('SET', 'hz', '100').catch(() => undefined);
      redis.disconnect();
    }
    const databases = options.databases ?? postgresDatabases();
    const split =
      databases > 1
        ? await startSplitDatabases(label, databases).catch(async (error: unknown) => {
            await redisCluster?.stop();
            await stores.dispose();
            throw error;
          })
        : null;
    const system = new TestSystem(
      label,
      stores,
      options,
      redisCluster,
      split?.urls ?? [stores.databaseUrl],
      split?.dispose,
    );
    try {
      for (const name of ['table-service', 'timer-service', 'gateway'] as const) {
        const count = options.replicas?.[name] ?? 1;
        await Promise.all(
          Array.from({ length: count }, (_, i) => system.startService(instanceName(name, i))),
        );
      }
    } catch (error) {
      // Leave nothing running behind a failed start.
      await system.stop().catch(() => undefined);
      throw error;
    }
    return system;
  }

  get httpUrl(): string {
    return this.gatewayUrl(0);
  }

  gatewayUrl(index: number): string {
    return `http://127.0.0.1:${this.ports.get(instanceName('gateway', index))}`;
  }

  /** The port a service listens on: its /health and /metrics (and, for the gateway, the API and /ws). */
  portOf(name: string): number {
    const port = this.ports.get(name);
    if (port === undefined) throw new Error(`${name} has not been started`);
    return port;
  }

  /** Where a service's /metrics is: the gateway's METRICS_PORT, the other services' PORT. */
  metricsUrl(name: string): string {
    return `http://127.0.0.1:${this.metricsPorts.get(name) ?? this.portOf(name)}/metrics`;
  }

  /** How many shards a table-service instance owns now (its `dominoes_owned_shards` gauge). */
  async ownedShards(instance: string): Promise<number> {
    const text = await fetch(this.metricsUrl(instance)).then((r) => r.text());
    return Number(/^dominoes_owned_shards (\d+)/m.exec(text)?.[1] ?? 0);
  }

  /**
   * Waits until every shard has an owner among `instances` and each of them owns some (after a
   * restart, the rebalancing has given the new replica its share), the same on two polls in a row.
   */
  async waitForShardOwners(instances: readonly string[], timeoutMs = 30_000): Promise<void> {
    const shards = this.options.shards ?? 4;
    const until = Date.now() + timeoutMs;
    let settledPolls = 0;
    let owned: number[] = [];
    while (Date.now() < until) {
      owned = await Promise.all(instances.map((i) => this.ownedShards(i).catch(() => 0)));
      const settled = owned.every((n) => n > 0) && owned.reduce((a, b) => a + b, 0) === shards;
      settledPolls = settled ? settledPolls + 1 : 0;
      if (settledPolls >= 2) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(
      `shards not settled after ${timeoutMs} ms: ${instances.join(', ')} own ${owned.join(', ')} of ${shards}`,
    );
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.ports.get('gateway')}/ws`;
  }

  env(): Record<string, string> {
    const o = this.options;
    return {
      DATABASE_URL: this.databaseUrls[0]!,
      // Split: tests open tables until one lands in the database they want (tableInDatabase), all
      // as their table's host, who would otherwise be refused a sixth open table.
      ...(this.databaseUrls.length > 1
        ? { DATABASE_URLS: this.databaseUrls.join(','), MAX_OPEN_TABLES_PER_HOST: '100' }
        : {}),
      REDIS_URL: this.stores.redisUrl,
      REDIS_PREFIX: this.stores.redisPrefix,
      TABLE_SHARDS: String(o.shards ?? 4),
      TURN_MS: String(o.turnMs ?? 45_000),
      DISCONNECTED_TURN_MS: String(o.disconnectedTurnMs ?? 5_000),
      BREAK_MS: String(o.breakMs ?? 30_000),
      TOKEN_SECRET: `test-secret-${this.label}`,
      LOG_LEVEL: 'info',
      LOG_PRETTY: '0',
      NODE_ENV: 'test',
      // Hundreds of players from one address: the gateway's per-address HTTP limits are off (0)
      // unless a suite sets them (apps/gateway/test/http-limits.test.ts tests them).
      RATE_LIMIT_IDENTITIES: '0',
      RATE_LIMIT_TABLES: '0',
      RATE_LIMIT_LOOKUP_MISSES: '0',
      RATE_LIMIT_QUICK_PLAYS: '0',
      ...(this.redisCluster
        ? {
            REDIS_CLUSTER_NODES: this.redisCluster.nodes,
            DEADLINE_GROUPS: String(Math.min(3, o.shards ?? 4)),
          }
        : {}),
      ...(o.env ?? {}),
    };
  }

  /** Starts (or restarts, on the same port) one instance: `table-service`, `table-service#1`, ... */
  async startService(instance: string): Promise<void> {
    const name = instance.split('#')[0] as ServiceName;
    const port = this.ports.get(instance) ?? (await freePort());
    this.ports.set(instance, port);
    const metricsPort = name === 'gateway' ? (this.metricsPorts.get(instance) ?? (await freePort())) : port;
    if (name === 'gateway') this.metricsPorts.set(instance, metricsPort);
    const logDir = join(ARTIFACTS, 'logs', this.label);
    mkdirSync(logDir, { recursive: true });
    const log = createWriteStream(join(logDir, `${instance.replace('#', '-')}.log`), { flags: 'a' });
    const child = spawn(process.execPath, [join(ROOT, 'apps', name, 'dist', 'main.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...this.env(),
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Two pipes into one file: neither may end it (the other would then write after the end, an
    // error that fails the suite); it ends when the process has closed both.
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('close', () => log.end());
    this.running.set(instance, { child, port });
    await waitReady(`http://127.0.0.1:${port}/health/ready`, child);
  }

  /** kill -9 (or another signal) and wait for the process to be gone. */
  async kill(instance: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const running = this.running.get(instance);
    if (!running) return;
    this.running.delete(instance);
    if (running.child.exitCode !== null) return;
    await new Promise<void>((done) => {
      running.child.once('exit', () => done());
      running.child.kill(signal);
    });
  }

  /** The process id of a running instance (to read its memory from /proc, or to signal it). */
  pidOf(instance: string): number {
    const pid = this.running.get(instance)?.child.pid;
    if (pid === undefined) throw new Error(`${instance} is not running`);
    return pid;
  }

  isRunning(instance: string): boolean {
    const running = this.running.get(instance);
    return running !== undefined && running.child.exitCode === null;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.running.keys()].map((name) => this.kill(name, 'SIGTERM')));
    await this.redisCluster?.stop();
    await this.disposeDatabases();
    await this.stores.dispose();
  }
}

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freePort } from './free-port';

/** One redis-server of the cluster. */
interface ClusterProcess {
  readonly port: number;
  readonly dir: string;
  child: ChildProcess | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What every test redis-server runs with (../shared/DESIGN.md): no persistence (a killed server
 * loses what it held), hz 100 for timely BullMQ delayed jobs (ENVIRONMENT.md), no eviction.
 */
export const TEST_REDIS_SETTINGS: readonly string[] = [
  '--save',
  '',
  '--appendonly',
  'no',
  '--hz',
  '100',
  '--maxmemory-policy',
  'noeviction',
];

/** A primary that dies is judged failed after this long, and its replica elected (seconds, not 15). */
export const TEST_CLUSTER_NODE_TIMEOUT_MS = 2_000;

/**
 * A real Redis Cluster of a test's own (decision 0025): 6 `redis-server --cluster-enabled yes`
 * processes on free loopback ports, each in a temporary directory and a process group of its own,
 * joined by `redis-cli --cluster create --cluster-replicas 1` into 3 primaries with one replica
 * each. No persistence: a killed primary's data lives on only in its replica. `stop()` kills every
 * process group and removes the directories.
 */
export class TestRedisCluster {
  private readonly logDir: string;

  private constructor(
    private readonly processes: ClusterProcess[],
    readonly label: string,
  ) {
    this.logDir = join(__dirname, '../../../test-artifacts/logs', label);
    mkdirSync(this.logDir, { recursive: true });
  }

  static async start(label: string, size = 6): Promise<TestRedisCluster> {
    const processes: ClusterProcess[] = [];
    for (let i = 0; i < size; i++)
      processes.push({
        port: await freePort(),
        dir: mkdtempSync(join(tmpdir(), `redis-cluster-${label}-`)),
        child: null,
      });
    const cluster = new TestRedisCluster(processes, label);
    try {
      for (const node of processes) cluster.spawn(node);
      await Promise.all(processes.map((node) => waitPing(node.port)));
      const created = spawnSync(
        'redis-cli',
        [
          '--cluster',
          'create',
          ...processes.map((node) => `127.0.0.1:${node.port}`),
          '--cluster-replicas',
          '1',
          '--cluster-yes',
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
      if (created.status !== 0)
        throw new Error(`redis-cli --cluster create failed: ${created.stdout}\n${created.stderr}`);
      await cluster.waitHealthy();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** REDIS_CLUSTER_NODES: every node, `127.0.0.1:port,...`. */
  get nodes(): string {
    return this.processes.map((node) => `127.0.0.1:${node.port}`).join(',');
  }

  get ports(): number[] {
    return this.processes.map((node) => node.port);
  }

  private spawn(node: ClusterProcess): void {
    node.child = spawn(
      'redis-server',
      [
        '--port',
        String(node.port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(node.dir, 'nodes.conf'),
        '--cluster-node-timeout',
        String(TEST_CLUSTER_NODE_TIMEOUT_MS),
        // A replica takes over however long it was cut off from its primary.
        '--cluster-replica-validity-factor',
        '0',
        ...TEST_REDIS_SETTINGS,
        '--dir',
        node.dir,
        // Next to the services' logs: test-artifacts/logs/<label>/redis-cluster-<port>.log.
        '--logfile',
        join(this.logDir, `redis-cluster-${node.port}.log`),
      ],
      { cwd: node.dir, stdio: 'ignore', detached: true },
    );
    node.child.on('error', () => undefined);
  }

  /** Every node answers, the cluster state is ok everywhere, and it has `primaries` primaries with slots. */
  async waitHealthy(primaries = 3, timeoutMs = 60_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < end) {
      const live = this.processes.filter((node) => isAlive(node.child));
      const infos = await Promise.all(live.map((node) => command(node.port, 'cluster', 'info')));
      const ok = infos.every((info) => typeof info === 'string' && info.includes('cluster_state:ok'));
      const masters = (await this.primaryPorts()).length;
      if (ok && masters === primaries) return;
      last = `${infos.filter((i) => typeof i === 'string' && !i.includes('cluster_state:ok')).length} nodes not ok, ${masters} primaries`;
      await sleep(200);
    }
    throw new Error(`Redis Cluster ${this.label} not healthy within ${timeoutMs} ms (${last})`);
  }

  /** The ports of the live primaries that serve slots, read from a live node's CLUSTER NODES. */
  async primaryPorts(): Promise<number[]> {
    for (const node of this.processes) {
      if (!isAlive(node.child)) continue;
      const text = await command(node.port, 'cluster', 'nodes');
      if (typeof text !== 'string') continue;
      return text
        .split('\n')
        .map((line) => line.split(' '))
        .filter((f) => f.length > 8 && f[2]!.includes('master') && !f[2]!.includes('fail'))
        .map((f) => Number(f[1]!.split('@')[0]!.split(':')[1]));
    }
    return [];
  }

  /** The slot ranges a node serves (`CLUSTER SHARDS`/`NODES`): `[start, end]` pairs. */
  async slotsOf(port: number): Promise<[number, number][]> {
    const text = await command(port, 'cluster', 'nodes');
    if (typeof text !== 'string') return [];
    const mine = text.split('\n').find((line) => line.includes('myself'));
    return (mine?.split(' ').slice(8) ?? [])
      .filter((range) => /^\d/.test(range))
      .map((range) => {
        const [a, b] = range.split('-').map(Number);
        return [a!, b ?? a!] as [number, number];
      });
  }

  /** kill -9 the redis-server on `port` (its process group); resolves once it is gone. */
  async kill(port: number): Promise<void> {
    const node = this.processes.find((p) => p.port === port);
    const child = node?.child;
    if (!node || !child) return;
    node.child = null;
    if (!isAlive(child)) return;
    const gone = new Promise<void>((done) => child.once('exit', () => done()));
    killGroup(child, 'SIGKILL');
    await gone;
  }

  /** INFO commandstats of every live node: `{ port: { command: calls } }`. */
  async commandStats(): Promise<Record<number, Record<string, number>>> {
    const out: Record<number, Record<string, number>> = {};
    for (const node of this.processes) {
      if (!isAlive(node.child)) continue;
      const text = await command(node.port, 'info', 'commandstats');
      if (typeof text !== 'string') continue;
      const calls: Record<string, number> = {};
      for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
        calls[match[1]!] = Number(match[2]);
      out[node.port] = calls;
    }
    return out;
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.processes.map(async (node) => {
        const child = node.child;
        node.child = null;
        if (child && isAlive(child)) {
          const gone = new Promise<void>((done) => child.once('exit', () => done()));
          killGroup(child, 'SIGKILL');
          await gone;
        }
        rmSync(node.dir, { recursive: true, force: true });
      }),
    );
  }
}

const isAlive = (child: ChildProcess | null): child is ChildProcess =>
  child !== null && child.exitCode === null && child.signalCode === null;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** One command on a short-lived connection to one node; null when the node does not answer. */
async function command(port: number, name: string, ...args: string[]): Promise<unknown> {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await redis.call(name, ...args);
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}

async function waitPing(port: number, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if ((await command(port, 'ping')) === 'PONG') return;
    await sleep(50);
  }
  throw new Error(`redis-server on :${port} was not ready within ${timeoutMs} ms`);
}

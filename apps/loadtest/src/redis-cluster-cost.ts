/**
 * What the measure window cost a Redis Cluster (--redis-cluster-nodes): every primary and replica
 * that CLUSTER NODES lists, each read with INFO at the window's edges as one Redis is
 * (redis-cost.ts), then reported per node and summed. A replica's counters hold the writes it
 * applied from its primary's replication stream, so the sum counts a write once per copy: it is
 * what the cluster's servers did, not what the services sent (that is the primaries' part).
 */
import { redisCost, redisCostOf, RedisSampler, type RedisCost, type RedisSnapshot } from './redis-cost';

export type ClusterRole = 'primary' | 'replica';

/** One line of CLUSTER NODES that this tool reads. */
export interface ClusterNode {
  readonly id: string;
  /** host:port the node announces (its client port, not the bus port). */
  readonly address: string;
  readonly role: ClusterRole;
  /** The primary's id for a replica, null for a primary. */
  readonly primaryId: string | null;
  /** Hash slots a primary serves (0 for a replica). */
  readonly slots: number;
}

/** One node's window: its own cost plus who it is in the cluster. */
export interface RedisNodeCost extends RedisCost {
  readonly id: string;
  readonly address: string;
  /** The role at the window's start (CLUSTER NODES), and at its end (INFO replication). */
  readonly role: ClusterRole;
  readonly roleAtEnd: ClusterRole | null;
  /** A replica's primary (its id), null for a primary. */
  readonly primaryId: string | null;
  readonly slots: number;
}

/** The slots of `0-5460 5461 [5462->-abc]` (migrating/importing markers are not served slots). */
function countSlots(fields: readonly string[]): number {
  let n = 0;
  for (const f of fields) {
    if (f.startsWith('[')) continue;
    const dash = f.indexOf('-');
    if (dash < 0) n += Number.isFinite(Number(f)) ? 1 : 0;
    else n += Number(f.slice(dash + 1)) - Number(f.slice(0, dash)) + 1;
  }
  return n;
}

/** One CLUSTER NODES line, or null for a node that is down or not a node line. */
function parseNodeLine(raw: string): (ClusterNode & { readonly myself: boolean }) | null {
  const fields = raw.trim().split(' ');
  if (fields.length < 8) return null;
  const [id, addr, flagText, primary] = fields as [string, string, string, string];
  const flags = new Set(flagText.split(','));
  if (flags.has('fail') || flags.has('noaddr') || flags.has('handshake')) return null;
  const isPrimary = flags.has('master');
  if (!isPrimary && !flags.has('slave')) return null;
  // ip:port@cport[,hostname]
  const address = addr.split('@')[0]!;
  if (!/^[^:]+:\d+$/.test(address)) return null;
  return {
    id,
    address,
    role: isPrimary ? 'primary' : 'replica',
    primaryId: isPrimary || primary === '-' ? null : primary,
    slots: isPrimary ? countSlots(fields.slice(8)) : 0,
    myself: flags.has('myself'),
  };
}

const byRoleThenAddress = (a: ClusterNode, b: ClusterNode): number =>
  (a.role === b.role ? 0 : a.role === 'primary' ? -1 : 1) || a.address.localeCompare(b.address);

/**
 * CLUSTER NODES' text → the primaries and replicas that are up: nodes flagged fail, noaddr or
 * handshake are left out (nothing to read there), and so are lines that are not node lines.
 */
export function parseClusterNodes(text: string): ClusterNode[] {
  return text
    .split('\n')
    .map(parseNodeLine)
    .filter((n) => n !== null)
    .map(({ myself: _myself, ...node }) => node)
    .sort(byRoleThenAddress);
}

/**
 * A node's own line of its CLUSTER NODES (`myself`): its role, primary and slots as it knows them.
 * Another node's view can lag (a new replica is still listed as an empty primary for a while).
 */
export function ownClusterNode(text: string): ClusterNode | null {
  const mine = text
    .split('\n')
    .map(parseNodeLine)
    .find((n) => n?.myself === true);
  if (!mine) return null;
  const { myself: _myself, ...node } = mine;
  return node;
}

export const REDIS_CLUSTER_NOTE =
  'Each node is read as one Redis is (whole-server counters, the tool\u2019s own INFO left out). ' +
  'The sum is over every node, replicas included: a replica applies each write of its primary, so a write counts once per copy; ' +
  'the primaries alone are what the services sent.';

const sumOf = (costs: readonly RedisCost[], pick: (c: RedisCost) => number): number =>
  costs.reduce((s, c) => s + pick(c), 0);

/** The nodes' costs added up into one RedisCost (commands by name summed over the nodes). */
export function sumRedisCosts(costs: readonly RedisCost[], actions: number, url: string): RedisCost {
  const byCommand = new Map<string, { command: string; calls: number; usec: number }>();
  for (const c of costs)
    for (const t of c.topCommands) {
      const row = byCommand.get(t.command) ?? { command: t.command, calls: 0, usec: 0 };
      row.calls += t.calls;
      row.usec += (t.usecPerCall ?? 0) * t.calls;
      byCommand.set(t.command, row);
    }
  return redisCostOf({
    url,
    seconds: Math.max(0, ...costs.map((c) => c.seconds)),
    rows: [...byCommand.values()],
    totalCommandsProcessed: sumOf(costs, (c) => c.totalCommandsProcessed),
    netInputBytes: sumOf(costs, (c) => c.netInputBytes),
    netOutputBytes: sumOf(costs, (c) => c.netOutputBytes),
    cpuMs: sumOf(costs, (c) => c.cpuMs),
    actions,
    note: REDIS_CLUSTER_NOTE,
  });
}

/** What the report names the cluster by: its seed nodes. */
export const clusterLabel = (seeds: readonly string[]): string => `cluster ${seeds.join(',')}`;

/**
 * Per node and summed, from the readings at the window's start and end (by node; a node without
 * both readings is left out of the sum with a warning).
 */
export function redisClusterCost(
  nodes: readonly ClusterNode[],
  start: ReadonlyMap<string, RedisSnapshot>,
  end: ReadonlyMap<string, RedisSnapshot>,
  actions: number,
  label: string,
): { sum: RedisCost; nodes: RedisNodeCost[]; warnings: string[] } {
  const warnings: string[] = [];
  const perNode: RedisNodeCost[] = [];
  for (const node of nodes) {
    const a = start.get(node.id);
    const b = end.get(node.id);
    if (!a || !b) {
      warnings.push(
        `Redis Cluster: node ${node.address} (${node.role}) has no reading at the window's ${a ? 'end' : 'start'}: left out of the sum.`,
      );
      continue;
    }
    const r = redisCost(a, b, actions, node.address);
    warnings.push(...r.warnings.map((w) => `${node.address}: ${w}`));
    const roleAtEnd = b.role ?? null;
    if (roleAtEnd !== null && roleAtEnd !== node.role)
      warnings.push(
        `Redis Cluster: node ${node.address} was a ${node.role} at the window's start and is a ${roleAtEnd} at its end (a failover during the window).`,
      );
    perNode.push({
      ...r.cost,
      id: node.id,
      address: node.address,
      role: node.role,
      roleAtEnd,
      primaryId: node.primaryId,
      slots: node.slots,
    });
  }
  return { sum: sumRedisCosts(perNode, actions, label), nodes: perNode, warnings };
}

/**
 * One connection to every node of the cluster, found from the seeds (the first that answers
 * CLUSTER NODES), opened before the ramp and read at the window's edges, all at once.
 */
export class RedisClusterSampler {
  private constructor(
    readonly seeds: readonly string[],
    readonly nodes: readonly ClusterNode[],
    private readonly samplers: ReadonlyMap<string, RedisSampler>,
  ) {}

  static async connect(seeds: readonly string[], timeoutMs = 5000): Promise<RedisClusterSampler> {
    const failures: string[] = [];
    let nodes: ClusterNode[] | null = null;
    for (const seed of seeds) {
      let sampler: RedisSampler | null = null;
      try {
        sampler = await RedisSampler.connect(`redis://${seed}`, timeoutMs);
        nodes = parseClusterNodes(await sampler.command('cluster', 'nodes'));
        break;
      } catch (error) {
        failures.push(`${seed}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        sampler?.close();
      }
    }
    if (nodes === null) throw new Error(`no seed node answered CLUSTER NODES (${failures.join('; ')})`);
    if (nodes.length === 0) throw new Error(`CLUSTER NODES from ${seeds.join(',')} lists no node that is up`);
    // Each node found is asked who it is: its own line is the truth about its role and slots.
    const samplers = new Map<string, RedisSampler>();
    const own: ClusterNode[] = [];
    try {
      for (const found of nodes) {
        const sampler = await RedisSampler.connect(`redis://${found.address}`, timeoutMs);
        samplers.set(found.id, sampler);
        const self = ownClusterNode(await sampler.command('cluster', 'nodes'));
        own.push(self ? { ...self, address: found.address } : found);
      }
    } catch (error) {
      for (const s of samplers.values()) s.close();
      throw error;
    }
    return new RedisClusterSampler(seeds, own.sort(byRoleThenAddress), samplers);
  }

  /** Every node's INFO at once; a node that fails to answer is missing from the map (and named). */
  async snapshot(): Promise<{ readings: Map<string, RedisSnapshot>; failed: string[] }> {
    const readings = new Map<string, RedisSnapshot>();
    const failed: string[] = [];
    await Promise.all(
      [...this.samplers].map(async ([id, sampler]) => {
        try {
          readings.set(id, await sampler.snapshot());
        } catch (error) {
          failed.push(
            `${sampler.url.replace('redis://', '')}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }),
    );
    return { readings, failed };
  }

  close(): void {
    for (const s of this.samplers.values()) s.close();
  }
}

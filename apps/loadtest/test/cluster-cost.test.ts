import { parseArgs } from '../src/args';
import {
  ownClusterNode,
  parseClusterNodes,
  redisClusterCost,
  type ClusterNode,
} from '../src/redis-cluster-cost';
import { redisSnapshotFromInfo, type RedisSnapshot } from '../src/redis-cost';
import { workerArgv } from '../src/workers';

/** CLUSTER NODES as Redis 7 writes it (hostnames after the bus port, a migrating-slot marker). */
const NODES = [
  '07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004,host4 slave e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected',
  '67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002,host2 master - 0 1426238316232 2 connected 5461-10922',
  '292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master - 0 1426238318243 3 connected 10923-16382 16383 [16383->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]',
  '6ec23923021cf3ffec47632106199cb7f496ce01 127.0.0.1:30005@31005 slave 67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 0 1426238316232 5 connected',
  '824fe116063bc5fcf9f4ffd895bc17aee7731ac3 127.0.0.1:30006@31006 slave,fail 292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 0 1426238317741 6 disconnected',
  'e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 0-5460',
  '',
].join('\n');

describe('CLUSTER NODES', () => {
  it('lists the primaries (with their slot counts) then the replicas that are up; a failed node is left out', () => {
    const nodes = parseClusterNodes(NODES);
    expect(nodes.map((n) => [n.address, n.role, n.slots])).toEqual([
      ['127.0.0.1:30001', 'primary', 5461],
      ['127.0.0.1:30002', 'primary', 5462],
      ['127.0.0.1:30003', 'primary', 5461],
      ['127.0.0.1:30004', 'replica', 0],
      ['127.0.0.1:30005', 'replica', 0],
    ]);
    expect(nodes.reduce((s, n) => s + n.slots, 0)).toBe(16384);
    expect(nodes[3]!.primaryId).toBe('e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca');
    expect(parseClusterNodes('ERR This instance has cluster support disabled')).toEqual([]);
  });

  it("takes a node's role and slots from its own line (myself), not another's view of it", () => {
    expect(ownClusterNode(NODES)).toEqual({
      id: 'e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca',
      address: '127.0.0.1:30001',
      role: 'primary',
      primaryId: null,
      slots: 5461,
    });
    const replica = NODES.replace('myself,master', 'master').replace(' slave e7d1', ' myself,slave e7d1');
    expect(ownClusterNode(replica)).toMatchObject({ address: '127.0.0.1:30004', role: 'replica' });
    expect(ownClusterNode(NODES.replace('myself,', ''))).toBeNull();
  });
});

/** INFO text with one command's calls, the totals and the role. */
const info = (o: { set: number; total: number; inB: number; cpu: number; role: 'master' | 'slave' }) =>
  [
    '# Replication',
    `role:${o.role}`,
    '# Commandstats',
    `cmdstat_set:calls=${o.set},usec=${o.set * 2},usec_per_call=2.00`,
    'cmdstat_info:calls=5,usec=50,usec_per_call=10.00',
    '# Stats',
    `total_commands_processed:${o.total}`,
    `total_net_input_bytes:${o.inB}`,
    'total_net_output_bytes:1000',
    '# CPU',
    `used_cpu_sys:${o.cpu}`,
    'used_cpu_user:0',
  ].join('\r\n');

describe('a Redis Cluster over the window', () => {
  const nodes: ClusterNode[] = [
    { id: 'p1', address: 'h:1', role: 'primary', primaryId: null, slots: 8192 },
    { id: 'p2', address: 'h:2', role: 'primary', primaryId: null, slots: 8192 },
    { id: 'r1', address: 'h:3', role: 'replica', primaryId: 'p1', slots: 0 },
  ];
  const snap = (set: number, cpu: number, atMs: number, role: 'master' | 'slave' = 'master'): RedisSnapshot =>
    redisSnapshotFromInfo(info({ set, total: set + 10, inB: set * 100, cpu, role }), atMs);
  const start = new Map([
    ['p1', snap(100, 1, 0)],
    ['p2', snap(50, 1, 0)],
    ['r1', snap(100, 1, 0, 'slave')],
  ]);

  it('gives each node its own figures, with role and slots, and their sum (replicas included)', () => {
    const end = new Map([
      ['p1', snap(140, 1.2, 10_000)],
      ['p2', snap(70, 1.1, 10_000)],
      ['r1', snap(140, 1.05, 10_000, 'slave')],
    ]);
    const { sum, nodes: per, warnings } = redisClusterCost(nodes, start, end, 20, 'cluster h:1');
    expect(warnings).toEqual([]);
    expect(per.map((n) => [n.address, n.role, n.roleAtEnd, n.slots, n.commands])).toEqual([
      ['h:1', 'primary', 'primary', 8192, 40],
      ['h:2', 'primary', 'primary', 8192, 20],
      ['h:3', 'replica', 'replica', 0, 40],
    ]);
    expect(per[0]!.perAction).toMatchObject({ commands: 2, netInputBytes: 200, cpuMs: 10 });
    expect(sum).toMatchObject({
      url: 'cluster h:1',
      seconds: 10,
      commands: 100,
      // total_commands_processed less the tool's own INFO on each of the 3 nodes.
      totalCommandsProcessed: 97,
      netInputBytes: 10_000,
      cpuMs: 350,
      cores: 0.035,
      perAction: { commands: 5, netInputBytes: 500, cpuMs: 17.5 },
    });
    expect(sum.topCommands).toEqual([{ command: 'set', calls: 100, perAction: 5, usecPerCall: 2 }]);
  });

  it('names a failover in the window and a node without a reading (left out of the sum)', () => {
    const end = new Map([
      ['p1', snap(140, 1.2, 10_000, 'slave')],
      ['r1', snap(140, 1.05, 10_000, 'master')],
    ]);
    const { sum, nodes: per, warnings } = redisClusterCost(nodes, start, end, 20, 'c');
    expect(per.map((n) => n.id)).toEqual(['p1', 'r1']);
    expect(sum.commands).toBe(80);
    expect(warnings).toEqual([
      "Redis Cluster: node h:1 was a primary at the window's start and is a replica at its end (a failover during the window).",
      "Redis Cluster: node h:2 (primary) has no reading at the window's end: left out of the sum.",
      "Redis Cluster: node h:3 was a replica at the window's start and is a primary at its end (a failover during the window).",
    ]);
  });
});

describe('--redis-cluster-nodes and several --database-url', () => {
  const PG = ['postgresql://u@h1/a', 'postgresql://u@h2/b'];

  it('reads the seeds and every database (repeated or comma-separated); one database stays as it was', () => {
    expect(parseArgs(['--redis-cluster-nodes', 'n0:7000, n1:7001'])).toMatchObject({
      redisUrl: null,
      redisClusterNodes: ['n0:7000', 'n1:7001'],
    });
    const repeated = parseArgs(['--database-url', PG[0]!, '--database-url', PG[1]!])!;
    const commas = parseArgs([`--database-url=${PG.join(',')}`])!;
    for (const c of [repeated, commas]) expect(c).toMatchObject({ databaseUrl: PG[0], databaseUrls: PG });
    const one = parseArgs(['--database-url', PG[0]!])!;
    expect(one.databaseUrl).toBe(PG[0]);
    expect('databaseUrls' in one).toBe(false);
    expect('redisClusterNodes' in one).toBe(false);
  });

  it('refuses a bad node, a database named twice, and a Redis URL with a cluster', () => {
    expect(() => parseArgs(['--redis-cluster-nodes', 'n0'])).toThrow(/host:port,host:port.*got "n0"/);
    expect(() => parseArgs(['--redis-cluster-nodes', 'redis://n0:1'])).toThrow(/got "redis:\/\/n0:1"/);
    expect(() => parseArgs(['--redis-cluster-nodes', 'n0:70000'])).toThrow(/got "n0:70000"/);
    expect(() => parseArgs(['--redis-cluster-nodes', ','])).toThrow(/needs host:port/);
    expect(() => parseArgs(['--database-url', PG[0]!, '--database-url', PG[0]!])).toThrow(/twice/);
    expect(() => parseArgs(['--database-url', `${PG[0]},redis://x`])).toThrow(/--database-url must be/);
    expect(() => parseArgs(['--redis-url', 'redis://x', '--redis-cluster-nodes', 'n:1'])).toThrow(
      /do not go together/,
    );
  });

  it('gives the cluster and every database to worker 0 only', () => {
    const argv = [
      '--workers',
      '2',
      '--redis-cluster-nodes',
      'n:1',
      '--database-url',
      PG[0]!,
      '--database-url',
      PG[1]!,
    ];
    expect(workerArgv(argv, 0, 2, '/r')).toEqual([
      ...['--redis-cluster-nodes', 'n:1', '--database-url', PG[0]!, '--database-url', PG[1]!],
      ...['--slice', '0/2', '--out', '/r/worker-0', '--quiet'],
    ]);
    expect(workerArgv(argv, 1, 2, '/r')).toEqual(['--slice', '1/2', '--out', '/r/worker-1', '--quiet']);
  });
});

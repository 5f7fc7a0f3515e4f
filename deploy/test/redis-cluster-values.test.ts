/**
 * The chart on a Redis Cluster (issue 13, decision 0025): examples/redis-cluster.yaml is linted and
 * validated with the other examples (helm-chart.test.ts lints every example); here, what it sets and
 * what is refused; and the compose override docker-compose.redis-cluster.yml.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { CHART_DIR, REPO_ROOT, helm } from './helm-binary';
import {
  EXAMPLES_DIR,
  find,
  podSpec,
  render,
  validateWithKubernetesModels,
  type K8sObject,
} from './manifests';

const configOf = (objects: K8sObject[]) => find(objects, 'ConfigMap', '-config').data;
const example = ['-f', path.join(EXAMPLES_DIR, 'redis-cluster.yaml')];

describe('Redis Cluster values (REDIS_CLUSTER_NODES, DEADLINE_GROUPS)', () => {
  it('by default: one Redis (no REDIS_CLUSTER_NODES) and one deadline queue', () => {
    const config = configOf(render());
    expect(config.REDIS_CLUSTER_NODES).toBeUndefined();
    expect(config.DEADLINE_GROUPS).toBe('1');
  });

  it('examples/redis-cluster.yaml: the nodes and groups reach every service through the shared ConfigMap, REDIS_URL still from the Secret', () => {
    const objects = render(example);
    expect(validateWithKubernetesModels(objects).filter((r) => r.error !== null)).toEqual([]);
    const config = configOf(objects);
    expect(config.REDIS_CLUSTER_NODES).toBe(
      [0, 1, 2].map((i) => `redis-cluster-${i}.redis-cluster-headless.redis.svc:6379`).join(','),
    );
    expect(config.DEADLINE_GROUPS).toBe('6');
    expect(config.TABLE_SHARDS).toBe('64');
    for (const service of ['-gateway', '-table-service', '-timer-service']) {
      const container = podSpec(find(objects, 'Deployment', service)).containers[0];
      expect(container.envFrom).toContainEqual({ configMapRef: { name: 'dom-dominoes-config' } });
      const redisUrl = container.env.find((e: { name: string }) => e.name === 'REDIS_URL');
      expect(redisUrl.valueFrom.secretKeyRef).toEqual({ name: 'dominoes-secrets', key: 'REDIS_URL' });
    }
  });

  it.each([
    [
      'a node that is not host:port',
      [
        '--set',
        'redis.mode=external',
        '--set',
        'redis.external.url=redis://h:1',
        '--set',
        'redis.external.clusterNodes={redis-0}',
      ],
      /clusterNodes/,
    ],
    [
      'more deadline groups than shards',
      ['--set', 'tableShards=4', '--set', 'deadlineGroups=5'],
      /deadlineGroups must be at most tableShards/,
    ],
    ['deadlineGroups 0', ['--set', 'deadlineGroups=0'], /deadlineGroups/],
    [
      'cluster nodes with the bundled Redis',
      ['--set', 'redis.external.clusterNodes={redis-0:6379}'],
      /clusterNodes needs redis.mode external/,
    ],
  ])('%s is refused, naming the value', (_name, args, message) => {
    const result = helm(['template', 'dom', CHART_DIR, ...args]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
  });
});

describe('docker-compose.redis-cluster.yml (layered over docker-compose.yml)', () => {
  /* eslint-disable @typescript-eslint/no-explicit-any */
  const read = (file: string): any =>
    parse(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'), { merge: true });
  const base = read('docker-compose.yml');
  const override = read('docker-compose.redis-cluster.yml');
  const nodes = Object.keys(override.services).filter((name) => name.startsWith('redis-node-'));

  it("six cluster nodes with the one Redis's settings, joined 3 primaries + 3 replicas by a one-shot service", () => {
    expect(nodes).toHaveLength(6);
    for (const name of nodes) {
      const command: string[] = override.services[name].command;
      expect(command.join(' ')).toContain('--cluster-enabled yes');
      // hz 100, noeviction and appendonly, as docker-compose.yml's redis (compose.test.ts checks it there).
      for (const flag of ['--hz', '--maxmemory-policy', '--appendonly'])
        expect(command[command.indexOf(flag) + 1]).toBe(
          base.services.redis.command[base.services.redis.command.indexOf(flag) + 1],
        );
    }
    const create = override.services['redis-cluster-create'];
    expect(create.command.join(' ')).toMatch(
      /redis-cli --cluster create .* --cluster-replicas 1 --cluster-yes/s,
    );
    expect(Object.keys(create.depends_on).sort()).toEqual([...nodes].sort());
    expect(create.restart).toBe('no');
  });

  it('every app service of docker-compose.yml that uses Redis waits for the cluster and gets REDIS_CLUSTER_NODES of its nodes', () => {
    for (const name of ['gateway', 'table-service', 'timer-service']) {
      expect(base.services[name]).toBeDefined();
      const service = override.services[name];
      expect(service.depends_on['redis-cluster-create']).toEqual({
        condition: 'service_completed_successfully',
      });
      const listed = String(service.environment.REDIS_CLUSTER_NODES).split(',');
      for (const node of listed) expect(nodes).toContain(node.split(':')[0]);
      expect(service.environment.DEADLINE_GROUPS).toBe('${DEADLINE_GROUPS:-3}');
    }
  });
});

/**
 * The chart with Postgres split by shard (decision 0027): postgres.external.urls (or urlsSecret) and
 * shardMap reach every service and the migration Job as DATABASE_URLS / DATABASE_SHARD_MAP, and a
 * map the services would refuse fails the render with a message naming the value.
 * examples/postgres-split.yaml is linted with the other examples (helm-chart.test.ts).
 */
import * as path from 'node:path';
import { CHART_DIR, helm } from './helm-binary';
import {
  EXAMPLES_DIR,
  find,
  podSpec,
  render,
  validateWithKubernetesModels,
  type K8sObject,
} from './manifests';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

const SERVICES = ['-gateway', '-table-service', '-timer-service'];
const envOf = (objects: K8sObject[], kind: string, suffix: string): EnvVar[] =>
  podSpec(find(objects, kind, suffix)).containers[0].env;
const varOf = (env: EnvVar[], name: string) => env.find((e) => e.name === name);
const secretData = (objects: K8sObject[], suffix: string): Record<string, string> =>
  Object.fromEntries(
    Object.entries(find(objects, 'Secret', suffix).data as Record<string, string>).map(([k, v]) => [
      k,
      Buffer.from(v, 'base64').toString(),
    ]),
  );

const URLS = ['postgresql://u:p@pg-0:5432/dominoes', 'postgresql://u:p@pg-1:5432/dominoes'];
const listed = [
  ...['--set', 'postgres.mode=external', '--set', `postgres.external.urls={${URLS.join(',')}}`],
  ...['--set-string', 'postgres.external.shardMap=0-7:0\\,8-15:1'],
];

describe('Postgres split by shard (DATABASE_URLS, DATABASE_SHARD_MAP)', () => {
  it('by default: one database, neither variable anywhere', () => {
    const objects = render();
    expect(find(objects, 'ConfigMap', '-config').data.DATABASE_SHARD_MAP).toBeUndefined();
    for (const s of SERVICES) expect(varOf(envOf(objects, 'Deployment', s), 'DATABASE_URLS')).toBeUndefined();
    expect(varOf(envOf(objects, 'Job', '-migrate'), 'DATABASE_URLS')).toBeUndefined();
  });

  it('urls: the chart Secret holds DATABASE_URLS (the first is DATABASE_URL); every service and the migration Job read it, the map from the ConfigMap and inline', () => {
    const objects = render(listed);
    expect(validateWithKubernetesModels(objects).filter((r) => r.error !== null)).toEqual([]);
    expect(secretData(objects, 'dom-dominoes')).toMatchObject({
      DATABASE_URL: URLS[0],
      DATABASE_URLS: URLS.join(','),
    });
    expect(find(objects, 'ConfigMap', '-config').data.DATABASE_SHARD_MAP).toBe('0-7:0,8-15:1');
    for (const s of SERVICES)
      expect(varOf(envOf(objects, 'Deployment', s), 'DATABASE_URLS')!.valueFrom!.secretKeyRef).toEqual({
        name: 'dom-dominoes',
        key: 'DATABASE_URLS',
      });
    // The Job runs before the release's Secret and ConfigMap exist: its own hook Secret, the map inline.
    const job = envOf(objects, 'Job', '-migrate');
    expect(varOf(job, 'DATABASE_URLS')!.valueFrom!.secretKeyRef).toEqual({
      name: 'dom-dominoes-migrate-env',
      key: 'DATABASE_URLS',
    });
    expect(secretData(objects, '-migrate-env')).toEqual({
      DATABASE_URL: URLS[0],
      DATABASE_URLS: URLS.join(','),
    });
    expect(varOf(job, 'DATABASE_SHARD_MAP')!.value).toBe('0-7:0,8-15:1');
    expect(varOf(job, 'TABLE_SHARDS')!.value).toBe('16');
  });

  it('examples/postgres-split.yaml: DATABASE_URLS from the given Secret key (DATABASE_URL still from secrets.existingSecret), 64 shards over two databases', () => {
    const objects = render(['-f', path.join(EXAMPLES_DIR, 'postgres-split.yaml')]);
    expect(validateWithKubernetesModels(objects).filter((r) => r.error !== null)).toEqual([]);
    const config = find(objects, 'ConfigMap', '-config').data;
    expect(config.DATABASE_SHARD_MAP).toBe('0-31:0,32-63:1');
    expect(config.TABLE_SHARDS).toBe('64');
    expect(config.REDIS_CLUSTER_NODES).toBeDefined();
    for (const env of [
      ...SERVICES.map((s) => envOf(objects, 'Deployment', s)),
      envOf(objects, 'Job', '-migrate'),
    ]) {
      expect(varOf(env, 'DATABASE_URLS')!.valueFrom!.secretKeyRef).toEqual({
        name: 'dominoes-secrets',
        key: 'DATABASE_URLS',
      });
      // secrets.existingSecret is set, so DATABASE_URL still comes from it (the services use DATABASE_URLS).
      expect(varOf(env, 'DATABASE_URL')!.valueFrom!.secretKeyRef!.name).toBe('dominoes-secrets');
    }
    expect(varOf(envOf(objects, 'Job', '-migrate'), 'DATABASE_SHARD_MAP')!.value).toBe('0-31:0,32-63:1');
  });

  it('urlsSecret alone: DATABASE_URLS only (no DATABASE_URL from anywhere)', () => {
    const objects = render([
      ...['--set', 'postgres.mode=external', '--set', 'postgres.external.urlsSecret.name=pg-urls'],
      ...['--set', 'postgres.external.urlsSecret.databases=2'],
    ]);
    for (const env of [
      ...SERVICES.map((s) => envOf(objects, 'Deployment', s)),
      envOf(objects, 'Job', '-migrate'),
    ]) {
      expect(varOf(env, 'DATABASE_URL')).toBeUndefined();
      expect(varOf(env, 'DATABASE_URLS')!.valueFrom!.secretKeyRef).toEqual({
        name: 'pg-urls',
        key: 'DATABASE_URLS',
      });
    }
  });

  const external = ['--set', 'postgres.mode=external', '--set', `postgres.external.urls={${URLS.join(',')}}`];
  const map = (m: string) => ['--set-string', `postgres.external.shardMap=${m.replaceAll(',', '\\,')}`];
  it.each([
    [
      'a database index that is not listed',
      [...external, ...map('0-7:0,8-15:2')],
      /shardMap: "8-15:2" names database 2, but postgres.external.urls lists 2 \(databases 0-1\)/,
    ],
    [
      'an index beyond urlsSecret.databases',
      [
        ...['--set', 'postgres.mode=external', '--set', 'postgres.external.urlsSecret.name=s'],
        ...['--set', 'postgres.external.urlsSecret.databases=2', ...map('0-7:0,8-15:3')],
      ],
      /names database 3, but postgres.external.urlsSecret.databases says 2/,
    ],
    [
      'a second database with only one configured',
      [
        '--set',
        'postgres.mode=external',
        '--set',
        'postgres.external.url=postgresql://h/d',
        ...map('0-7:0,8-15:1'),
      ],
      /names database 1, but there is one database/,
    ],
    ['a shard in no database', [...external, ...map('0-7:0')], /shard 8 is in no database/],
    ['a shard named twice', [...external, ...map('0-7:0,7-15:1')], /shard 7 is named twice/],
    ['a shard beyond tableShards', [...external, ...map('0-16:0')], /there are 16 table shards/],
    ['a part that is not a range', [...external, ...map('zero:1')], /"zero:1" is not from-to:database/],
    [
      'urls with the bundled Postgres',
      ['--set', `postgres.external.urls={${URLS[0]}}`],
      /need postgres.mode external/,
    ],
    [
      'url and urls',
      [...external, '--set', 'postgres.external.url=postgresql://h/d'],
      /set url \(one database\) or urls/,
    ],
    [
      'urlsSecret without its count',
      ['--set', 'postgres.mode=external', '--set', 'postgres.external.urlsSecret.name=s'],
      /urlsSecret.databases must say how many/,
    ],
    [
      'a URL that is not postgres',
      ['--set', 'postgres.mode=external', '--set', 'postgres.external.urls={mysql://h/d}'],
      /urls\/0.*does not match pattern/,
    ],
  ])('%s is refused, naming the value', (_name, args, message) => {
    const result = helm(['template', 'dom', CHART_DIR, ...args]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
  });
});

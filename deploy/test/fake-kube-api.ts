/**
 * A stand-in for a Kubernetes API server, just enough for `helm template --dry-run=server` to run the
 * chart's `lookup` calls against it: discovery of the kinds the chart renders, GET of the Secrets it
 * is given (as if an earlier release had made them), 404 for everything else. No Kubernetes API
 * server can run on these machines (see ../shared/docker/README.md), and `helm template` without a
 * cluster answers every lookup with nothing, so this is how a test sees what an upgrade renders.
 */
import * as fs from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** group/version → [plural, Kind, namespaced]. */
const KINDS: Record<string, [string, string, boolean][]> = {
  v1: [
    ['secrets', 'Secret', true],
    ['configmaps', 'ConfigMap', true],
    ['services', 'Service', true],
    ['serviceaccounts', 'ServiceAccount', true],
    ['namespaces', 'Namespace', false],
  ],
  'apps/v1': [
    ['deployments', 'Deployment', true],
    ['statefulsets', 'StatefulSet', true],
  ],
  'batch/v1': [['jobs', 'Job', true]],
  'policy/v1': [['poddisruptionbudgets', 'PodDisruptionBudget', true]],
  'autoscaling/v2': [['horizontalpodautoscalers', 'HorizontalPodAutoscaler', true]],
  'networking.k8s.io/v1': [
    ['ingresses', 'Ingress', true],
    ['networkpolicies', 'NetworkPolicy', true],
  ],
};

export interface FakeSecret {
  readonly name: string;
  readonly namespace: string;
  /** Plain values; served base64-encoded as the API does. */
  readonly data: Record<string, string>;
  /** The Helm release that owns it (its ownership labels and annotations). */
  readonly release: string;
}

export interface FakeKubeApi {
  readonly kubeconfig: string;
  /** "METHOD path" of every request, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

const resourceList = (groupVersion: string) => ({
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion,
  resources: (KINDS[groupVersion] ?? []).map(([name, kind, namespaced]) => ({
    name,
    singularName: kind.toLowerCase(),
    namespaced,
    kind,
    verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'],
  })),
});

export async function startFakeKubeApi(secrets: readonly FakeSecret[]): Promise<FakeKubeApi> {
  const requests: string[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const route = url.pathname;
    requests.push(`${req.method} ${route}`);
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (route === '/version') return send(200, { major: '1', minor: '30', gitVersion: 'v1.30.0' });
    if (route === '/api')
      return send(200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
    if (route === '/api/v1') return send(200, resourceList('v1'));
    if (route === '/apis') {
      const groups = Object.keys(KINDS)
        .filter((gv) => gv.includes('/'))
        .map((gv) => {
          const [name, version] = gv.split('/') as [string, string];
          const preferred = { groupVersion: gv, version };
          return { name, versions: [preferred], preferredVersion: preferred };
        });
      return send(200, { kind: 'APIGroupList', apiVersion: 'v1', groups });
    }
    const group = /^\/apis\/([^/]+\/[^/]+)$/.exec(route);
    if (group && KINDS[group[1]!]) return send(200, resourceList(group[1]!));
    const named = /^\/api\/v1\/namespaces\/([^/]+)\/secrets\/([^/]+)$/.exec(route);
    const secret = named && secrets.find((s) => s.namespace === named[1] && s.name === named[2]);
    if (req.method === 'GET' && secret) {
      return send(200, {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: {
          name: secret.name,
          namespace: secret.namespace,
          labels: { 'app.kubernetes.io/managed-by': 'Helm' },
          annotations: {
            'meta.helm.sh/release-name': secret.release,
            'meta.helm.sh/release-namespace': secret.namespace,
          },
        },
        data: Object.fromEntries(
          Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]),
        ),
      });
    }
    if (req.method === 'GET' && /\/secrets$/.test(route)) {
      return send(200, { apiVersion: 'v1', kind: 'SecretList', metadata: {}, items: [] });
    }
    if (req.method !== 'GET') {
      // A server-side dry run: accepted as sent.
      try {
        return send(201, JSON.parse(body));
      } catch {
        return send(201, {});
      }
    }
    return send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-kube-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: fake, cluster: {server: "http://127.0.0.1:${port}"}}]`,
      'users: [{name: test, user: {token: test}}]',
      'contexts: [{name: fake, context: {cluster: fake, user: test}}]',
      'current-context: fake',
      '',
    ].join('\n'),
  );
  return {
    kubeconfig,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Validates Kubernetes manifests with kubernetes-models (ESM-only, so jest runs this file in a child `node`).
// stdin: a JSON array of objects; stdout: a JSON array of { kind, name, error } (error null when valid).
// Models: kubernetes-models (core/apps/batch/...), @kubernetes-models/prometheus-operator (ServiceMonitor,
// PrometheusRule), @kubernetes-models/gateway-api (HTTPRoute).
import { readFileSync } from 'node:fs';
import process from 'node:process';

function modulePath(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (group === 'monitoring.coreos.com')
    return `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`;
  if (group === 'gateway.networking.k8s.io') return `@kubernetes-models/gateway-api/${apiVersion}/${kind}`;
  return group ? `kubernetes-models/${group}/${version}/${kind}` : `kubernetes-models/${version}/${kind}`;
}

const docs = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
for (const doc of docs) {
  const kind = doc?.kind;
  const name = doc?.metadata?.name;
  let error = null;
  try {
    if (typeof doc?.apiVersion !== 'string' || typeof kind !== 'string')
      throw new Error('apiVersion/kind missing');
    let mod;
    try {
      mod = await import(modulePath(doc.apiVersion, kind));
    } catch (e) {
      throw new Error(`no model for ${doc.apiVersion} ${kind}: ${e.message}`);
    }
    const Model = mod[kind] ?? mod.default;
    if (typeof Model !== 'function')
      throw new Error(`no model class ${kind} in ${modulePath(doc.apiVersion, kind)}`);
    new Model(doc).validate();
  } catch (e) {
    error = e.message;
  }
  results.push({ kind, name, error });
}
process.stdout.write(JSON.stringify(results));

/** Rendering the chart with the real helm, parsing the output, and validating it with kubernetes-models. */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CHART_DIR, helm } from './helm-binary';

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered manifests are untyped JSON */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [k: string]: any };
  [k: string]: any;
};

export const EXAMPLES_DIR = path.join(CHART_DIR, 'examples');
export const RELEASE = 'dom';
export const NAMESPACE = 'games';

export interface Scenario {
  name: string;
  args: string[];
}

export const SCENARIOS: Scenario[] = [
  { name: 'defaults', args: [] },
  {
    name: 'examples/production.yaml (+ monitoring.coreos.com/v1)',
    args: ['-f', path.join(EXAMPLES_DIR, 'production.yaml'), '--api-versions', 'monitoring.coreos.com/v1'],
  },
  { name: 'examples/trial.yaml', args: ['-f', path.join(EXAMPLES_DIR, 'trial.yaml')] },
  { name: 'examples/gateway-api.yaml', args: ['-f', path.join(EXAMPLES_DIR, 'gateway-api.yaml')] },
  {
    name: 'test/fixtures/everything-on.yaml (+ monitoring.coreos.com/v1)',
    args: [
      '-f',
      path.join(__dirname, 'fixtures', 'everything-on.yaml'),
      '--api-versions',
      'monitoring.coreos.com/v1',
    ],
  },
];

export function parseManifests(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`YAML error in rendered output: ${doc.errors[0].message}`);
      return doc.toJS() as K8sObject | null;
    })
    .filter((doc): doc is K8sObject => doc !== null && typeof doc === 'object');
}

/** `helm template` the chart; throws with helm's stderr when it fails. */
export function render(args: string[] = []): K8sObject[] {
  const result = helm(['template', RELEASE, CHART_DIR, '--namespace', NAMESPACE, ...args]);
  if (result.code !== 0) throw new Error(`helm template ${args.join(' ')} failed:\n${result.stderr}`);
  return parseManifests(result.stdout);
}

export interface ValidationResult {
  kind: string;
  name: string;
  error: string | null;
}

/** Runs every object through `new Model(obj).validate()` (in a child node: the models are ESM-only). */
export function validateWithKubernetesModels(objects: K8sObject[]): ValidationResult[] {
  const out = execFileSync(process.execPath, [path.join(__dirname, 'k8s-validate.mjs')], {
    input: JSON.stringify(objects),
    encoding: 'utf8',
    cwd: __dirname,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as ValidationResult[];
}

export const byKind = (objects: K8sObject[], kind: string): K8sObject[] =>
  objects.filter((o) => o.kind === kind);

export function find(objects: K8sObject[], kind: string, nameSuffix: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name.endsWith(nameSuffix));
  if (!found) throw new Error(`no ${kind} named *${nameSuffix}`);
  return found;
}

/** The pod template spec of a workload (Deployment, StatefulSet, Job). */
export const podSpec = (workload: K8sObject): any => workload.spec.template.spec;

export const hookEvents = (o: K8sObject): string[] =>
  String(o.metadata.annotations?.['helm.sh/hook'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export const hookWeight = (o: K8sObject): number =>
  Number(o.metadata.annotations?.['helm.sh/hook-weight'] ?? 0);

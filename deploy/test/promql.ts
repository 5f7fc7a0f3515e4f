/**
 * What the dashboard and the alerts query: the metric names in PromQL expressions (a small lexer, enough
 * for the expressions this repository writes), the expressions of the Grafana dashboard, and the metrics a
 * Prometheus text exposition has. Used by deploy/test/monitoring.test.ts and e2e/test/observability.e2e.test.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CHART_DIR, helm } from './helm-binary';
import { NAMESPACE, RELEASE, parseManifests } from './manifests';

export const DASHBOARD_FILE = path.join(CHART_DIR, 'dashboards', 'dominoes.json');

/** One vector selector: the metric name and the raw text between its braces ('' when it has none). */
export interface Selector {
  metric: string;
  matchers: string;
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'atan2', 'offset', 'bool', 'inf', 'nan']);
const GROUPING = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

type Token =
  | { kind: 'ident'; text: string }
  | { kind: 'braces'; text: string }
  | { kind: 'punct'; text: string }
  | { kind: 'other'; text: string };

/** The index just past a string literal (", ' or `) that starts at `i`. */
function skipString(expr: string, i: number): number {
  const quote = expr[i];
  let j = i + 1;
  while (j < expr.length && expr[j] !== quote) j += expr[j] === '\\' && quote !== '`' ? 2 : 1;
  if (j >= expr.length) throw new Error(`unterminated string in ${expr}`);
  return j + 1;
}

/** The index just past the bracket that closes the one at `i`, skipping string literals inside. */
function skipBracket(expr: string, i: number, close: string): number {
  let j = i + 1;
  while (j < expr.length && expr[j] !== close) j = /["'`]/.test(expr[j]) ? skipString(expr, j) : j + 1;
  if (j >= expr.length) throw new Error(`unclosed ${expr[i]} in ${expr}`);
  return j + 1;
}

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < expr.length) {
    const c = expr[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '#') {
      while (i < expr.length && expr[i] !== '\n') i++; // a comment
    } else if (/["'`]/.test(c)) {
      const end = skipString(expr, i);
      tokens.push({ kind: 'other', text: expr.slice(i, end) });
      i = end;
    } else if (c === '{') {
      const end = skipBracket(expr, i, '}');
      tokens.push({ kind: 'braces', text: expr.slice(i + 1, end - 1) });
      i = end;
    } else if (c === '[') {
      i = skipBracket(expr, i, ']'); // a range or subquery: durations only
    } else if (c === '$') {
      // A Grafana variable ($job, ${job}, $__rate_interval): a value, never a metric.
      const m = /^\$(\{[^}]*\}|\w+)/.exec(expr.slice(i));
      if (!m) throw new Error(`bad variable at ${i} in ${expr}`);
      tokens.push({ kind: 'other', text: m[0] });
      i += m[0].length;
    } else if (/[0-9.]/.test(c)) {
      // A number or a duration (0.99, 1e-3, 0x1f, 15m, 1h30m).
      const m = /^[0-9.]+(?:[eE][-+]?[0-9]+)?[0-9a-zA-Z_]*/.exec(expr.slice(i));
      tokens.push({ kind: 'other', text: m ? m[0] : c });
      i += m ? m[0].length : 1;
    } else if (/[A-Za-z_:]/.test(c)) {
      const m = /^[A-Za-z_:][A-Za-z0-9_:]*/.exec(expr.slice(i));
      tokens.push({ kind: 'ident', text: m![0] });
      i += m![0].length;
    } else {
      tokens.push({ kind: 'punct', text: c });
      i++;
    }
  }
  return tokens;
}

/** Every vector selector of a PromQL expression, in order (functions, keywords and label names left out). */
export function selectors(expr: string): Selector[] {
  const tokens = tokenize(expr);
  const out: Selector[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const next = tokens[i + 1];
    if (t.kind === 'braces') {
      // A selector with no name before its braces: {__name__="..."}.
      const named = /__name__\s*=\s*"([^"]+)"/.exec(t.text);
      if (!named) throw new Error(`a selector without a metric name in ${expr}`);
      out.push({ metric: named[1], matchers: t.text });
      continue;
    }
    if (t.kind !== 'ident') continue;
    const word = t.text.toLowerCase();
    if (GROUPING.has(word) && next?.text === '(') {
      // by (le), on (job), group_left (x): label names up to the closing parenthesis.
      let j = i + 2;
      while (j < tokens.length && tokens[j].text !== ')') j++;
      i = j;
      continue;
    }
    if (KEYWORDS.has(word) || GROUPING.has(word)) continue;
    if (next?.text === '(') continue; // a function or an aggregation
    if (next?.kind === 'ident' && GROUPING.has(next.text.toLowerCase())) continue; // sum by (x) (...)
    if (next?.kind === 'braces') {
      out.push({ metric: t.text, matchers: next.text });
      i++;
    } else {
      out.push({ metric: t.text, matchers: '' });
    }
  }
  return out;
}

/** The distinct metric names an expression reads. */
export const metricNames = (expr: string): string[] => [...new Set(selectors(expr).map((s) => s.metric))];

/** Histograms and summaries are queried by their series: a_bucket, a_sum, a_count are the metric a. */
export const baseMetric = (name: string): string => name.replace(/_(bucket|sum|count)$/, '');

/* eslint-disable @typescript-eslint/no-explicit-any -- a dashboard is untyped JSON */
export type Dashboard = { [k: string]: any };

export const loadDashboard = (file = DASHBOARD_FILE): Dashboard =>
  JSON.parse(fs.readFileSync(file, 'utf8')) as Dashboard;

/** Every panel, the ones inside collapsed rows too. */
export function allPanels(dashboard: Dashboard): Dashboard[] {
  const out: Dashboard[] = [];
  const walk = (panels: Dashboard[] | undefined) => {
    for (const p of panels ?? []) {
      out.push(p);
      walk(p.panels);
    }
  };
  walk(dashboard.panels);
  return out;
}

export interface Query {
  where: string;
  expr: string;
}

/** Every PromQL expression of the dashboard: each target's expr and the series of each label_values() variable. */
export function dashboardQueries(dashboard: Dashboard): Query[] {
  const out: Query[] = [];
  for (const p of allPanels(dashboard)) {
    for (const t of p.targets ?? [])
      out.push({ where: `panel ${p.id} "${p.title}" ${t.refId}`, expr: t.expr });
  }
  for (const v of dashboard.templating?.list ?? []) {
    if (v.type !== 'query') continue;
    const q = typeof v.query === 'string' ? v.query : v.query?.query;
    const m = /^\s*label_values\((.*),\s*[A-Za-z_]\w*\s*\)\s*$/.exec(q ?? '');
    out.push({ where: `variable ${v.name}`, expr: m ? m[1] : (q ?? '') });
  }
  return out;
}

/** name -> type (counter, gauge, histogram, summary, untyped) of every metric in a Prometheus text exposition. */
export function exposedMetrics(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const typed = /^# TYPE ([A-Za-z_:][A-Za-z0-9_:]*) (\w+)/.exec(line);
    if (typed) {
      out.set(typed[1], typed[2]);
      continue;
    }
    const sample = /^([A-Za-z_:][A-Za-z0-9_:]*)[{ ]/.exec(line);
    if (sample && !out.has(sample[1]) && !out.has(baseMetric(sample[1]))) out.set(sample[1], 'untyped');
  }
  return out;
}

/** Whether a queried name is in an exposition: itself, or a histogram's or summary's _bucket/_sum/_count. */
export function exposes(metrics: Map<string, string>, name: string): boolean {
  if (metrics.has(name)) return true;
  const base = baseMetric(name);
  const type = metrics.get(base);
  if (type === 'histogram') return true;
  return type === 'summary' && !name.endsWith('_bucket');
}

export interface AlertRule {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** The alerting rules of the chart's PrometheusRule, rendered by helm with the given extra arguments. */
export function renderAlertRules(args: string[] = [], release = RELEASE, namespace = NAMESPACE): AlertRule[] {
  const result = helm([
    'template',
    release,
    CHART_DIR,
    '--namespace',
    namespace,
    '--api-versions',
    'monitoring.coreos.com/v1',
    '--set',
    'metrics.prometheusRule.enabled=true',
    '--show-only',
    'templates/prometheusrule.yaml',
    ...args,
  ]);
  if (result.code !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  const [rule, ...rest] = parseManifests(result.stdout);
  if (rule?.kind !== 'PrometheusRule' || rest.length > 0) throw new Error('expected one PrometheusRule');
  return (rule.spec.groups as Array<{ rules: AlertRule[] }>).flatMap((g) => g.rules);
}

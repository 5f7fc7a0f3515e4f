/**
 * The Grafana dashboard (deploy/helm/dominoes/dashboards/dominoes.json) and the alerts
 * (templates/prometheusrule.yaml): their shape, what they query, how the chart ships them, and that
 * docs/operations.md shows the alerts the chart renders. That every queried metric is really exported is
 * checked against the running services in e2e/test/observability.e2e.test.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CHART_DIR, REPO_ROOT, helm } from './helm-binary';
import { SCENARIOS, byKind, find, render, validateWithKubernetesModels } from './manifests';
import {
  DASHBOARD_FILE,
  allPanels,
  baseMetric,
  dashboardQueries,
  exposedMetrics,
  exposes,
  loadDashboard,
  metricNames,
  renderAlertRules,
  selectors,
} from './promql';

const OPERATIONS = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
const dashboard = loadDashboard();
const API = ['--api-versions', 'monitoring.coreos.com/v1'];
const ALERTS = [
  'ActionToViewSlow',
  'DeadlinesLate',
  'IntentErrors',
  'IntentsUnanswered',
  'DeadlineBacklog',
  'DeadlinesFailing',
  'EventLoopLag',
  'SocketsDropped',
  'TablesStuck',
  'ShardsUnowned',
  'ServiceDown',
];

/** The text of docs/operations.md from a heading (or line) to the next line that starts with `until`. */
function section(from: string, until: RegExp): string {
  const start = OPERATIONS.indexOf(from);
  if (start < 0) throw new Error(`docs/operations.md has no "${from}"`);
  const rest = OPERATIONS.slice(start + from.length);
  const end = rest.search(until);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Metric names docs/operations.md's "Metrics" section names (its table and the prom-client defaults). */
function documentedMetrics(): Set<string> {
  const text = section('### Metrics', /^PromQL/m);
  const names = new Set<string>();
  for (const [, code] of text.matchAll(/`([^`]+)`/g)) {
    const braces = /^(\w*)\{([\w,]+)\}(\w*)$/.exec(code);
    const expanded = braces ? braces[2].split(',').map((m) => `${braces[1]}${m}${braces[3]}`) : [code];
    for (const name of expanded) if (/^[a-z][a-z0-9_]*_[a-z0-9_]+$/.test(name)) names.add(name);
  }
  return names;
}

describe('the PromQL metric-name extraction the checks rely on', () => {
  it.each([
    ['up{namespace="dominoes"} == 0', ['up']],
    [
      'histogram_quantile(0.99, sum by (le) (rate(a_seconds_bucket{job=~"$job"}[$__rate_interval])))',
      ['a_seconds_bucket'],
    ],
    [
      'sum by (job, instance) (rate(b_total{x="a{b}",y!~"c|d"}[5m])) / on (job) group_left (z) c',
      ['b_total', 'c'],
    ],
    ['sum(x) < 0.5 * sum(x offset 15m) and y unless z or w', ['x', 'y', 'z', 'w']],
    ['(sum(dominoes_owned_shards) or vector(0)) < 1e3', ['dominoes_owned_shards']],
    ['$table_shards - sum without (instance) (m:recorded:rate5m)', ['m:recorded:rate5m']],
    ['max(deriv(q{s="failed"}[15m:1m])) > bool 0 # a comment naming not_a_metric', ['q']],
    ['{__name__="named_by_matcher", job="x"}', ['named_by_matcher']],
    ['count(count by (le) (n_bucket)) > inf', ['n_bucket']],
  ])('%s', (expr, names) => {
    expect(metricNames(expr)).toEqual(names);
  });

  it('gives each selector its matchers', () => {
    expect(selectors('rate(a{job=~"$job",k!=""}[5m]) + b')).toEqual([
      { metric: 'a', matchers: 'job=~"$job",k!=""' },
      { metric: 'b', matchers: '' },
    ]);
  });

  it('finds histogram series and counters in an exposition', () => {
    const metrics = exposedMetrics(
      [
        '# HELP h_seconds x',
        '# TYPE h_seconds histogram',
        'h_seconds_bucket{le="0.1"} 1',
        '# TYPE c_total counter',
        'g 3',
      ].join('\n'),
    );
    for (const name of ['h_seconds_bucket', 'h_seconds_sum', 'h_seconds_count', 'c_total', 'g'])
      expect({ name, found: exposes(metrics, name) }).toEqual({ name, found: true });
    for (const name of ['c', 'c_total_count', 'h_seconds_total', 'g_bucket'])
      expect({ name, found: exposes(metrics, name) }).toEqual({ name, found: false });
  });
});

describe('the Grafana dashboard (dashboards/dominoes.json)', () => {
  const panels = allPanels(dashboard);
  const graphs = panels.filter((p) => p.type !== 'row');

  it('is a dashboard Grafana imports: uid, title, schemaVersion, no fixed id, a time range', () => {
    expect(dashboard).toMatchObject({
      uid: expect.stringMatching(/^[a-zA-Z0-9_-]{1,40}$/),
      title: expect.any(String),
      schemaVersion: expect.any(Number),
      time: { from: expect.any(String), to: expect.any(String) },
    });
    expect(dashboard.id ?? null).toBeNull(); // an id belongs to one Grafana's database
    expect(Array.isArray(dashboard.panels)).toBe(true);
    expect(dashboard.templating.list.map((v: { name: string }) => v.name)).toEqual([
      'datasource',
      'job',
      'table_shards',
    ]);
  });

  it('gives every panel a unique id and a place on the 24-column grid that no other panel takes', () => {
    const ids = panels.map((p) => p.id);
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const taken = new Map<string, number>();
    for (const p of panels) {
      const { x, y, w, h } = p.gridPos;
      expect({ id: p.id, fits: x >= 0 && w > 0 && h > 0 && x + w <= 24 && y >= 0 }).toEqual({
        id: p.id,
        fits: true,
      });
      for (let i = x; i < x + w; i++) {
        for (let j = y; j < y + h; j++) {
          const other = taken.get(`${i},${j}`);
          expect({ id: p.id, overlaps: other }).toEqual({ id: p.id, overlaps: undefined });
          taken.set(`${i},${j}`, p.id);
        }
      }
    }
  });

  it('has targets with an expression and a unique refId on every graph', () => {
    expect(graphs.length).toBeGreaterThanOrEqual(15);
    for (const p of graphs) {
      expect({
        id: p.id,
        type: ['timeseries', 'stat', 'gauge', 'table', 'bargauge'].includes(p.type),
      }).toEqual({
        id: p.id,
        type: true,
      });
      expect({ id: p.id, title: typeof p.title === 'string' && p.title.length > 0 }).toEqual({
        id: p.id,
        title: true,
      });
      expect(p.targets.length).toBeGreaterThan(0);
      const refIds = p.targets.map((t: { refId: string }) => t.refId);
      expect(new Set(refIds).size).toBe(refIds.length);
      for (const t of p.targets) expect(t.expr).toMatch(/\S/);
    }
  });

  it('reads from the datasource variable (any Prometheus), never from a fixed datasource', () => {
    const variable = dashboard.templating.list.find((v: { name: string }) => v.name === 'datasource');
    expect(variable).toMatchObject({ type: 'datasource', query: 'prometheus' });
    const ds = { type: 'prometheus', uid: '${datasource}' };
    for (const p of graphs) {
      expect({ id: p.id, ds: p.datasource }).toEqual({ id: p.id, ds });
      for (const t of p.targets) expect({ id: p.id, ds: t.datasource }).toEqual({ id: p.id, ds });
    }
    const uids = [...JSON.stringify(dashboard).matchAll(/"uid":\s*"([^"]*)"/g)].map((m) => m[1]);
    expect(new Set(uids)).toEqual(new Set([dashboard.uid, '${datasource}', '-- Grafana --']));
  });

  it('shows one service or all (the job variable), and filters every selector of every panel by it', () => {
    const job = dashboard.templating.list.find((v: { name: string }) => v.name === 'job');
    expect(job).toMatchObject({ type: 'query', multi: true, includeAll: true });
    const regex = /^\/(.*)\/$/.exec(job.regex);
    expect(regex).not.toBeNull();
    // Grafana takes a regex's first capture group as the value: the filter must not have one.
    expect(regex![1]).not.toMatch(/\((?!\?:)/);
    const filter = new RegExp(regex![1]);
    for (const name of ['dom-dominoes-gateway', 'dominoes-table-service', 'timer-service'])
      expect(filter.test(name)).toBe(true);
    for (const name of ['kube-state-metrics', 'node-exporter', 'gateway-api-controller'])
      expect(filter.test(name)).toBe(false);
    for (const p of graphs) {
      for (const t of p.targets) {
        for (const s of selectors(t.expr)) {
          expect({ panel: p.title, metric: s.metric, filtered: s.matchers.includes('job=~"$job"') }).toEqual({
            panel: p.title,
            metric: s.metric,
            filtered: true,
          });
        }
      }
    }
  });

  it('shows every dominoes_* metric of docs/operations.md, and the event-loop delay', () => {
    const queried = new Set(dashboardQueries(dashboard).flatMap((q) => metricNames(q.expr).map(baseMetric)));
    const ours = [...documentedMetrics()].filter((m) => m.startsWith('dominoes_'));
    expect(ours.length).toBeGreaterThanOrEqual(11);
    expect(ours.filter((m) => !queried.has(m))).toEqual([]);
    expect(queried).toContain('nodejs_eventloop_lag_p99_seconds');
  });

  it('queries only metrics docs/operations.md lists (so the e2e check covers them all)', () => {
    const documented = documentedMetrics();
    const names = dashboardQueries(dashboard).flatMap((q) =>
      metricNames(q.expr).map((n) => `${q.where}: ${n}`),
    );
    expect(names.length).toBeGreaterThanOrEqual(25);
    expect(names.filter((n) => !documented.has(baseMetric(n.split(': ')[1])))).toEqual([]);
  });
});

describe('the dashboard ConfigMap (metrics.grafanaDashboard)', () => {
  const on = ['--set', 'metrics.grafanaDashboard.enabled=true'];

  it('is off by default', () => {
    expect(byKind(render(), 'ConfigMap').map((c) => c.metadata.name)).toEqual(['dom-dominoes-config']);
  });

  it('carries the dashboard file for the sidecar, with table_shards set from tableShards', () => {
    const objects = render([...on, '--set', 'tableShards=48']);
    const cm = find(objects, 'ConfigMap', '-dashboard');
    expect(cm.metadata.labels.grafana_dashboard).toBe('1');
    expect(cm.metadata.namespace).toBeUndefined(); // the release's
    expect(Object.keys(cm.data)).toEqual(['dominoes.json']);
    const shipped = JSON.parse(cm.data['dominoes.json']);
    const shards = shipped.templating.list.find((v: { name: string }) => v.name === 'table_shards');
    expect(shards).toMatchObject({ query: '48', current: { text: '48', value: '48' } });
    // Everything else is the file as it is.
    const file = loadDashboard(DASHBOARD_FILE);
    const strip = (d: typeof file) => ({
      ...d,
      templating: { list: d.templating.list.filter((v: { name: string }) => v.name !== 'table_shards') },
    });
    expect(strip(shipped)).toEqual(strip(file));
    expect(validateWithKubernetesModels([cm])).toEqual([
      { kind: 'ConfigMap', name: cm.metadata.name, error: null },
    ]);
  });

  it('takes the labels, annotations and namespace the sidecar needs', () => {
    const objects = render([
      ...on,
      '--set',
      'metrics.grafanaDashboard.labels.grafana_dashboard=null',
      '--set',
      'metrics.grafanaDashboard.labels.dashboards=dominoes',
      '--set',
      'metrics.grafanaDashboard.annotations.grafana_folder=Games',
      '--set',
      'metrics.grafanaDashboard.namespace=monitoring',
    ]);
    const cm = find(objects, 'ConfigMap', '-dashboard');
    expect(cm.metadata.labels.grafana_dashboard).toBeUndefined();
    expect(cm.metadata.labels.dashboards).toBe('dominoes');
    expect(cm.metadata.labels['app.kubernetes.io/instance']).toBe('dom');
    expect(cm.metadata.annotations).toEqual({ grafana_folder: 'Games' });
    expect(cm.metadata.namespace).toBe('monitoring');
  });

  it('refuses a namespace that is not a name', () => {
    const result = helm([
      'template',
      'dom',
      CHART_DIR,
      ...on,
      '--set',
      'metrics.grafanaDashboard.namespace=Not_A_Name',
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/grafanaDashboard[./]namespace/);
  });
});

describe('the alerts (metrics.prometheusRule)', () => {
  const onWithApi = ['--set', 'metrics.prometheusRule.enabled=true', ...API];

  it('render only when enabled and the cluster serves monitoring.coreos.com/v1, like the ServiceMonitors', () => {
    expect(byKind(render(API), 'PrometheusRule')).toEqual([]);
    expect(byKind(render(['--set', 'metrics.prometheusRule.enabled=true']), 'PrometheusRule')).toEqual([]);
    const objects = render(onWithApi);
    const rules = byKind(objects, 'PrometheusRule');
    expect(rules.map((r) => r.metadata.name)).toEqual(['dom-dominoes']);
    expect(rules[0].apiVersion).toBe('monitoring.coreos.com/v1');
    expect(validateWithKubernetesModels(rules)).toEqual([
      { kind: 'PrometheusRule', name: 'dom-dominoes', error: null },
    ]);
  });

  it('has every alert of docs/operations.md, each with a severity, a summary and a description', () => {
    const rules = renderAlertRules();
    expect(rules.map((r) => r.alert)).toEqual(ALERTS);
    for (const r of rules) {
      expect(r.for).toMatch(/^[0-9]+[smh]$/);
      expect(['warning', 'critical']).toContain(r.labels.severity);
      expect(r.annotations.summary).toMatch(/\S/);
      expect(r.annotations.description).toMatch(/\S/);
    }
  });

  it('limits every selector to the release namespace', () => {
    for (const r of renderAlertRules([], 'dom', 'games')) {
      const found = selectors(r.expr);
      expect(found.length).toBeGreaterThan(0);
      for (const s of found) {
        expect({ alert: r.alert, metric: s.metric, ns: s.matchers.split(',')[0] }).toEqual({
          alert: r.alert,
          metric: s.metric,
          ns: 'namespace="games"',
        });
      }
    }
  });

  it('takes thresholds, for, severity and enabled from the values, and ShardsUnowned from tableShards', () => {
    const rules = renderAlertRules([
      '--set',
      'tableShards=64',
      '--set', // a string, as --set gives it
      'metrics.prometheusRule.alerts.ActionToViewSlow.threshold=0.4',
      '--set',
      'metrics.prometheusRule.alerts.ActionToViewSlow.for=3m',
      '--set',
      'metrics.prometheusRule.alerts.ActionToViewSlow.severity=page',
      '--set-json',
      'metrics.prometheusRule.alerts.DeadlineBacklog.threshold=2500',
      '--set',
      'metrics.prometheusRule.alerts.EventLoopLag.enabled=false',
      '--set',
      'metrics.prometheusRule.additionalAlertLabels.team=games',
    ]);
    const byName = new Map(rules.map((r) => [r.alert, r]));
    expect(byName.has('EventLoopLag')).toBe(false);
    expect(rules).toHaveLength(ALERTS.length - 1);
    expect(byName.get('ActionToViewSlow')).toMatchObject({
      for: '3m',
      labels: { severity: 'page', team: 'games' },
    });
    expect(byName.get('ActionToViewSlow')!.expr).toMatch(/\) > 0\.4$/);
    expect(byName.get('DeadlineBacklog')!.expr).toMatch(/ > 2500$/);
    expect(byName.get('ShardsUnowned')!.expr).toMatch(/ < 64$/);
    expect(byName.get('ShardsUnowned')!.annotations.summary).toContain('of 64 shards');
    for (const r of rules) expect(r.labels.team).toBe('games');
  });

  it('queries only metrics docs/operations.md lists, besides Prometheus’s own up', () => {
    const documented = documentedMetrics();
    const names = renderAlertRules().flatMap((r) => metricNames(r.expr).map((n) => `${r.alert}: ${n}`));
    expect(names.filter((n) => !documented.has(baseMetric(n.split(': ')[1])))).toEqual(['ServiceDown: up']);
  });

  it('docs/operations.md shows exactly what the chart renders for namespace dominoes with the defaults', () => {
    const lines = section('Without the Operator, put them in a rules file', /^## /m).split('\n');
    const first = lines.findIndex((l) => l.startsWith('|'));
    const end = lines.findIndex((l, i) => i > first && !l.startsWith('|'));
    const table = lines.slice(first + 2, end); // past the header and its separator
    // Cells split at | but not at \| (a | inside a cell, as in a regex matcher).
    const cells = (line: string) =>
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.replace(/\\\|/g, '|').trim());
    const documented = table.map((line) => {
      const [alert, expression, forDuration, severity] = cells(line);
      const code = /`([^`]+)`/.exec(expression);
      return { alert, expr: code ? code[1] : expression, for: forDuration, severity };
    });
    const rendered = renderAlertRules([], 'dominoes', 'dominoes').map((r) => ({
      alert: r.alert,
      expr: r.expr,
      for: r.for,
      severity: r.labels.severity,
    }));
    expect(documented).toEqual(rendered);
  });

  it('everything-on fixture: alerts left out and changed, extra labels on the rule and on every alert', () => {
    const everything = SCENARIOS.find((sc) => sc.name.startsWith('test/fixtures/everything-on.yaml'))!;
    const objects = render(everything.args);
    const rule = find(objects, 'PrometheusRule', 'dominoes-all');
    expect(rule.metadata.labels).toMatchObject({ release: 'prom', team: 'games' });
    expect(rule.metadata.annotations).toEqual({ 'example.com/owner': 'games' });
    const rules: Array<{ alert: string; expr: string; for: string; labels: Record<string, string> }> =
      rule.spec.groups[0].rules;
    expect(rules.map((r) => r.alert)).toEqual(ALERTS.filter((a) => a !== 'SocketsDropped'));
    expect(rules.find((r) => r.alert === 'IntentErrors')).toMatchObject({
      expr: expect.stringMatching(/ > 0\.05$/),
      for: '10m',
      labels: { severity: 'page', team: 'games' },
    });
    const dashboard = find(objects, 'ConfigMap', '-dashboard');
    expect(dashboard.metadata.labels).toMatchObject({ grafana_dashboard: 'yes', team: 'games' });
    expect(dashboard.metadata.annotations).toEqual({ grafana_folder: 'Games' });
  });

  it('its own labels win over commonLabels with the same key', () => {
    const objects = render([
      ...onWithApi,
      '--set',
      'metrics.grafanaDashboard.enabled=true',
      '--set',
      'commonLabels.release=everyone',
      '--set',
      'metrics.prometheusRule.labels.release=prom',
      '--set',
      'metrics.grafanaDashboard.labels.release=graf',
      '--set-string',
      'commonLabels.tier=1',
    ]);
    const rule = find(objects, 'PrometheusRule', 'dom-dominoes');
    expect(rule.metadata.labels).toMatchObject({
      release: 'prom',
      tier: '1',
      'app.kubernetes.io/version': '0.1.0',
    });
    expect(find(objects, 'ConfigMap', '-dashboard').metadata.labels).toMatchObject({
      release: 'graf',
      tier: '1',
    });
    expect(find(objects, 'Deployment', '-gateway').metadata.labels.release).toBe('everyone');
  });

  it.each([
    [
      'a for that is not a duration',
      'metrics.prometheusRule.alerts.IntentErrors.for=soon',
      /IntentErrors[./]for/,
    ],
    [
      'a negative threshold',
      'metrics.prometheusRule.alerts.DeadlinesLate.threshold=-1',
      /DeadlinesLate[./]threshold/,
    ],
    ['an alert the rule does not have', 'metrics.prometheusRule.alerts.Typo.for=5m', /alerts.*Typo/],
  ])('refuses %s', (_name, set, message) => {
    const result = helm(['template', 'dom', CHART_DIR, ...onWithApi, '--set', set]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
  });
});

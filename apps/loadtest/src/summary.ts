import type { Report } from './report';

/** The one JSON line on stdout with the headline figures (for scripts such as `bench:pipeline`). */
export function summaryLine(report: Report, files: { readonly json: string; readonly html: string }) {
  const l = report.latencyMs;
  return {
    report: files.json,
    html: files.html,
    tables: report.tables,
    seconds: report.phases.measureSeconds,
    actionsPerSecond: report.totals.actionsPerSecond,
    actionToOwnViewMs: { p50: l.actionToOwnView.p50, p95: l.actionToOwnView.p95, p99: l.actionToOwnView.p99 },
    actionToAllViewsMs: {
      p50: l.actionToAllViews.p50,
      p95: l.actionToAllViews.p95,
      p99: l.actionToAllViews.p99,
    },
    deadlineLatenessMs: {
      p50: l.deadlineLateness.p50,
      p99: l.deadlineLateness.p99,
      max: l.deadlineLateness.max,
    },
    connectMs: { p50: l.connect.p50, p99: l.connect.p99 },
    errors: report.errors,
    disconnects: report.disconnects.total,
    matchesFinished: report.matchesFinished,
    /** CPU ms per stored action by process group (report.json → cost.perAction.cpuMs). */
    cpuMsPerAction: report.cost.perAction.cpuMs,
    ...(report.socketsOnly ? { socketsOnly: report.socketsOnly } : {}),
    ...(report.config.slice ? { slice: `${report.config.slice.index}/${report.config.slice.count}` } : {}),
    ...(report.merged ? { merged: report.merged.reports } : {}),
    warnings: report.warnings,
  };
}

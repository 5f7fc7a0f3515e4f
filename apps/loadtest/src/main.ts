/**
 * `npm run loadtest -- --url http://localhost:8080 --tables 1000 --think 1-3s --ramp 30s --duration 5m`
 *
 * Opens N tables with real WebSocket clients through the public protocol and plays whole matches
 * (docs/loadtest.md). A progress line goes to stderr; at the end report.json and report.html go
 * to --out, and one JSON line with the headline figures goes to stdout.
 */
import { ArgError, parseArgs, USAGE } from './args';
import { runLoadTest } from './run';

async function main(): Promise<number> {
  let config;
  try {
    config = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof ArgError) {
      process.stderr.write(`loadtest: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
  if (config === null) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // Ctrl-C once: end the window now and write the report; twice: leave at once.
  let interrupted = false;
  const stop = new Promise<void>((resolve) =>
    process.on('SIGINT', () => {
      if (interrupted) process.exit(130);
      interrupted = true;
      process.stderr.write('\nloadtest: stopping early; writing the report (Ctrl-C again to quit)\n');
      resolve();
    }),
  );
  const { report, files } = await runLoadTest(config, { progress: process.stderr, stop });
  const l = report.latencyMs;
  const summary = {
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
    warnings: report.warnings,
  };
  process.stderr.write(`loadtest: wrote ${files.json} and ${files.html}\n`);
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`loadtest: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

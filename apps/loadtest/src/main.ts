/**
 * `npm run loadtest -- --url http://localhost:8080 --tables 1000 --think 1-3s --ramp 30s --duration 5m`
 *
 * Opens N tables with real WebSocket clients through the public protocol and plays whole matches
 * (docs/loadtest.md). A progress line goes to stderr; at the end report.json and report.html go
 * to --out, and one JSON line with the headline figures goes to stdout. `--workers N` splits the
 * tables over N processes and merges their reports; `merge <report.json>... --out DIR` joins the
 * reports of separate processes or pods (`--slice K/N`).
 */
import { parseArgs as readArgv } from 'node:util';
import { join, resolve } from 'node:path';
import { ArgError, parseArgs, USAGE } from './args';
import { MergeError, mergeReports, readReport } from './merge';
import { writeReports } from './report';
import { runLoadTest } from './run';
import { summaryLine } from './summary';
import { runWorkers, WORKER_ENV, type ProgressMessage } from './workers';

const MERGE_USAGE = `Usage: npm run loadtest -- merge REPORT.json... [--out DIR]

  Joins the reports of one run's slices (--workers, --slice K/N, an Indexed Job's pods) into one
  report.json and report.html in DIR (default bench-results/loadtest-merged-<timestamp>/). A file
  may also be a pod's log with the report printed by --print-report.`;

function merge(argv: readonly string[]): number {
  let values;
  let files: string[];
  try {
    ({ values, positionals: files } = readArgv({
      args: [...argv],
      options: { out: { type: 'string' }, help: { type: 'boolean' } },
      allowPositionals: true,
    }));
  } catch (error) {
    process.stderr.write(
      `loadtest merge: ${error instanceof Error ? error.message : String(error)}\n\n${MERGE_USAGE}\n`,
    );
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${MERGE_USAGE}\n`);
    return 0;
  }
  if (files.length === 0) {
    process.stderr.write(`loadtest merge: name at least one report.json.\n\n${MERGE_USAGE}\n`);
    return 2;
  }
  try {
    const report = mergeReports(files.map(readReport));
    const dir = resolve(
      values.out ??
        join('bench-results', `loadtest-merged-${new Date().toISOString().replace(/[:.]/g, '-')}`),
    );
    const written = writeReports(dir, report);
    process.stderr.write(
      `loadtest merge: ${files.length} reports; wrote ${written.json} and ${written.html}\n`,
    );
    process.stdout.write(`${JSON.stringify(summaryLine(report, written))}\n`);
    return 0;
  } catch (error) {
    if (error instanceof MergeError) {
      process.stderr.write(`loadtest merge: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv[0] === 'merge') return merge(argv.slice(1));
  let config;
  try {
    config = parseArgs(argv);
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
  // A worker of --workers: progress goes to the parent over IPC; a parent gone ends the window.
  const send = process.env[WORKER_ENV] === '1' && process.send ? process.send.bind(process) : null;
  // Ctrl-C once: end the window now and write the report; twice: leave at once.
  let interrupted = false;
  const stop = new Promise<void>((resolveStop) => {
    process.on('SIGINT', () => {
      if (interrupted) process.exit(130);
      interrupted = true;
      process.stderr.write('\nloadtest: stopping early; writing the report (Ctrl-C again to quit)\n');
      resolveStop();
    });
    if (send) process.on('disconnect', () => resolveStop());
  });

  if (config.workers > 1) {
    const { report, files, workerFiles } = await runWorkers(config, {
      entry: process.argv[1]!,
      argv,
      progress: process.stderr,
      stop,
    });
    process.stderr.write(
      `loadtest: ${config.workers} workers; merged into ${files.json} and ${files.html}\n`,
    );
    const line = config.printReport ? report : { ...summaryLine(report, files), workers: workerFiles };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    return 0;
  }

  const { report, files } = await runLoadTest(config, {
    progress: process.stderr,
    stop,
    ...(send
      ? {
          onTick: (progress) => {
            const message: ProgressMessage = { type: 'loadtest-progress', ...progress };
            send(message);
          },
        }
      : {}),
  });
  process.stderr.write(`loadtest: wrote ${files.json} and ${files.html}\n`);
  process.stdout.write(`${JSON.stringify(config.printReport ? report : summaryLine(report, files))}\n`);
  // A worker leaves the IPC channel so that its exit is not held up by it.
  if (send) process.disconnect?.();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`loadtest: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

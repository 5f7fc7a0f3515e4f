/**
 * --workers N: the run split over N processes on this machine. The parent forks N children of the
 * same entry, child k with `--slice k/N --out <out>/worker-k`; each sends its per-second progress
 * over IPC, the parent shows one progress line over all of them, waits, and merges their reports
 * into <out>/report.json and report.html. A child that fails ends the run: the others are stopped
 * and the error names it. The cost readings (--metrics, --redis-url, --database-url,
 * --local-procs) read whole-system counters, so only worker 0 takes them.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { LoadConfig } from './args';
import { mergeReports, readReport } from './merge';
import { writeReports, type Report } from './report';
import { defaultOutDir, type TickProgress } from './run';

export interface WorkersOptions {
  /** The script to fork (main.js, or main.ts under tsx: process.execArgv is passed on). */
  readonly entry: string;
  /** The command line as given (without node and the script). */
  readonly argv: readonly string[];
  readonly progress?: { write(text: string): unknown; isTTY?: boolean };
  /** Where the children's stderr lines go, prefixed with the worker (default process.stderr). */
  readonly log?: { write(text: string): unknown };
  /** Resolves on Ctrl-C: every child ends its window early and writes its report (SIGINT). */
  readonly stop?: Promise<void>;
}

export interface WorkersResult {
  readonly report: Report;
  readonly dir: string;
  readonly files: { readonly json: string; readonly html: string };
  readonly workerFiles: readonly string[];
}

/** The message a worker sends its parent once a second. */
export interface ProgressMessage extends TickProgress {
  readonly type: 'loadtest-progress';
}

/** The environment variable that tells main.ts it is a worker of a --workers parent. */
export const WORKER_ENV = 'LOADTEST_WORKER';

const VALUED = new Set([
  '--workers',
  '--out',
  '--slice',
  '--metrics',
  '--redis-url',
  '--redis-cluster-nodes',
  '--database-url',
]);
const COST = new Set([
  '--metrics',
  '--redis-url',
  '--redis-cluster-nodes',
  '--database-url',
  '--local-procs',
]);

/** Worker k's command line: the parent's, without --workers and --out, plus its slice and folder. */
export function workerArgv(argv: readonly string[], k: number, n: number, dir: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    const drop = name === '--workers' || name === '--out' || name === '--slice' || (k > 0 && COST.has(name));
    const takesNext = !arg.includes('=') && VALUED.has(name);
    if (!drop) out.push(arg);
    if (takesNext) {
      if (!drop && i + 1 < argv.length) out.push(argv[i + 1]!);
      i++;
    }
  }
  return [...out, '--slice', `${k}/${n}`, '--out', join(dir, `worker-${k}`), '--quiet'];
}

const fmtClock = (seconds: number): string => {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

/** The parent's progress line: the workers' last seconds summed (p99: the highest worker's). */
export function workersProgressLine(
  config: LoadConfig,
  latest: readonly (TickProgress | undefined)[],
): string {
  const got = latest.filter((p): p is TickProgress => p !== undefined);
  const sum = (pick: (p: TickProgress) => number) => got.reduce((s, p) => s + pick(p), 0);
  const maxOf = (pick: (p: TickProgress) => number | null) => {
    const v = got.map(pick).filter((x): x is number => x !== null);
    return v.length ? Math.max(...v) : null;
  };
  const t = maxOf((p) => p.point.t) ?? 0;
  const phase = got[0]?.point.phase ?? 'start';
  const parts = [
    `${fmtClock(t)} ${phase}`,
    `tables ${sum((p) => p.opened)}/${config.tables} open, ${sum((p) => p.point.tablesPlaying)} playing`,
  ];
  if (config.socketsOnly) parts.push(`sockets ${sum((p) => p.point.sockets)}`);
  else if (config.mode === 'idle') {
    const late = maxOf((p) => p.recentP99Lateness);
    parts.push(
      `${sum((p) => p.point.deadlineMoves)} deadline/s`,
      `lateness p99 ≤ ${late === null ? '–' : `${late.toFixed(1)} ms`}`,
    );
  } else {
    const p99 = maxOf((p) => p.recentP99All);
    parts.push(
      `${sum((p) => p.point.actions)} act/s`,
      `p99 all ≤ ${p99 === null ? '–' : `${p99.toFixed(1)} ms`}`,
    );
  }
  parts.push(
    `errors ${sum((p) => p.errors)}`,
    `disc ${sum((p) => p.disconnects)}`,
    `tool ${Math.round(sum((p) => p.point.toolCpu) * 100)}% cpu`,
    `${got.length}/${latest.length} workers`,
  );
  return parts.join(' | ');
}

export async function runWorkers(config: LoadConfig, options: WorkersOptions): Promise<WorkersResult> {
  const n = config.workers;
  const dir = resolve(config.out ?? defaultOutDir(new Date()));
  const log = options.log ?? process.stderr;
  const latest: (TickProgress | undefined)[] = Array.from({ length: n }, () => undefined);
  const children: ChildProcess[] = [];
  const tails: string[][] = Array.from({ length: n }, () => []);
  let failure: string | null = null;
  const killAll = (signal: NodeJS.Signals) => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  // Whatever ends this process (an error, a second Ctrl-C) ends the workers too.
  const onExit = () => killAll('SIGKILL');
  process.on('exit', onExit);

  const tty = options.progress?.isTTY === true;
  const showProgress = options.progress !== undefined && !config.quiet;
  let lastLineAt = -Infinity;
  const writeLine = () => {
    const line = workersProgressLine(config, latest);
    options.progress!.write(tty ? `\r${line}\x1b[K` : `${line}\n`);
  };
  const ticker = setInterval(() => {
    if (!showProgress) return;
    const now = Date.now();
    if (!tty && now - lastLineAt < 5000) return;
    lastLineAt = now;
    writeLine();
  }, 1000);

  try {
    const exits = Array.from({ length: n }, (_, k) => {
      const child = fork(options.entry, workerArgv(options.argv, k, n, dir), {
        execArgv: process.execArgv,
        env: { ...process.env, [WORKER_ENV]: '1' },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        // Its own process group: a terminal's Ctrl-C reaches the parent only, which passes it on once.
        detached: true,
      });
      children.push(child);
      let partial = '';
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (text: string) => {
        const lines = (partial + text).split('\n');
        partial = lines.pop()!;
        for (const line of lines) {
          if (line.trim() === '') continue;
          tails[k]!.push(line);
          if (tails[k]!.length > 8) tails[k]!.shift();
          log.write(`${tty ? '\r\x1b[K' : ''}[worker ${k}] ${line}\n`);
        }
      });
      child.on('message', (message: unknown) => {
        const m = message as Partial<ProgressMessage> | null;
        if (m && m.type === 'loadtest-progress') latest[k] = m as ProgressMessage;
      });
      return new Promise<void>((resolveExit, reject) => {
        child.on('error', (error) => reject(new Error(`worker ${k} (slice ${k}/${n}): ${error.message}`)));
        child.on('exit', (code, signal) => {
          if (code === 0) return resolveExit();
          const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
          const tail = tails[k]!.length ? `; its last lines:\n  ${tails[k]!.join('\n  ')}` : '';
          const message = `worker ${k} (slice ${k}/${n}, pid ${child.pid}) ${how}${tail}`;
          // The first failure names the run's cause; the others were stopped because of it.
          if (failure === null) {
            failure = message;
            killAll('SIGTERM');
          }
          reject(new Error(failure));
        });
      });
    });
    void options.stop?.then(() => killAll('SIGINT'));
    const settled = await Promise.allSettled(exits);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw new Error(failure ?? String(failed.reason));
    // The last line: every worker's last second, however slowly they started (a line every 5 s may
    // have come before a worker's first report).
    if (showProgress) writeLine();
  } finally {
    clearInterval(ticker);
    process.off('exit', onExit);
    killAll('SIGKILL');
    if (showProgress && tty) options.progress!.write('\n');
  }

  const workerFiles = Array.from({ length: n }, (_, k) => join(dir, `worker-${k}`, 'report.json'));
  const report = mergeReports(workerFiles.map(readReport));
  const merged: Report = { ...report, config: { ...report.config, workers: n, out: config.out } };
  const files = writeReports(dir, merged);
  return { report: merged, dir, files, workerFiles };
}

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TestSystem } from '../../../e2e/src/system';
import { parseArgs } from '../src/args';
import { mergeReports, readReport } from '../src/merge';
import type { Report } from '../src/report';
import { runLoadTest } from '../src/run';

/**
 * One run in slices against the real services: two slices as two runs at once (then `merge`),
 * `--workers 2` through the built command (its merged report against its workers'), and a worker
 * that dies. Needs the built JS (`npx tsc -b tsconfig.build.json`).
 */
const MAIN = resolve(__dirname, '../dist/main.js');

function cli(
  args: string[],
  timeoutMs = 90_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`loadtest ${args.join(' ')} ran over ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a load test in slices, merged', () => {
  let system: TestSystem;
  let dir: string;
  let common: string[];

  beforeAll(async () => {
    system = await TestSystem.start('loadtest-slices', { turnMs: 2000, breakMs: 3000, shards: 4 });
    dir = mkdtempSync(join(tmpdir(), 'loadtest-slices-'));
    common = ['--url', system.httpUrl, '--tables', '4', '--ramp', '1s', '--duration', '5s'];
    common.push('--think', '50-250ms', '--target', '100', '--quiet');
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('two slices run at once, then merged: counts summed, percentiles of the merged histograms, one clock', async () => {
    const [a, b] = await Promise.all(
      [0, 1].map((k) =>
        runLoadTest(parseArgs([...common, '--slice', `${k}/2`, '--out', join(dir, `slice-${k}`)])!),
      ),
    );
    const ra = readReport(a!.files.json);
    const rb = readReport(b!.files.json);
    for (const r of [ra, rb]) {
      expect(r.report.tables).toMatchObject({ requested: 2, opened: 2, failed: 0 });
      expect(r.report.totals.actions).toBeGreaterThan(0);
      expect(r.report.errors).toEqual({});
    }
    const m = mergeReports([ra, rb]);
    const both = [ra.report, rb.report];
    const sum = (pick: (r: Report) => number) => pick(ra.report) + pick(rb.report);
    expect(m.tables).toMatchObject({ requested: 4, opened: 4, failed: 0 });
    expect(m.config.slice).toBeNull();
    expect(m.totals.actions).toBe(sum((r) => r.totals.actions));
    expect(m.run.views).toBe(sum((r) => r.run.views));
    expect(m.totals.actionsPerSecond).toBeCloseTo(
      sum((r) => r.totals.actionsPerSecond),
      1,
    );
    // 16 seats, 16 distinct identities: no slice's names collided with the other's.
    expect(m.latencyMs.connect.count).toBe(16);
    expect(m.errors).toEqual({});
    for (const k of ['actionToOwnView', 'actionToAllViews', 'connect', 'join'] as const) {
      const [x, y] = both.map((r) => r.latencyMs[k]);
      const got = m.latencyMs[k];
      expect(got.count).toBe(x!.count + y!.count);
      expect(got.max).toBe(Math.max(x!.max!, y!.max!));
      expect(m.latencyHistograms![k].count).toBe(got.count);
      // A percentile of the whole lies between the parts' (not their average, which it rarely is).
      for (const p of ['p50', 'p90', 'p99'] as const) {
        expect(got[p]!).toBeGreaterThanOrEqual(Math.min(x![p]!, y![p]!));
        expect(got[p]!).toBeLessThanOrEqual(Math.max(x![p]!, y![p]!));
      }
      expect(m.histograms[k].reduce((s, bkt) => s + bkt.count, 0)).toBe(got.count);
    }
    // The series on one wall clock: every second's actions land in the merged series.
    const seriesActions = (r: Report) => r.timeSeries.reduce((s, p) => s + p.actions, 0);
    expect(seriesActions(m)).toBe(sum(seriesActions));
    expect(m.clock!.t0EpochMs).toBe(Math.min(ra.report.clock!.t0EpochMs, rb.report.clock!.t0EpochMs));
    expect(m.merged!.reports.map((r) => r.slice)).toEqual(['0/2', '1/2']);

    // A merge of one report is that report.
    const one = mergeReports([ra]);
    expect({ ...one, merged: undefined }).toEqual(JSON.parse(readFileSync(a!.files.json, 'utf8')));

    // Reports of different runs, or the same slice twice, are refused with the reason.
    const other = {
      ...ra,
      file: 'other.json',
      report: { ...rb.report, config: { ...rb.report.config, durationMs: 9000 } },
    };
    expect(() => mergeReports([ra, other])).toThrow(
      /other\.json and .* are not the same run: --duration differs/,
    );
    expect(() => mergeReports([ra, { ...ra, file: 'again.json' }])).toThrow(
      /again\.json and .* are both slice 0\/2/,
    );
    const unsliced = {
      file: 'whole.json',
      report: { ...rb.report, config: { ...rb.report.config, slice: null } },
    };
    expect(() => mergeReports([ra, unsliced])).toThrow(/not slices of one run/);

    // The command: the same merge from the files, and a pod's log (stderr lines, then --print-report's line).
    const log = join(dir, 'pod-1.log');
    writeFileSync(log, `loadtest: wrote x\n${JSON.stringify(rb.report)}\n`);
    const out = join(dir, 'merged');
    const merged = await cli(['merge', a!.files.json, log, '--out', out]);
    expect(merged.stderr).toContain('2 reports');
    expect(merged.code).toBe(0);
    const fromCli = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    expect(fromCli.totals).toEqual(m.totals);
    expect(fromCli.latencyMs).toEqual(m.latencyMs);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('Merged from 2 reports');
    expect(JSON.parse(merged.stdout.trim())).toMatchObject({ actionsPerSecond: m.totals.actionsPerSecond });
    const refused = await cli(['merge', a!.files.json, a!.files.json, '--out', join(dir, 'no')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/are both slice 0\/2/);
  }, 120_000);

  it('--workers 2: two processes, one progress line, one merged report whose counts are the sum of the workers’', async () => {
    const out = join(dir, 'workers');
    const args = [...common.filter((a) => a !== '--quiet'), '--workers', '2', '--out', out];
    const run = await cli(args);
    expect(run.stderr).not.toMatch(/worker \d .*exited/);
    expect(run.code).toBe(0);
    // The parent's own progress line (non-TTY: a line every 5 s, and one at the end) sums both
    // workers: its last line has both, however slowly they started.
    const lines = run.stderr.split('\n').filter((l) => / workers$/.test(l));
    expect(lines.at(-1)).toMatch(/tables 4\/4 open.*\| 2\/2 workers$/);
    const summary = JSON.parse(run.stdout.trim()) as { workers: string[]; report: string };
    expect(summary.workers).toEqual([
      join(out, 'worker-0', 'report.json'),
      join(out, 'worker-1', 'report.json'),
    ]);
    const workers = summary.workers.map((f) => readReport(f).report);
    const merged = readReport(summary.report).report;
    expect(workers.map((w) => w.config.slice)).toEqual([
      { index: 0, count: 2 },
      { index: 1, count: 2 },
    ]);
    expect(merged.config).toMatchObject({ workers: 2, slice: null, tables: 4 });
    expect(merged.tables).toMatchObject({ requested: 4, opened: 4, failed: 0 });
    expect(workers.every((w) => w.totals.actions > 0)).toBe(true);
    expect(merged.totals.actions).toBe(workers[0]!.totals.actions + workers[1]!.totals.actions);
    expect(merged.latencyMs.actionToAllViews.count).toBe(
      workers[0]!.latencyMs.actionToAllViews.count + workers[1]!.latencyMs.actionToAllViews.count,
    );
    expect(merged.latencyMs.connect.count).toBe(16);
    expect(merged.errors).toEqual({});
  }, 120_000);

  it('a worker that dies fails the run, naming it, and the other is stopped', async () => {
    const child = spawn(
      process.execPath,
      [MAIN, ...common, '--duration', '60s', '--workers', '2', '--out', join(dir, 'dies')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    let workers: number[] = [];
    for (let i = 0; i < 100 && workers.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      try {
        workers = execFileSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
          .split('\n')
          .filter(Boolean)
          .map(Number);
      } catch {
        workers = [];
      }
    }
    expect(workers).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 3000)); // both are running their tables
    const [first, second] = workers.sort((x, y) => x - y);
    process.kill(second!, 'SIGKILL');
    expect(await exited).toBe(1);
    expect(stderr).toMatch(
      new RegExp(`loadtest: worker 1 \\(slice 1/2, pid ${second}\\) was killed by SIGKILL`),
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(alive(first!)).toBe(false);
  }, 120_000);

  it('Ctrl-C (SIGINT to the parent) ends every worker’s window early; their reports are still merged', async () => {
    const out = join(dir, 'interrupted');
    const child = spawn(
      process.execPath,
      [MAIN, ...common, '--duration', '60s', '--workers', '2', '--out', out],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 6000)); // past the 1 s ramp: both are measuring
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(40_000);
    const summary = JSON.parse(stdout.trim()) as { workers: string[]; report: string };
    const workers = summary.workers.map((f) => readReport(f).report);
    const merged = readReport(summary.report).report;
    for (const w of workers) expect(w.phases.measureSeconds).toBeLessThan(30);
    expect(merged.totals.actions).toBe(workers[0]!.totals.actions + workers[1]!.totals.actions);
    expect(stderr).toContain('[worker 0] ');
  }, 120_000);

  it('a worker that cannot start fails the run with its own message', async () => {
    const run = await cli(['--url', 'http://127.0.0.1:9', '--tables', '2', '--workers', '2', '--quiet']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/loadtest: worker \d \(slice \d\/2, pid \d+\) exited with code 1/);
    expect(run.stderr).toMatch(/cannot use the gateway at http:\/\/127\.0\.0\.1:9/);
  }, 60_000);
});

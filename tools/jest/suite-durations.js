// A jest reporter: after the run, the wall time of every suite, slowest first, in
// test-artifacts/jest-suite-durations.json, and the ten slowest printed (what to look at when CI
// nears its 30 minutes). It reports; it never fails a run.
const fs = require('node:fs');
const path = require('node:path');

class SuiteDurations {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const suites = results.testResults
      .map((r) => ({
        suite: path.relative(this.rootDir, r.testFilePath),
        seconds: Math.round((r.perfStats.end - r.perfStats.start) / 100) / 10,
        tests: r.numPassingTests + r.numFailingTests,
        failed: r.numFailingTests > 0 || Boolean(r.testExecError),
      }))
      .filter((s) => s.seconds > 0)
      .sort((a, b) => b.seconds - a.seconds);
    const out = path.join(this.rootDir, 'test-artifacts', 'jest-suite-durations.json');
    try {
      fs.mkdirSync(path.dirname(out), { recursive: true });
      const total = Math.round((Date.now() - results.startTime) / 1000);
      fs.writeFileSync(out, JSON.stringify({ wallSeconds: total, suites }, null, 2) + '\n');
    } catch {
      return;
    }
    if (suites.length < 10) return;
    process.stdout.write(
      '\nslowest suites (s): ' +
        suites
          .slice(0, 10)
          .map((s) => `${s.suite} ${s.seconds}`)
          .join(', ') +
        '\n',
    );
  }
}

module.exports = SuiteDurations;

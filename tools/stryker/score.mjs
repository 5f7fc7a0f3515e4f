#!/usr/bin/env node
// The score per file of one or more Stryker reports (mutation.json), as docs/testing.md counts it:
// score = (killed + timeout) / (killed + timeout + survived + no coverage); static mutants ("Ignored")
// and runtime/compile errors are not counted. A file in several reports is taken from the last one
// given, so `score.mjs old.json newer.json` shows a group's files as their newest run measured them.
//
//   node tools/stryker/score.mjs test-artifacts/mutation/mutation.json [more.json ...] [--markdown]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const markdown = args.includes('--markdown');
const reports = args.filter((a) => a !== '--markdown');
if (reports.length === 0) {
  console.error('usage: score.mjs <mutation.json> [more.json ...] [--markdown]');
  process.exit(2);
}

const KEYS = ['Killed', 'Timeout', 'Survived', 'NoCoverage', 'Ignored', 'errors'];
const byFile = new Map();
for (const path of reports) {
  const report = JSON.parse(readFileSync(path, 'utf8'));
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const row = Object.fromEntries(KEYS.map((k) => [k, 0]));
    for (const { status } of mutants) {
      if (status === 'RuntimeError' || status === 'CompileError') row.errors += 1;
      else if (status in row) row[status] += 1;
      else throw new Error(`${path}: ${file}: unknown mutant status ${status}`);
    }
    byFile.set(file.replace(/^.*?apps\//, ''), row);
  }
}

const valid = (r) => r.Killed + r.Timeout + r.Survived + r.NoCoverage;
const score = (r) => (valid(r) === 0 ? '-' : `${((100 * (r.Killed + r.Timeout)) / valid(r)).toFixed(1)}%`);
const total = Object.fromEntries(KEYS.map((k) => [k, 0]));
const rows = [...byFile.entries()].sort(([a], [b]) => a.localeCompare(b));
for (const [, r] of rows) for (const k of KEYS) total[k] += r[k];

const line = (name, r) =>
  markdown
    ? `| \`${name}\` | ${KEYS.map((k) => r[k]).join(' | ')} | ${score(r)} |`
    : `${name.padEnd(60)} ${KEYS.map((k) => String(r[k]).padStart(5)).join(' ')} ${score(r).padStart(7)}`;
console.log(
  markdown
    ? '| file | killed | timeout | survived | no coverage | ignored (static) | errors | score |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'
    : `${'file'.padEnd(60)} killed timeout survived nocov static errors score`,
);
for (const [name, r] of rows) console.log(line(name, r));
console.log(line(`all ${rows.length} files`, total));
console.log(
  `detected ${total.Killed + total.Timeout} of ${valid(total)} valid mutants; killed alone (timeouts not counted): ${
    valid(total) === 0 ? '-' : `${((100 * total.Killed) / valid(total)).toFixed(1)}%`
  }`,
);

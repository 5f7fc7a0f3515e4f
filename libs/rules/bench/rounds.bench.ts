/**
 * `npm run --silent bench:rules [-- --seconds 5 --samples 5 --warmup 1 --seed bench]`
 *
 * Plays complete random partnership rounds through the public interface only (createMatch →
 * startRound → legalActions / applyAction until the round ends) on one core, and prints one JSON
 * line; the same JSON goes to bench-results/rules-<timestamp>.json (git-ignored).
 * `roundsPerSecond` is the median of the samples. The bar is 20,000 rounds/s.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  applyAction,
  createMatch,
  createSeededRng,
  legalActions,
  startRound,
  type MatchState,
  type Rng,
} from '@dominoes/rules';

const BAR_ROUNDS_PER_SECOND = 20_000;

interface Options {
  readonly seconds: number;
  readonly warmup: number;
  readonly samples: number;
  readonly seed: string;
}

function parseOptions(argv: readonly string[]): Options {
  const options = { seconds: 5, warmup: 1, samples: 5, seed: 'bench' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.split('=', 2) as [string, string | undefined];
    const value = inline ?? argv[++i];
    const number = Number(value);
    switch (flag) {
      case '--seconds':
      case '--warmup':
      case '--samples': {
        const key = flag.slice(2) as 'seconds' | 'warmup' | 'samples';
        const valid =
          key === 'samples'
            ? Number.isInteger(number) && number >= 1
            : Number.isFinite(number) && number >= 0;
        if (!valid || (key === 'seconds' && number <= 0))
          throw new Error(`${flag} needs a positive number, got ${String(value)}`);
        options[key] = number;
        break;
      }
      case '--seed':
        if (value === undefined) throw new Error('--seed needs a value');
        options.seed = value;
        break;
      default:
        throw new Error(`unknown option ${arg} (use --seconds, --samples, --warmup, --seed)`);
    }
  }
  return options;
}

function unwrap<T>(
  result: { ok: true; value: T } | { ok: false; error: { code: string; message: string } },
): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** One complete round with a random legal action at every turn. Returns the number of actions taken. */
function playRound(rng: Rng): { actions: number; points: number } {
  let match: MatchState = unwrap(startRound(unwrap(createMatch({ variant: 'partnership' })), rng));
  let actions = 0;
  while (match.round !== null && match.round.result === null) {
    const legal = legalActions(match, match.round.turn);
    const action = legal[rng.below(legal.length)];
    if (action === undefined) throw new Error('a round in play offered no legal action');
    match = unwrap(applyAction(match, action));
    actions++;
  }
  return { actions, points: match.round?.result?.points ?? 0 };
}

interface Sample {
  readonly rounds: number;
  readonly actions: number;
  readonly seconds: number;
  /** CPU time this process used during the sample: on a busy machine, less than `seconds`. */
  readonly cpuSeconds: number;
  readonly checksum: number;
}

/** Plays rounds for `seconds` of wall time on this thread. */
function run(rng: Rng, seconds: number): Sample {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const stop = start + seconds * 1000;
  let rounds = 0;
  let actions = 0;
  let checksum = 0;
  let now = start;
  while (now < stop) {
    const played = playRound(rng);
    rounds++;
    actions += played.actions;
    checksum = (checksum + played.points) | 0;
    now = performance.now();
  }
  const cpu = process.cpuUsage(cpuStart);
  return {
    rounds,
    actions,
    seconds: (now - start) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    checksum,
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

function main(): void {
  const options = parseOptions(process.argv.slice(2));
  const loadBefore = os.loadavg()[0] as number;
  const rng = createSeededRng(options.seed);
  if (options.warmup > 0) run(rng, options.warmup);
  const samples: Sample[] = [];
  for (let i = 0; i < options.samples; i++) samples.push(run(rng, options.seconds));
  const roundsPerSample = samples.map((s) => Math.round(s.rounds / s.seconds));
  const actionsPerSample = samples.map((s) => Math.round(s.actions / s.seconds));
  const roundsPerSecond = median(roundsPerSample);
  const date = new Date();
  const report = {
    benchmark: 'rules: random partnership rounds (createMatch, startRound, legalActions, applyAction)',
    roundsPerSecond,
    samples: roundsPerSample,
    actionsPerSecond: median(actionsPerSample),
    actionsPerRound: Number(
      (samples.reduce((n, s) => n + s.actions, 0) / samples.reduce((n, s) => n + s.rounds, 0)).toFixed(2),
    ),
    rounds: samples.reduce((n, s) => n + s.rounds, 0),
    // Rounds per second of CPU time: what one core does when nothing else competes for it.
    cpuRoundsPerSecond: median(samples.map((s) => Math.round(s.rounds / s.cpuSeconds))),
    // Other work on the machine lowers the wall-clock figures; the 1-minute load average shows it.
    loadAverage: [Number(loadBefore.toFixed(2)), Number((os.loadavg()[0] as number).toFixed(2))],
    secondsPerSample: options.seconds,
    warmupSeconds: options.warmup,
    seed: options.seed,
    bar: BAR_ROUNDS_PER_SECOND,
    meetsBar: roundsPerSecond >= BAR_ROUNDS_PER_SECOND,
    node: process.version,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    platform: `${os.platform()} ${os.arch()}`,
    date: date.toISOString(),
    checksum: samples.reduce((n, s) => (n + s.checksum) | 0, 0),
  };
  const line = JSON.stringify(report);
  const dir = path.resolve(__dirname, '../../../bench-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `rules-${date.toISOString().replace(/[:.]/g, '-')}.json`), `${line}\n`);
  process.stdout.write(`${line}\n`);
}

try {
  main();
} catch (thrown) {
  process.stderr.write(`bench:rules: ${thrown instanceof Error ? thrown.message : String(thrown)}\n`);
  process.exitCode = 1;
}

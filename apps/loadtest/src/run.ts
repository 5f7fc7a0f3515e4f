import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { requestIdentity } from '@dominoes/protocol';
import { createSeededRng } from '@dominoes/rules';
import { redactUrl, sliceTables, wsUrlOf, type LoadConfig } from './args';
import { buildCost, costDenominator, CostMeter, servicesCost } from './cost';
import {
  REPORT_SCHEMA,
  socketsOnlyResult,
  summarizeService,
  writeReports,
  type Report,
  type SocketsOnlyResult,
} from './report';
import { MetricsSampler, type ServiceSample } from './service-metrics';
import { Recorder, type SecondPoint } from './stats';
import { errorCode, TableRun, type RunContext } from './table';

export interface RunOptions {
  /** Where the progress line goes (stderr in the CLI); nothing when absent or config.quiet. */
  readonly progress?: { write(text: string): unknown; isTTY?: boolean };
  /** Resolves to end the run early (Ctrl-C): the window ends then and the report is written. */
  readonly stop?: Promise<void>;
  /** Called once a second with the new point (a --workers child sends it to its parent). */
  readonly onTick?: (progress: TickProgress) => void;
}

/** One second of a run, as a --workers child reports it to the parent's progress line. */
export interface TickProgress {
  readonly point: SecondPoint;
  readonly tables: number;
  readonly opened: number;
  readonly failed: number;
  readonly errors: number;
  readonly disconnects: number;
  /** p99 (ms) over the last 10 s. */
  readonly recentP99All: number | null;
  readonly recentP99Lateness: number | null;
}

export interface RunResult {
  readonly report: Report;
  readonly dir: string;
  readonly files: { readonly json: string; readonly html: string };
}

/** Table setups in flight at once, whatever the ramp: a slow server queues them instead of piling up. */
const MAX_SETUPS_IN_FLIGHT = 64;
/** After the window: how long to wait for the last replies and views. */
const DRAIN_MS = 3000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

export const defaultOutDir = (date = new Date()): string =>
  join('bench-results', `loadtest-${date.toISOString().replace(/[:.]/g, '-')}`);

function fmtClock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** The progress line: elapsed, tables playing, actions/s, p99 (last 10 s), errors, disconnects. */
export function progressLine(
  config: LoadConfig,
  p: SecondPoint,
  rec: Recorder,
  tablesOpened: number,
  extra: string,
): string {
  const parts = [
    `${fmtClock(p.t)} ${p.phase}`,
    `tables ${tablesOpened}/${sliceTables(config.tables, config.slice).length} open, ${p.tablesPlaying} playing`,
  ];
  if (config.socketsOnly) parts.push(`sockets ${p.sockets}`);
  else if (config.mode === 'idle') {
    const late = rec.recentP99('lateness');
    parts.push(
      `${rec.lastSecond('deadlineMoves')} deadline/s`,
      `lateness p99 ${late === null ? '–' : `${late.toFixed(1)} ms`}`,
    );
  } else {
    const p99 = rec.recentP99('all');
    parts.push(
      `${rec.lastSecond('actions')} act/s`,
      `p99 all ${p99 === null ? '–' : `${p99.toFixed(1)} ms`}`,
    );
  }
  parts.push(
    `errors ${rec.run.errors}`,
    `disc ${rec.run.disconnects}`,
    `tool ${Math.round(p.toolCpu * 100)}% cpu`,
  );
  if (extra) parts.push(extra);
  return parts.join(' | ');
}

export async function runLoadTest(config: LoadConfig, options: RunOptions = {}): Promise<RunResult> {
  const httpUrl = config.url;
  const startedAt = new Date();
  const loadStart = loadavg();
  // Fail fast, with a clear message, when the gateway is not there.
  try {
    await requestIdentity(httpUrl, 'lt-preflight');
  } catch (error) {
    throw new Error(
      `cannot use the gateway at ${httpUrl} (POST /api/identity: ${error instanceof Error ? error.message : String(error)})`,
    );
  }

  // Redis, Postgres and /proc readings for the cost per action: connected now, read at the window's edges.
  const meter = await CostMeter.open(config);

  const rec = new Recorder();
  const ctx: RunContext = {
    config,
    httpUrl,
    wsUrl: wsUrlOf(httpUrl),
    rec,
    // Each slice its own moves and think times (the same seed would repeat one slice's choices).
    rng: createSeededRng(
      config.slice && config.slice.count > 1 ? `${config.seed}#${config.slice.index}` : config.seed,
    ),
    acting: !config.socketsOnly,
    stopping: false,
  };
  // Table g of the run (a slice opens every N-th): its identities are named by g, its start by g too.
  const tables = sliceTables(config.tables, config.slice).map((g) => new TableRun(g, ctx));
  const sampler = new MetricsSampler(config.metrics);
  const t0 = performance.now();
  const t0EpochMs = Math.round(performance.timeOrigin + t0);
  const elapsed = () => (performance.now() - t0) / 1000;
  let phase: SecondPoint['phase'] = 'ramp';
  let stopped = false;
  const stopSignal = options.stop ?? new Promise<never>(() => undefined);
  void stopSignal.then(() => {
    stopped = true;
  });
  const sleepOrStop = (ms: number) => Promise.race([sleep(ms), stopSignal]);

  // The first scrape comes before the first socket (the report keeps it; it is not the per-socket figure).
  if (sampler.enabled) await sampler.sample(0);

  // Once a second: a point of the time series, timeouts, the progress line.
  const lagSecond = monitorEventLoopDelay({ resolution: 10 });
  const lagRun = monitorEventLoopDelay({ resolution: 10 });
  lagSecond.enable();
  lagRun.enable();
  let cpuPrev = process.cpuUsage();
  let cpuAt = performance.now();
  let maxRss = process.memoryUsage.rss();
  let opened = 0;
  let failed = 0;
  let everConnected = 0;
  const tty = options.progress?.isTTY === true;
  const showProgress = options.progress !== undefined && !config.quiet;
  let lastLineAt = 0;
  const tick = () => {
    const now = performance.now();
    const cpu = process.cpuUsage(cpuPrev);
    cpuPrev = process.cpuUsage();
    const toolCpu = (cpu.user + cpu.system) / 1000 / Math.max(1, now - cpuAt);
    cpuAt = now;
    maxRss = Math.max(maxRss, process.memoryUsage.rss());
    let playing = 0;
    let sockets = 0;
    for (const table of tables) {
      if (table.ready && table.status === 'playing') playing++;
      sockets += table.connectedSeats;
      table.sweep(now);
    }
    const point = rec.tick({
      t: Math.round(elapsed() * 10) / 10,
      phase,
      tablesPlaying: playing,
      sockets,
      toolCpu: Math.round(toolCpu * 1000) / 1000,
      toolLagP99: lagSecond.count > 0 ? Math.round(lagSecond.percentile(99) / 1e4) / 100 : null,
    });
    lagSecond.reset();
    options.onTick?.({
      point,
      tables: tables.length,
      opened,
      failed,
      errors: rec.run.errors,
      disconnects: rec.run.disconnects,
      recentP99All: rec.recentP99('all'),
      recentP99Lateness: rec.recentP99('lateness'),
    });
    if (showProgress && (tty || point.t - lastLineAt >= 5)) {
      lastLineAt = point.t;
      const line = progressLine(config, point, rec, opened, failed > 0 ? `${failed} failed` : '');
      options.progress!.write(tty ? `\r${line}\x1b[K` : `${line}\n`);
    }
  };
  const ticker = setInterval(tick, 1000);
  const sampling = sampler.enabled
    ? setInterval(() => void sampler.sample(Math.round(elapsed() * 10) / 10), config.metricsIntervalMs)
    : null;

  try {
    // Ramp: table i starts at i × ramp / N, at most MAX_SETUPS_IN_FLIGHT at once.
    let inFlight = 0;
    let freed: (() => void) | null = null;
    const setups: Promise<void>[] = [];
    for (let i = 0; i < tables.length && !stopped; i++) {
      await sleepOrStop(t0 + (tables[i]!.index * config.rampMs) / config.tables - performance.now());
      if (stopped) break;
      while (inFlight >= MAX_SETUPS_IN_FLIGHT) await new Promise<void>((r) => (freed = r));
      inFlight++;
      const table = tables[i]!;
      setups.push(
        table
          .open()
          .then(
            () => {
              opened++;
              everConnected += table.bots.length;
            },
            (error: unknown) => {
              failed++;
              rec.error(errorCode(error));
              table.fail();
            },
          )
          .finally(() => {
            inFlight--;
            const wake = freed;
            freed = null;
            wake?.();
          }),
      );
    }
    await sleepOrStop(t0 + config.rampMs - performance.now());
    await Promise.all(setups);

    // The measure window. The cost readings are sent first (the /proc one is taken at once), then
    // the counting starts; the window still lasts --duration from here.
    const sampleT = () => Math.round(elapsed() * 10) / 10;
    const startReadings = Promise.all([
      meter.start(),
      sampler.enabled ? sampler.sampleNow(sampleT) : Promise.resolve([] as ServiceSample[]),
    ]);
    const windowStartMs = performance.now();
    const windowStart = elapsed();
    phase = 'measure';
    rec.measuring = true;
    lagRun.reset();
    const windowCpu = process.cpuUsage();
    const [, metricsAtStart] = await startReadings;
    await sleepOrStop(windowStartMs + config.durationMs - performance.now());
    rec.measuring = false;
    const windowEnd = elapsed();
    const toolCpuWindow = process.cpuUsage(windowCpu);
    const [, metricsAtEnd] = await Promise.all([
      meter.end(),
      sampler.enabled ? sampler.sampleNow(sampleT) : Promise.resolve([] as ServiceSample[]),
    ]);
    const toolLag = lagRun.count > 0 ? { p99: lagRun.percentile(99) / 1e6, max: lagRun.max / 1e6 } : null;
    phase = 'drain';

    // Drain: nobody acts any more; the last replies and views still count.
    ctx.acting = false;
    for (const table of tables) table.stopActing();
    const drainUntil = performance.now() + DRAIN_MS;
    while (
      performance.now() < drainUntil &&
      tables.some((t) => t.pendingIntents > 0 || t.pendingMeasures > 0)
    )
      await sleep(100);
    if (sampler.enabled) await sampler.sample(Math.round(elapsed() * 10) / 10);
    tick();

    // Close every socket (the tool asked: not disconnects).
    const holdTo = Math.round(elapsed() * 10) / 10;
    ctx.stopping = true;
    let connectedAtEnd = 0;
    let playingAtEnd = 0;
    for (const table of tables) {
      connectedAtEnd += table.connectedSeats;
      if (table.status === 'playing') playingAtEnd++;
      table.close();
    }
    const closeUntil = performance.now() + 2000;
    while (performance.now() < closeUntil && tables.some((t) => t.connectedSeats > 0)) await sleep(50);

    // Sockets only: the gateway settles with no socket open, still sampled, for the reading the
    // memory per socket is measured against. A stop (Ctrl-C) that came during the hold lets it run;
    // one during the settle ends it.
    let settleTo: number | null = null;
    if (config.socketsOnly && config.settleMs > 0 && sampler.enabled) {
      phase = 'settle';
      const settleUntil = performance.now() + config.settleMs;
      const wait = (ms: number) => (stopped ? sleep(ms) : sleepOrStop(ms));
      await wait(settleUntil - performance.now());
      await sampler.sampleNow(() => Math.round(elapsed() * 10) / 10);
      settleTo = Math.round(elapsed() * 10) / 10;
    }
    if (showProgress && tty) options.progress!.write('\n');

    const measureSeconds = Math.round((windowEnd - windowStart) * 10) / 10;
    const per = (n: number) => (measureSeconds > 0 ? Math.round((n / measureSeconds) * 10) / 10 : 0);
    const totalSeconds = Math.round(elapsed() * 10) / 10;
    const toolCpuSeconds = (toolCpuWindow.user + toolCpuWindow.system) / 1e6;
    const warnings: string[] = [];
    if (toolLag && toolLag.p99 > 50)
      warnings.push(
        `This tool's own event loop was ${toolLag.p99.toFixed(0)} ms late at p99: its latencies include that delay. Run fewer tables per process, or the tool on another machine.`,
      );
    if (measureSeconds > 0 && toolCpuSeconds / measureSeconds > 0.85)
      warnings.push(
        `This tool used ${(toolCpuSeconds / measureSeconds).toFixed(2)} cores during the window: it may have been the bottleneck.`,
      );
    if (failed > 0) warnings.push(`${failed} of ${tables.length} tables could not be opened (see errors).`);
    if (!config.socketsOnly && config.mode === 'idle' && rec.window.deadlineMoves === 0)
      warnings.push(
        'Idle mode saw no deadline move in the window: is the turn time (TURN_MS) longer than the window?',
      );
    // The cost of one action: the readings' differences over the window's stored actions.
    const { actions: costActions, denominator } = costDenominator(config, rec.window);
    const costSections = meter.sections(costActions);
    const fromMetrics = servicesCost(
      metricsAtStart,
      metricsAtEnd,
      config.metrics.map((m) => m.name),
      costActions,
    );
    const cost = buildCost({
      actions: costActions,
      denominator,
      windowSeconds: measureSeconds,
      alsoInWindow: {
        acknowledgedMoves: rec.window.actions,
        hostIntents: rec.window.hostIntents,
        deadlineMoves: rec.window.deadlineMoves,
      },
      toolCpuMs: toolCpuSeconds * 1000,
      ...costSections,
      services: fromMetrics.services,
    });
    warnings.push(...meter.warnings, ...fromMetrics.warnings);
    if (costActions === 0 && (meter.enabled || sampler.enabled) && !config.socketsOnly)
      warnings.push(`No ${denominator} in the window: the cost has totals but nothing per action.`);

    const series = sampler.series;
    let socketsOnly: SocketsOnlyResult | null = null;
    if (config.socketsOnly) {
      const memory = socketsOnlyResult(series, everConnected, {
        holdFrom: Math.round(windowStart * 10) / 10,
        holdTo,
        settleTo,
      });
      socketsOnly = memory.result;
      warnings.push(...memory.warnings);
    }

    const report: Report = {
      schema: REPORT_SCHEMA,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      config: {
        ...config,
        redisUrl: redactUrl(config.redisUrl),
        databaseUrl: redactUrl(config.databaseUrl),
        ...(config.databaseUrls ? { databaseUrls: config.databaseUrls.map((u) => redactUrl(u)!) } : {}),
      },
      machine: {
        cpus: cpus().length,
        model: cpus()[0]?.model ?? 'unknown',
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
        totalMemoryBytes: totalmem(),
        loadAverageStart: loadStart.map((l) => Math.round(l * 100) / 100),
        loadAverageEnd: loadavg().map((l) => Math.round(l * 100) / 100),
      },
      phases: { rampSeconds: Math.round(windowStart * 10) / 10, measureSeconds, totalSeconds },
      tables: { requested: tables.length, opened, failed, playingAtEnd },
      sockets: { opened: everConnected, connectedAtEnd },
      totals: {
        ...rec.window,
        actionsPerSecond: per(rec.window.actions),
        viewsPerSecond: per(rec.window.views),
        deadlineMovesPerSecond: per(rec.window.deadlineMoves),
      },
      run: { ...rec.run },
      latencyMs: {
        actionToOwnView: rec.own.summary(),
        actionToAllViews: rec.all.summary(),
        connect: rec.connect.summary(),
        join: rec.join.summary(),
        deadlineLateness: rec.lateness.summary(),
      },
      histograms: {
        actionToOwnView: rec.own.bucketList(),
        actionToAllViews: rec.all.bucketList(),
        connect: rec.connect.bucketList(),
        join: rec.join.bucketList(),
        deadlineLateness: rec.lateness.bucketList(),
      },
      errors: { ...rec.errorsRun },
      errorsInWindow: { ...rec.errorsWindow },
      disconnects: { total: rec.run.disconnects, byCloseCode: { ...rec.disconnectsByCode } },
      reconnects: rec.run.reconnects,
      matchesFinished: rec.window.matchesFinished,
      timeSeries: rec.series,
      services: { summary: series.map(summarizeService), series },
      socketsOnly,
      tool: {
        client: 'lean WebSocket client (ws + JSON.parse, protocol types, no per-frame zod check)',
        cpuSeconds: Math.round(toolCpuSeconds * 10) / 10,
        cpuMeanCores: measureSeconds > 0 ? Math.round((toolCpuSeconds / measureSeconds) * 100) / 100 : 0,
        maxRssBytes: maxRss,
        eventLoopDelayP99Ms: toolLag ? Math.round(toolLag.p99 * 100) / 100 : null,
        eventLoopDelayMaxMs: toolLag ? Math.round(toolLag.max * 100) / 100 : null,
      },
      cost,
      warnings,
      latencyHistograms: {
        actionToOwnView: rec.own.serialized(),
        actionToAllViews: rec.all.serialized(),
        connect: rec.connect.serialized(),
        join: rec.join.serialized(),
        deadlineLateness: rec.lateness.serialized(),
      },
      clock: { t0EpochMs },
    };
    const dir = resolve(config.out ?? defaultOutDir(startedAt));
    const files = writeReports(dir, report);
    return { report, dir, files };
  } finally {
    clearInterval(ticker);
    if (sampling) clearInterval(sampling);
    lagSecond.disable();
    lagRun.disable();
    ctx.stopping = true;
    ctx.acting = false;
    for (const table of tables) table.close();
    await meter.close();
  }
}

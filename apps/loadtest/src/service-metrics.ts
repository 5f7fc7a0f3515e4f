import type { MetricsTarget } from './args';

/** One Prometheus sample line: name{labels} value. */
export interface PromSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Parses the Prometheus text format (what prom-client serves): metric name → its samples. */
export function parsePrometheus(text: string): Map<string, PromSample[]> {
  const out = new Map<string, PromSample[]>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    if (match[3]) {
      for (const l of match[3].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
        labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const value = match[4] === '+Inf' ? Infinity : match[4] === '-Inf' ? -Infinity : Number(match[4]);
    if (Number.isNaN(value)) continue;
    const list = out.get(match[1]!) ?? [];
    list.push({ labels, value });
    out.set(match[1]!, list);
  }
  return out;
}

const sumOf = (samples: PromSample[] | undefined): number | null =>
  samples === undefined || samples.length === 0 ? null : samples.reduce((s, x) => s + x.value, 0);

/** Cumulative `le` buckets of a histogram, summed over its other labels. */
function bucketsOf(samples: PromSample[] | undefined): Map<number, number> | null {
  if (samples === undefined) return null;
  const out = new Map<number, number>();
  for (const s of samples) {
    const le = s.labels['le'];
    if (le === undefined) continue;
    const bound = le === '+Inf' ? Infinity : Number(le);
    out.set(bound, (out.get(bound) ?? 0) + s.value);
  }
  return out.size > 0 ? out : null;
}

/** The p-th percentile's upper bucket bound from cumulative bucket counts (a delta between scrapes). */
export function histogramPercentile(cumulative: Map<number, number>, p: number): number | null {
  const bounds = [...cumulative.keys()].sort((a, b) => a - b);
  const total = cumulative.get(Infinity) ?? cumulative.get(bounds.at(-1)!) ?? 0;
  if (total <= 0) return null;
  const wanted = (p / 100) * total;
  for (const bound of bounds)
    if (cumulative.get(bound)! >= wanted) return Number.isFinite(bound) ? bound : null;
  return null;
}

export interface ServiceSample {
  /** Seconds since the start of the run. */
  readonly t: number;
  /** CPU used since the previous sample, in cores (1 = one core busy). */
  readonly cpu: number | null;
  /** process_cpu_seconds_total as scraped (the cost per action takes its difference over the window). */
  readonly cpuSeconds: number | null;
  readonly rssBytes: number | null;
  /** nodejs_heap_size_used_bytes (prom-client's default metrics), when the service has it. */
  readonly heapUsedBytes: number | null;
  /** Event-loop delay p99 (prom-client's nodejs_eventloop_lag_p99_seconds, or a histogram's), in ms. */
  readonly eventLoopP99Ms: number | null;
  /** dominoes_open_sockets: present on a gateway. */
  readonly openSockets: number | null;
  readonly error?: string;
}

export interface ServiceSeries {
  readonly name: string;
  readonly url: string;
  readonly samples: ServiceSample[];
}

interface State {
  readonly series: ServiceSeries;
  prevCpu: { t: number; seconds: number } | null;
  prevLoopBuckets: Map<number, number> | null;
}

/** Reads each service's /metrics every few seconds: CPU rate, RSS, heap used, event-loop delay, open sockets. */
export class MetricsSampler {
  private readonly states: State[];
  private running: Promise<void> | null = null;

  constructor(targets: readonly MetricsTarget[]) {
    this.states = targets.map((t) => ({
      series: { name: t.name, url: t.url, samples: [] },
      prevCpu: null,
      prevLoopBuckets: null,
    }));
  }

  get series(): ServiceSeries[] {
    return this.states.map((s) => s.series);
  }

  get enabled(): boolean {
    return this.states.length > 0;
  }

  /** Samples every service once (a sample still running is waited for, not doubled). */
  sample(t: number): Promise<void> {
    if (this.running) return this.running;
    this.running = Promise.all(this.states.map((s) => this.sampleOne(s, t))).then(() => {
      this.running = null;
    });
    return this.running;
  }

  /**
   * A sample taken now (a sample in flight, started earlier, is waited for first): the reading at
   * a window's edge. Returns each service's new sample, in the order of the targets.
   */
  async sampleNow(t: () => number): Promise<ServiceSample[]> {
    if (this.running) await this.running;
    await this.sample(t());
    return this.states.map((s) => s.series.samples.at(-1)!);
  }

  private async sampleOne(state: State, t: number): Promise<void> {
    let text: string;
    try {
      const response = await fetch(state.series.url, { signal: AbortSignal.timeout(3000) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      text = await response.text();
    } catch (error) {
      state.series.samples.push({
        t,
        cpu: null,
        cpuSeconds: null,
        rssBytes: null,
        heapUsedBytes: null,
        eventLoopP99Ms: null,
        openSockets: null,
        error: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    state.series.samples.push(this.read(state, t, parsePrometheus(text)));
  }

  /** One sample from a parsed scrape; exported for the tests through `readSample`. */
  read(state: State, t: number, metrics: Map<string, PromSample[]>): ServiceSample {
    const cpuSeconds = sumOf(metrics.get('process_cpu_seconds_total'));
    let cpu: number | null = null;
    if (cpuSeconds !== null) {
      if (state.prevCpu !== null && t > state.prevCpu.t)
        cpu = Math.max(0, (cpuSeconds - state.prevCpu.seconds) / (t - state.prevCpu.t));
      state.prevCpu = { t, seconds: cpuSeconds };
    }
    let loop = sumOf(metrics.get('nodejs_eventloop_lag_p99_seconds'));
    if (loop === null) {
      // Or a histogram of the delay: the p99 of what it counted since the previous scrape.
      const name = [...metrics.keys()].find((n) => /eventloop.*_bucket$/.test(n));
      const buckets = name ? bucketsOf(metrics.get(name)) : null;
      if (buckets !== null) {
        const delta = new Map<number, number>();
        for (const [bound, count] of buckets)
          delta.set(bound, count - (state.prevLoopBuckets?.get(bound) ?? 0));
        loop = histogramPercentile(state.prevLoopBuckets === null ? buckets : delta, 99);
        state.prevLoopBuckets = buckets;
      }
    }
    return {
      t,
      cpu: cpu === null ? null : Math.round(cpu * 1000) / 1000,
      cpuSeconds,
      rssBytes: sumOf(metrics.get('process_resident_memory_bytes')),
      heapUsedBytes: sumOf(metrics.get('nodejs_heap_size_used_bytes')),
      eventLoopP99Ms: loop === null ? null : Math.round(loop * 1e6) / 1000,
      openSockets: sumOf(metrics.get('dominoes_open_sockets')),
    };
  }
}

/** A sampler's reading of one scrape after another, without HTTP (tests). */
export function readSamples(scrapes: readonly { t: number; text: string }[]): ServiceSample[] {
  const sampler = new MetricsSampler([{ name: 'test', url: 'http://test/metrics' }]);
  const state = (sampler as unknown as { states: State[] }).states[0]!;
  return scrapes.map((s) => sampler.read(state, s.t, parsePrometheus(s.text)));
}

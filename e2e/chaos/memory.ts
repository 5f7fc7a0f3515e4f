import { readFileSync } from 'node:fs';

/** A process's resident memory in KiB (VmRSS in /proc/<pid>/status), or null when it is gone. */
export function rssKib(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

export interface RssSeries {
  readonly instance: string;
  readonly pid: number;
  /** [ms since epoch, KiB] */
  readonly points: [number, number][];
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export interface Growth {
  readonly instance: string;
  readonly pid: number;
  readonly samples: number;
  readonly firstMedianMib: number;
  readonly lastMedianMib: number;
  readonly maxMib: number;
  /** last third's median / first third's median */
  readonly ratio: number;
}

/**
 * Whether a process's memory kept growing: the median RSS of the last third of its samples against
 * the first third's, after `warmupMs` from its first sample (a process that just started loads code
 * and fills its pools first). Null when there are too few samples to say (fewer than 9).
 */
export function growth(series: RssSeries, warmupMs: number): Growth | null {
  const start = series.points[0]?.[0];
  if (start === undefined) return null;
  const kept = series.points.filter(([t]) => t >= start + warmupMs).map(([, kib]) => kib);
  if (kept.length < 9) return null;
  const third = Math.floor(kept.length / 3);
  const first = median(kept.slice(0, third));
  const last = median(kept.slice(kept.length - third));
  const mib = (kib: number) => Math.round((kib / 1024) * 10) / 10;
  return {
    instance: series.instance,
    pid: series.pid,
    samples: kept.length,
    firstMedianMib: mib(first),
    lastMedianMib: mib(last),
    maxMib: mib(Math.max(...kept)),
    ratio: Math.round((last / first) * 1000) / 1000,
  };
}

/** Samples the RSS of every running instance every `everyMs`; a restarted instance starts a new series. */
export class RssSampler {
  private readonly series = new Map<string, RssSeries>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly pids: () => { instance: string; pid: number }[]) {}

  start(everyMs: number): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  stop(): RssSeries[] {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return [...this.series.values()];
  }

  private sample(): void {
    const now = Date.now();
    for (const { instance, pid } of this.pids()) {
      const kib = rssKib(pid);
      if (kib === null) continue;
      const key = `${instance}@${pid}`;
      let series = this.series.get(key);
      if (!series) this.series.set(key, (series = { instance, pid, points: [] }));
      series.points.push([now, kib]);
    }
  }
}

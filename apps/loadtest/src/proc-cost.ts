/**
 * CPU time of local processes by group, from /proc (Linux), read at the window's start and end:
 * `postgres` (every process whose command name is postgres), `redis-server`, each service (node
 * processes running apps/<service>/dist/main.js, replicas summed) and the tool itself.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { perAction, round } from './cost-math';

/** The fields of /proc/<pid>/stat this tool uses (proc(5)). Times are in clock ticks. */
export interface ProcStat {
  readonly pid: number;
  /** The command name: up to 15 bytes, may hold spaces and parentheses. */
  readonly comm: string;
  readonly state: string;
  readonly ppid: number;
  readonly utime: number;
  readonly stime: number;
  /** Time of waited-for children (a postmaster's exited backends, a Redis fork for BGSAVE). */
  readonly cutime: number;
  readonly cstime: number;
  /** Since boot, in clock ticks: with the pid, tells a process from a later one with the same pid. */
  readonly starttime: number;
}

/**
 * Parses /proc/<pid>/stat. The command name sits between the first `(` and the LAST `)`: it may
 * itself hold spaces and parentheses, so the fields are counted from that last `)`.
 */
export function parseProcStat(text: string): ProcStat {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc/<pid>/stat line: ${text.slice(0, 80)}`);
  const pid = Number(text.slice(0, open).trim());
  const comm = text.slice(open + 1, close);
  // After ")": field 3 (state) is rest[0], so field n is rest[n - 3].
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const at = (n: number): number => {
    const value = Number(rest[n - 3]);
    if (rest[n - 3] === undefined || !Number.isFinite(value))
      throw new Error(`/proc/${pid}/stat: field ${n} is not a number`);
    return value;
  };
  return {
    pid,
    comm,
    state: rest[0] ?? '?',
    ppid: at(4),
    utime: at(14),
    stime: at(15),
    cutime: at(16),
    cstime: at(17),
    starttime: at(22),
  };
}

export const SERVICE_NAMES = ['gateway', 'table-service', 'timer-service'] as const;

/** The group a process belongs to, or null. `argv`: /proc/<pid>/cmdline split at NUL (read for node only). */
export function classifyProcess(comm: string, argv: () => readonly string[]): string | null {
  if (comm === 'postgres') return 'postgres';
  if (comm === 'redis-server') return 'redis-server';
  if (!/^node/.test(comm)) return null;
  const cmdline = argv().join(' ');
  for (const name of SERVICE_NAMES) if (cmdline.includes(`apps/${name}/dist/main.js`)) return name;
  return null;
}

export interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly starttime: number;
  readonly group: string;
  /** utime + stime + cutime + cstime, clock ticks. */
  readonly ticks: number;
}

export interface ProcSnapshot {
  /** performance.now() when the reading ended. */
  readonly atMs: number;
  readonly clockTicksPerSecond: number;
  /** By `pid:starttime`. */
  readonly processes: ReadonlyMap<string, ProcEntry>;
  /** process.cpuUsage() of this tool (user + system), µs. */
  readonly toolCpuUs: number;
}

export const procKey = (pid: number, starttime: number): string => `${pid}:${starttime}`;

/** CLK_TCK from `getconf CLK_TCK` (100 on nearly every Linux), 100 when that fails. */
export function clockTicksPerSecond(): number {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 2000 }).trim());
    return Number.isInteger(value) && value > 0 ? value : 100;
  } catch {
    return 100;
  }
}

export type Classifier = (comm: string, argv: () => readonly string[]) => string | null;

/** Reads every process's stat; keeps those of a group. Processes that vanish meanwhile are skipped. */
export function readProcSnapshot(
  clockTicks: number,
  classify: Classifier = classifyProcess,
  procDir = '/proc',
): ProcSnapshot {
  const processes = new Map<string, ProcEntry>();
  for (const name of readdirSync(procDir)) {
    if (!/^\d+$/.test(name)) continue;
    let stat: ProcStat;
    try {
      stat = parseProcStat(readFileSync(`${procDir}/${name}/stat`, 'utf8'));
    } catch {
      continue; // gone, or not readable
    }
    const argv = () => {
      try {
        return readFileSync(`${procDir}/${name}/cmdline`, 'utf8').split('\0');
      } catch {
        return [];
      }
    };
    const group = classify(stat.comm, argv);
    if (group === null) continue;
    processes.set(procKey(stat.pid, stat.starttime), {
      pid: stat.pid,
      ppid: stat.ppid,
      starttime: stat.starttime,
      group,
      ticks: stat.utime + stat.stime + stat.cutime + stat.cstime,
    });
  }
  const tool = process.cpuUsage();
  return {
    atMs: performance.now(),
    clockTicksPerSecond: clockTicks,
    processes,
    toolCpuUs: tool.user + tool.system,
  };
}

export interface GroupTicks {
  readonly ticks: number;
  readonly processesAtStart: number;
  readonly processesAtEnd: number;
  /** Processes of the group that started during the window (all their time counts). */
  readonly started: number;
  /** Processes of the group that ended during the window. */
  readonly exited: number;
}

/**
 * CPU ticks each group used between two snapshots. A process present at both counts its
 * difference; one that started in between counts all its time. One that exited in between took
 * its time with it, unless its parent, still there, reaped it: then its whole time moved into the
 * parent's cutime/cstime (a postmaster's backends), so what it had at the start is taken off there.
 */
export function groupTicks(a: ProcSnapshot, b: ProcSnapshot): Map<string, GroupTicks> {
  const out = new Map<
    string,
    { ticks: number; atStart: number; atEnd: number; started: number; exited: number }
  >();
  const of = (group: string) => {
    let g = out.get(group);
    if (g === undefined) {
      g = { ticks: 0, atStart: 0, atEnd: 0, started: 0, exited: 0 };
      out.set(group, g);
    }
    return g;
  };
  const alivePids = new Map<number, ProcEntry>();
  for (const p of b.processes.values()) alivePids.set(p.pid, p);
  for (const [key, p] of b.processes) {
    const g = of(p.group);
    g.atEnd++;
    const before = a.processes.get(key);
    if (before === undefined) g.started++;
    g.ticks += p.ticks - (before?.ticks ?? 0);
  }
  for (const [key, p] of a.processes) {
    const g = of(p.group);
    g.atStart++;
    if (b.processes.has(key)) continue;
    g.exited++;
    const parent = alivePids.get(p.ppid);
    // Reaped by a parent of a group (measured at both ends): its start time is in the parent's difference.
    if (parent !== undefined && a.processes.has(procKey(parent.pid, parent.starttime)))
      out.get(parent.group)!.ticks -= p.ticks;
  }
  return new Map(
    [...out].map(([group, g]) => [
      group,
      {
        ticks: Math.max(0, g.ticks),
        processesAtStart: g.atStart,
        processesAtEnd: g.atEnd,
        started: g.started,
        exited: g.exited,
      },
    ]),
  );
}

export interface ProcessGroupCost {
  readonly group: string;
  readonly cpuMs: number;
  readonly cpuMsPerAction: number | null;
  /** CPU time over the time between the readings: 1 = one core busy. */
  readonly cores: number;
  readonly processesAtStart: number;
  readonly processesAtEnd: number;
  readonly started: number;
  readonly exited: number;
}

export interface ProcessesCost {
  readonly seconds: number;
  readonly clockTicksPerSecond: number;
  /** postgres, redis-server, the services, loadtest (this tool: process.cpuUsage()). */
  readonly groups: ProcessGroupCost[];
  readonly note: string;
}

export const PROCESSES_NOTE =
  'CPU time (user + system, children reaped by a process included) from /proc/<pid>/stat on this machine, ' +
  'at clock-tick resolution. Every process of a group counts: other Postgres or Redis users, and other ' +
  'systems whose services run from the same dist/main.js, are included; see the process counts.';

/** The groups in report order: the stores, the services, then the tool. */
const ORDER = ['postgres', 'redis-server', ...SERVICE_NAMES, 'loadtest'];

export function processesCost(a: ProcSnapshot, b: ProcSnapshot, actions: number): ProcessesCost {
  const seconds = Math.max(0, (b.atMs - a.atMs) / 1000);
  const ticks = groupTicks(a, b);
  const groups: ProcessGroupCost[] = [];
  const add = (
    group: string,
    cpuMs: number,
    g: Omit<ProcessGroupCost, 'group' | 'cpuMs' | 'cpuMsPerAction' | 'cores'>,
  ) =>
    groups.push({
      group,
      cpuMs: round(cpuMs, 1),
      cpuMsPerAction: perAction(cpuMs, actions, 3),
      cores: seconds > 0 ? round(cpuMs / 1000 / seconds, 3) : 0,
      ...g,
    });
  for (const name of ORDER.filter((n) => n !== 'loadtest')) {
    const g = ticks.get(name);
    add(name, g === undefined ? 0 : (g.ticks * 1000) / b.clockTicksPerSecond, {
      processesAtStart: g?.processesAtStart ?? 0,
      processesAtEnd: g?.processesAtEnd ?? 0,
      started: g?.started ?? 0,
      exited: g?.exited ?? 0,
    });
  }
  // A custom classifier's other groups, after the known ones.
  for (const [name, g] of [...ticks]
    .filter(([n]) => !ORDER.includes(n))
    .sort((x, y) => x[0].localeCompare(y[0])))
    add(name, (g.ticks * 1000) / b.clockTicksPerSecond, {
      processesAtStart: g.processesAtStart,
      processesAtEnd: g.processesAtEnd,
      started: g.started,
      exited: g.exited,
    });
  add('loadtest', Math.max(0, (b.toolCpuUs - a.toolCpuUs) / 1000), {
    processesAtStart: 1,
    processesAtEnd: 1,
    started: 0,
    exited: 0,
  });
  return {
    seconds: round(seconds, 3),
    clockTicksPerSecond: b.clockTicksPerSecond,
    groups,
    note: PROCESSES_NOTE,
  };
}

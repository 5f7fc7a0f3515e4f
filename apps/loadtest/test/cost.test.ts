import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCost, costDenominator, servicesCost, type CostParts } from '../src/cost';
import {
  postgresCost,
  sumPostgresCosts,
  type PgSnapshot,
  type PostgresDatabaseCost,
} from '../src/postgres-cost';
import {
  classifyProcess,
  groupTicks,
  parseProcStat,
  processesCost,
  procKey,
  readProcSnapshot,
  type ProcEntry,
  type ProcSnapshot,
} from '../src/proc-cost';
import {
  parseCommandStat,
  parseInfo,
  redisCost,
  redisSnapshotFromInfo,
  type RedisSnapshot,
} from '../src/redis-cost';
import type { ServiceSample } from '../src/service-metrics';

/* ------------------------------------------------------------------ Redis */

/** INFO as Redis 7 sends it: CRLF line ends, section headers, other sections in between. */
const info = (o: {
  xadd: number;
  evalsha: number;
  info: number;
  total: number;
  inB: number;
  outB: number;
  cpu: [number, number];
}) =>
  [
    '# Server',
    'redis_version:7.0.15',
    '',
    '# Stats',
    `total_commands_processed:${o.total}`,
    `total_net_input_bytes:${o.inB}`,
    `total_net_output_bytes:${o.outB}`,
    'instantaneous_ops_per_sec:12',
    '',
    '# CPU',
    `used_cpu_sys:${o.cpu[0]}`,
    `used_cpu_user:${o.cpu[1]}`,
    'used_cpu_sys_children:0.000000',
    '',
    '# Commandstats',
    `cmdstat_xadd:calls=${o.xadd},usec=${o.xadd * 10},usec_per_call=10.00,rejected_calls=0,failed_calls=0`,
    `cmdstat_evalsha:calls=${o.evalsha},usec=${o.evalsha * 40},usec_per_call=40.00,rejected_calls=0,failed_calls=0`,
    `cmdstat_info:calls=${o.info},usec=${o.info * 50},usec_per_call=50.00,rejected_calls=0,failed_calls=0`,
    'cmdstat_client|setname:calls=2,usec=3,usec_per_call=1.50,rejected_calls=0,failed_calls=0',
    '',
    '# Keyspace',
    'db0:keys=10,expires=0,avg_ttl=0',
  ].join('\r\n');

describe('Redis INFO', () => {
  it('parses fields across sections, with CRLF line ends, skipping headers and blank lines', () => {
    const fields = parseInfo(
      '# Server\r\nredis_version:7.0.15\r\n\r\n# Keyspace\r\ndb0:keys=10,expires=0\r\n',
    );
    expect([...fields]).toEqual([
      ['redis_version', '7.0.15'],
      ['db0', 'keys=10,expires=0'],
    ]);
  });

  it('reads calls and usec from a commandstats line, and refuses one without calls', () => {
    expect(parseCommandStat('calls=12,usec=34,usec_per_call=2.83,rejected_calls=0,failed_calls=0')).toEqual({
      calls: 12,
      usec: 34,
    });
    expect(parseCommandStat('usec=34')).toBeNull();
  });

  it('makes a snapshot: commands by name (subcommands too), totals, bytes, server CPU = sys + user', () => {
    const snap = redisSnapshotFromInfo(
      info({ xadd: 5, evalsha: 2, info: 9, total: 100, inB: 1000, outB: 5000, cpu: [1.25, 2.5] }),
      7,
    );
    expect(snap).toEqual({
      atMs: 7,
      commands: {
        xadd: { calls: 5, usec: 50 },
        evalsha: { calls: 2, usec: 80 },
        info: { calls: 9, usec: 450 },
        'client|setname': { calls: 2, usec: 3 },
      },
      totalCommandsProcessed: 100,
      netInputBytes: 1000,
      netOutputBytes: 5000,
      cpuSeconds: 3.75,
    });
    expect(() => redisSnapshotFromInfo('# Stats\r\ntotal_commands_processed:1\r\n', 0)).toThrow(
      'total_net_input_bytes',
    );
  });
});

describe('Redis cost over the window', () => {
  const a = redisSnapshotFromInfo(
    info({ xadd: 100, evalsha: 50, info: 10, total: 1000, inB: 10_000, outB: 50_000, cpu: [1, 2] }),
    1000,
  );
  const b: RedisSnapshot = {
    ...redisSnapshotFromInfo(
      info({ xadd: 300, evalsha: 90, info: 11, total: 1241, inB: 30_000, outB: 90_000, cpu: [1.1, 2.3] }),
      11_000,
    ),
  };
  // A command first seen at the end (not in the start's commandstats) counts from zero.
  const withNew: RedisSnapshot = { ...b, commands: { ...b.commands, publish: { calls: 20, usec: 40 } } };

  it('takes differences, leaves out its own INFO, and divides by the actions', () => {
    const { cost, warnings } = redisCost(a, withNew, 40, 'redis://x');
    expect(warnings).toEqual([]);
    expect(cost).toMatchObject({
      url: 'redis://x',
      seconds: 10,
      commands: 200 + 40 + 20,
      totalCommandsProcessed: 240,
      netInputBytes: 20_000,
      netOutputBytes: 40_000,
      cpuMs: 400,
      cores: 0.04,
      perAction: {
        commands: 6.5,
        totalCommandsProcessed: 6,
        netInputBytes: 500,
        netOutputBytes: 1000,
        cpuMs: 10,
      },
    });
    expect(cost.topCommands).toEqual([
      { command: 'xadd', calls: 200, perAction: 5, usecPerCall: 10 },
      { command: 'evalsha', calls: 40, perAction: 1, usecPerCall: 40 },
      { command: 'publish', calls: 20, perAction: 0.5, usecPerCall: 2 },
    ]);
  });

  it('has totals but nothing per action when there is no action', () => {
    const { cost } = redisCost(a, b, 0, 'redis://x');
    expect(cost.perAction).toBeNull();
    expect(cost.topCommands[0]).toMatchObject({ command: 'xadd', calls: 200, perAction: null });
  });

  it('warns when the counters went down (a restart or CONFIG RESETSTAT)', () => {
    const { warnings } = redisCost(b, a, 10, 'redis://x');
    expect(warnings[0]).toMatch(/went down/);
  });
});

/* ---------------------------------------------------------------- Postgres */

const pgSnap = (o: Partial<PgSnapshot> = {}): PgSnapshot => ({
  atMs: 0,
  database: 'dominoes',
  xactCommit: 1000,
  xactRollback: 3,
  tupInserted: 500,
  tupUpdated: 200,
  tupDeleted: 10,
  blksHit: 10_000,
  blksRead: 100,
  wal: { records: 5000, fpi: 40, bytes: 1_000_000 },
  walLsn: 50_000_000,
  ...o,
});

describe('Postgres cost over the window', () => {
  it('commits, rows written (inserted + updated + deleted), blocks and WAL per action', () => {
    const { cost, warnings } = postgresCost(
      pgSnap(),
      pgSnap({
        atMs: 20_000,
        xactCommit: 1200,
        tupInserted: 600,
        tupUpdated: 300,
        tupDeleted: 20,
        blksHit: 14_000,
        blksRead: 100,
        wal: { records: 5400, fpi: 42, bytes: 1_080_000 },
        walLsn: 50_081_000,
      }),
      100,
    );
    expect(warnings).toEqual([]);
    expect(cost).toMatchObject({
      database: 'dominoes',
      seconds: 20,
      commits: 200,
      rollbacks: 0,
      rowsInserted: 100,
      rowsUpdated: 100,
      rowsDeleted: 10,
      rowsWritten: 210,
      blocksHit: 4000,
      wal: { records: 400, fpi: 2, bytes: 80_000 },
      walLsnBytes: 81_000,
      perAction: {
        commits: 2,
        rowsWritten: 2.1,
        rowsInserted: 1,
        rowsUpdated: 1,
        rowsDeleted: 0.1,
        blocksHit: 40,
        blocksRead: 0,
        walRecords: 4,
        walBytes: 800,
        walLsnBytes: 810,
      },
    });
    expect(cost.note).toMatch(/Whole-database counters .*"dominoes"/);
  });

  it('without pg_stat_wal, takes the WAL bytes from the WAL position', () => {
    const { cost } = postgresCost(
      pgSnap({ wal: null }),
      pgSnap({ wal: null, tupInserted: 510, walLsn: 50_010_000 }),
      10,
    );
    expect(cost.wal).toBeNull();
    expect(cost.perAction).toMatchObject({ walRecords: null, walBytes: 1000, walLsnBytes: 1000 });
  });

  it('warns when actions wrote no row in that database (the wrong --database-url?)', () => {
    const { cost, warnings } = postgresCost(pgSnap(), pgSnap({ xactCommit: 1001 }), 50);
    expect(cost.rowsWritten).toBe(0);
    expect(warnings[0]).toMatch(/no row was written in "dominoes"/);
    expect(postgresCost(pgSnap(), pgSnap(), 0).cost.perAction).toBeNull();
  });
});

describe('several Postgres databases over the window', () => {
  const db = (name: string, server: string, rows: number, walBytes: number): PostgresDatabaseCost => ({
    ...postgresCost(
      pgSnap({ database: name }),
      pgSnap({
        atMs: 10_000,
        database: name,
        xactCommit: 1000 + rows,
        tupInserted: 500 + rows,
        wal: { records: 5000 + walBytes / 100, fpi: 40, bytes: 1_000_000 + walBytes },
        walLsn: 50_000_000 + walBytes,
      }),
      10,
    ).cost,
    url: `postgresql://${server}/${name}`,
    server,
  });

  it('sums rows and commits over the databases, and the WAL once per server', () => {
    const sum = sumPostgresCosts(
      [db('a', 's1', 30, 5000), db('b', 's1', 10, 5100), db('c', 's2', 20, 800)],
      10,
    );
    expect(sum).toMatchObject({
      database: 'a, b, c',
      seconds: 10,
      commits: 60,
      rowsInserted: 60,
      rowsWritten: 60,
      // s1 once (its first database's reading) + s2.
      wal: { records: 58, fpi: 0, bytes: 5800 },
      walLsnBytes: 5800,
      perAction: { commits: 6, rowsWritten: 6, walBytes: 580 },
    });
  });
});

/* ------------------------------------------------------------------- /proc */

/** A stat line as the kernel writes it (52 fields); only a few of them matter here. */
const statLine = (
  pid: number,
  comm: string,
  o: { ppid?: number; utime?: number; stime?: number; cutime?: number; cstime?: number; start?: number } = {},
) => {
  const f = Array.from({ length: 52 }, () => '0');
  f[0] = String(pid);
  f[1] = `(${comm})`;
  f[2] = 'S';
  f[3] = String(o.ppid ?? 1);
  f[13] = String(o.utime ?? 0);
  f[14] = String(o.stime ?? 0);
  f[15] = String(o.cutime ?? 0);
  f[16] = String(o.cstime ?? 0);
  f[21] = String(o.start ?? 1000);
  return f.join(' ') + '\n';
};

describe('/proc/<pid>/stat', () => {
  it('reads a command name with spaces and parentheses, and the fields after it', () => {
    const stat = parseProcStat(
      statLine(4242, 'my (odd) ) name', {
        ppid: 7,
        utime: 150,
        stime: 30,
        cutime: 5,
        cstime: 2,
        start: 98765,
      }),
    );
    expect(stat).toEqual({
      pid: 4242,
      comm: 'my (odd) ) name',
      state: 'S',
      ppid: 7,
      utime: 150,
      stime: 30,
      cutime: 5,
      cstime: 2,
      starttime: 98765,
    });
  });

  it('parses a real line from the kernel', () => {
    const real =
      '2203 (redis-server) S 1 2203 2203 0 -1 4194624 2885 0 0 0 315 118 0 0 20 0 5 0 3534 75915264 4122 18446744073709551615 94298911911936 94298913054397 140731684501984 0 0 0 0 12289 17642 0 0 0 17 1 0 0 0 0 0 94298913537840 94298913911656 94299114729472 140731684510391 140731684510531 140731684510531 140731684511714 0';
    expect(parseProcStat(real)).toMatchObject({
      pid: 2203,
      comm: 'redis-server',
      ppid: 1,
      utime: 315,
      stime: 118,
      starttime: 3534,
    });
  });

  it('refuses a line that is cut short or has no command name', () => {
    expect(() => parseProcStat('12 (node) S 1 2 3')).toThrow('field 14');
    expect(() => parseProcStat('garbage')).toThrow('not a /proc');
  });

  it('groups postgres, redis-server and node services by their script; not shells or other node', () => {
    const argv =
      (...a: string[]) =>
      () =>
        a;
    expect(classifyProcess('postgres', argv())).toBe('postgres');
    expect(classifyProcess('redis-server', argv())).toBe('redis-server');
    expect(classifyProcess('node', argv('/usr/bin/node', '/work/main/apps/gateway/dist/main.js'))).toBe(
      'gateway',
    );
    expect(classifyProcess('node', argv('node', 'apps/table-service/dist/main.js'))).toBe('table-service');
    expect(classifyProcess('node', argv('node', 'apps/timer-service/dist/main.js', '--x'))).toBe(
      'timer-service',
    );
    expect(classifyProcess('sh', argv('sh', '-c', 'node apps/gateway/dist/main.js'))).toBeNull();
    expect(classifyProcess('node', argv('node', 'apps/loadtest/dist/main.js'))).toBeNull();
    expect(classifyProcess('psql', argv('psql'))).toBeNull();
  });

  it('reads a /proc tree: keeps the grouped processes, skips one that vanished or is unreadable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-proc-'));
    try {
      const proc = (pid: number, stat: string | null, cmdline?: string) => {
        mkdirSync(join(dir, String(pid)));
        if (stat !== null) writeFileSync(join(dir, String(pid), 'stat'), stat);
        if (cmdline !== undefined) writeFileSync(join(dir, String(pid), 'cmdline'), cmdline);
      };
      proc(10, statLine(10, 'postgres', { utime: 100, stime: 20, cutime: 30, cstime: 5, start: 50 }));
      proc(11, statLine(11, 'node', { utime: 7, start: 60 }), 'node\0/srv/apps/gateway/dist/main.js\0');
      proc(12, statLine(12, 'bash', { utime: 999 }));
      proc(13, null); // gone between readdir and read
      mkdirSync(join(dir, 'self'));
      const snap = readProcSnapshot(100, undefined, dir);
      expect([...snap.processes.values()].sort((x, y) => x.pid - y.pid)).toEqual([
        { pid: 10, ppid: 1, starttime: 50, group: 'postgres', ticks: 155 },
        { pid: 11, ppid: 1, starttime: 60, group: 'gateway', ticks: 7 },
      ]);
      expect(snap.clockTicksPerSecond).toBe(100);
      expect(snap.toolCpuUs).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const entry = (
  pid: number,
  group: string,
  ticks: number,
  o: { ppid?: number; start?: number } = {},
): [string, ProcEntry] => [
  procKey(pid, o.start ?? 1),
  { pid, ppid: o.ppid ?? 1, starttime: o.start ?? 1, group, ticks },
];
const snapshot = (atMs: number, entries: [string, ProcEntry][], toolCpuUs = 0, clk = 100): ProcSnapshot => ({
  atMs,
  clockTicksPerSecond: clk,
  processes: new Map(entries),
  toolCpuUs,
});

describe('CPU by group between two /proc readings', () => {
  it('a process at both ends counts its difference; a new one all its time', () => {
    const t = groupTicks(
      snapshot(0, [entry(1, 'gateway', 100), entry(2, 'gateway', 50)]),
      snapshot(1, [entry(1, 'gateway', 130), entry(2, 'gateway', 60), entry(3, 'gateway', 25, { start: 9 })]),
    );
    expect(t.get('gateway')).toEqual({
      ticks: 30 + 10 + 25,
      processesAtStart: 2,
      processesAtEnd: 3,
      started: 1,
      exited: 0,
    });
  });

  it('a backend that exited moved its whole time into the postmaster: only its window time counts', () => {
    // Backend 11 had 40 ticks at the start, used 15 more, exited; the postmaster reaped it (cutime +55).
    const t = groupTicks(
      snapshot(0, [entry(10, 'postgres', 200), entry(11, 'postgres', 40, { ppid: 10 })]),
      snapshot(1, [entry(10, 'postgres', 200 + 55 + 3)]),
    );
    expect(t.get('postgres')).toEqual({
      ticks: 15 + 3,
      processesAtStart: 2,
      processesAtEnd: 1,
      started: 0,
      exited: 1,
    });
  });

  it('a process whose parent is not measured takes its time with it (nothing negative)', () => {
    const t = groupTicks(
      snapshot(0, [
        entry(20, 'table-service', 500, { ppid: 999 }),
        entry(21, 'table-service', 10, { ppid: 999 }),
      ]),
      snapshot(1, [entry(21, 'table-service', 30, { ppid: 999 })]),
    );
    expect(t.get('table-service')).toMatchObject({ ticks: 20, exited: 1 });
  });

  it('a reused pid is another process: it counts from zero, the old one as exited', () => {
    const t = groupTicks(
      snapshot(0, [entry(30, 'redis-server', 400, { start: 100 })]),
      snapshot(1, [entry(30, 'redis-server', 12, { start: 900 })]),
    );
    expect(t.get('redis-server')).toEqual({
      ticks: 12,
      processesAtStart: 1,
      processesAtEnd: 1,
      started: 1,
      exited: 1,
    });
  });

  it('turns ticks into ms (CLK_TCK), cores over the readings and ms per action; adds the tool', () => {
    const cost = processesCost(
      snapshot(0, [entry(1, 'postgres', 100), entry(2, 'gateway', 0)], 1_000_000, 250),
      snapshot(10_000, [entry(1, 'postgres', 600), entry(2, 'gateway', 1000)], 3_000_000, 250),
      400,
    );
    expect(cost.seconds).toBe(10);
    expect(cost.clockTicksPerSecond).toBe(250);
    const by = Object.fromEntries(cost.groups.map((g) => [g.group, g]));
    expect(Object.keys(by)).toEqual([
      'postgres',
      'redis-server',
      'gateway',
      'table-service',
      'timer-service',
      'loadtest',
    ]);
    expect(by['postgres']).toMatchObject({ cpuMs: 2000, cpuMsPerAction: 5, cores: 0.2, processesAtEnd: 1 });
    expect(by['gateway']).toMatchObject({ cpuMs: 4000, cpuMsPerAction: 10, cores: 0.4 });
    expect(by['redis-server']).toMatchObject({ cpuMs: 0, processesAtStart: 0, processesAtEnd: 0 });
    expect(by['loadtest']).toMatchObject({ cpuMs: 2000, cpuMsPerAction: 5, cores: 0.2 });
    expect(processesCost(snapshot(0, []), snapshot(1000, []), 0).groups[0]!.cpuMsPerAction).toBeNull();
  });
});

/* ----------------------------------------------------- /metrics and totals */

const sample = (t: number, cpuSeconds: number | null): ServiceSample => ({
  t,
  cpu: null,
  cpuSeconds,
  rssBytes: null,
  heapUsedBytes: null,
  eventLoopP99Ms: null,
  openSockets: null,
});

describe('services CPU from /metrics', () => {
  it('is the difference of process_cpu_seconds_total between the window-edge scrapes', () => {
    const { services, warnings } = servicesCost(
      [sample(10, 5), sample(10, null), sample(10, 9)],
      [sample(40, 8), sample(40, 3), sample(40, 2)],
      ['gateway', 'table-service', 'timer-service'],
      600,
    );
    expect(services[0]).toEqual({
      name: 'gateway',
      fromT: 10,
      toT: 40,
      cpuMs: 3000,
      cpuMsPerAction: 5,
      cores: 0.1,
    });
    expect(services[1]).toMatchObject({ name: 'table-service', cpuMs: null, cpuMsPerAction: null });
    expect(services[2]).toMatchObject({ name: 'timer-service', cpuMs: null });
    expect(warnings).toEqual([expect.stringMatching(/^timer-service: .*went down/)]);
  });
});

describe('the cost section', () => {
  it('divides by acknowledged moves in play, deadline moves in idle, nothing with sockets only', () => {
    const window = { actions: 120, deadlineMoves: 7 };
    expect(costDenominator({ mode: 'play', socketsOnly: false }, window)).toEqual({
      actions: 120,
      denominator: 'acknowledged moves',
    });
    expect(costDenominator({ mode: 'idle', socketsOnly: false }, window)).toEqual({
      actions: 7,
      denominator: 'deadline moves',
    });
    expect(costDenominator({ mode: 'play', socketsOnly: true }, window)).toEqual({
      actions: 0,
      denominator: 'none',
    });
  });

  const parts = (o: Partial<CostParts> = {}): CostParts => ({
    actions: 100,
    denominator: 'acknowledged moves',
    windowSeconds: 10,
    alsoInWindow: { acknowledgedMoves: 100, hostIntents: 1, deadlineMoves: 0 },
    toolCpuMs: 250,
    redis: null,
    postgres: null,
    processes: null,
    services: [],
    ...o,
  });

  it('CPU per action by group: /proc where it saw the processes, else /metrics, else Redis INFO; the tool always', () => {
    const processes = processesCost(
      snapshot(0, [entry(1, 'postgres', 0), entry(2, 'gateway', 0)]),
      snapshot(10_000, [entry(1, 'postgres', 50), entry(2, 'gateway', 200)]),
      100,
    );
    const { services } = servicesCost(
      [sample(0, 0), sample(0, 0)],
      [sample(10, 1.9), sample(10, 0.3)],
      ['gateway', 'timer-service'],
      100,
    );
    const { cost: redis } = redisCost(
      redisSnapshotFromInfo(
        info({ xadd: 0, evalsha: 0, info: 0, total: 0, inB: 0, outB: 0, cpu: [0, 0] }),
        0,
      ),
      redisSnapshotFromInfo(
        info({ xadd: 300, evalsha: 0, info: 1, total: 301, inB: 9000, outB: 4000, cpu: [0.1, 0.2] }),
        10_000,
      ),
      100,
      'redis://r',
    );
    const cost = buildCost(parts({ processes, services, redis }));
    // No redis-server process was seen here (Redis elsewhere): its INFO's CPU stands in.
    expect(cost.perAction.cpuMs).toEqual({
      postgres: 5,
      gateway: 20,
      'timer-service': 3,
      'redis-server': 3,
      loadtest: 2.5,
    });
    expect(cost.perAction.cpuSource).toEqual({
      postgres: '/proc',
      gateway: '/proc',
      'timer-service': '/metrics',
      'redis-server': 'redis INFO cpu',
      loadtest: 'process.cpuUsage',
    });
    expect(cost.perAction).toMatchObject({
      redisCommands: 3,
      redisNetInputBytes: 90,
      redisNetOutputBytes: 40,
      redisCpuMs: 3,
    });
    expect(cost.tool).toEqual({ cpuMs: 250, cores: 0.025 });

    const noProc = buildCost(parts({ services, redis }));
    expect(noProc.perAction.cpuMs).toEqual({
      gateway: 19,
      'timer-service': 3,
      'redis-server': 3,
      loadtest: 2.5,
    });
    expect(noProc.perAction.cpuSource['redis-server']).toBe('redis INFO cpu');
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { TestPostgresServer } from '../src/postgres-server';
import { TestRedisServer } from '../src/redis-server';
import { readLog } from '../src/stored-log';
import { ARTIFACTS, TestSystem, instanceName, type ServiceName } from '../src/system';
import { seatTables } from '../src/tables';
import { checkTable, longestPause, movedAfter, type TableCheck } from './checks';
import { ChaosMonkey, FAULT_KINDS } from './faults';
import { growth, RssSampler, type Growth } from './memory';
import { ChaosTable } from './play';

/**
 * Issue 11 §3. `npm run test:chaos`: CHAOS_MINUTES (default 10) of faults, CHAOS_TABLES (default 30)
 * tables. Inside `npm test` (CHAOS_MINUTES unset): 60 s and 12 tables, about 2 minutes in all.
 */
const LONG = process.env['CHAOS_MINUTES'] !== undefined;
const CHAOS_MS = Math.round(Number(process.env['CHAOS_MINUTES'] ?? 1) * 60_000);
const TABLES = Number(process.env['CHAOS_TABLES'] ?? (LONG ? 30 : 12));
const SEED = Number(process.env['CHAOS_SEED'] ?? Date.now() % 1_000_000);
/** Every table must have moved again within this long after the last fault was over. */
const STUCK_BOUND_MS = 15_000;
/**
 * A service's RSS: the median of the last third of its samples may be at most this many times the
 * first third's (after a 20 s warm-up of each process). A leak of a few KiB per action (about 30 actions/s
 * here) grows a 100 MiB process by well over this in 10 minutes; the spread seen without a leak is below
 * (heap sizing after GCs, connection pools refilled after an outage): see docs/operations.md "Chaos test".
 */
const MEMORY_GROWTH_BOUND = 1.3;
const WARMUP_MS = 20_000;
const SAMPLE_EVERY_MS = 2000;

const REPLICAS: Record<ServiceName, number> = { gateway: 2, 'table-service': 3, 'timer-service': 2 };
const INSTANCES = (Object.keys(REPLICAS) as ServiceName[]).flatMap((s) =>
  Array.from({ length: REPLICAS[s] }, (_, i) => instanceName(s, i)),
);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`chaos: ${TABLES} tables on 2 gateways, 3 table-services, 2 timer-services, ${CHAOS_MS / 1000} s of faults`, () => {
  let postgres: TestPostgresServer | undefined;
  let redis: TestRedisServer | undefined;
  let system: TestSystem | undefined;
  let monkey: ChaosMonkey | undefined;
  let tables: ChaosTable[] = [];

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([
      TestPostgresServer.start('chaos'),
      TestRedisServer.start('chaos'),
    ]);
    // createTestStores makes the suite's database on DATABASE_URL's server: here, the private one.
    const saved = { DATABASE_URL: process.env['DATABASE_URL'], REDIS_URL: process.env['REDIS_URL'] };
    process.env['DATABASE_URL'] = postgres.url;
    process.env['REDIS_URL'] = redis.url;
    try {
      system = await TestSystem.start('chaos', {
        shards: 16,
        replicas: REPLICAS,
        // Short clocks, so the timers work through the faults too: a player who thinks past 5 s is
        // played by the table's deadline, and a break ends by itself after 3 s.
        turnMs: 5000,
        breakMs: 3000,
        env: { REDIS_URL: redis.url },
      });
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  }, 180_000);

  afterAll(async () => {
    for (const table of tables) {
      table.detach();
      for (const p of table.players) p.close();
    }
    await monkey?.mend();
    await system?.stop().catch((error: unknown) => console.error('stopping the system:', error));
    await postgres?.stop();
    await redis?.stop();
  }, 120_000);

  it(
    'every acknowledged action is stored once, no refused action is stored, no player is told INTERNAL, the log replays to every view the players were shown, every table moves again within 15 s of the last fault, and no service keeps growing in memory',
    async () => {
      const sys = system!;
      const seated = await seatTables(sys, TABLES, 2);
      tables = seated.map(
        (t, i) =>
          new ChaosTable(t.tableId, t.players, SEED + i, { thinkMs: 700, slowMs: 6000, slowShare: 0.03 }),
      );
      for (const table of tables) table.start();
      const load: number[] = [];
      const sampler = new RssSampler(() => {
        load.push(loadavg()[0]!);
        return INSTANCES.filter((i) => sys.isRunning(i)).map((instance) => ({
          instance,
          pid: sys.pidOf(instance),
        }));
      });
      sampler.start(SAMPLE_EVERY_MS);

      await sleep(5000);
      const chaosStart = Date.now();
      monkey = new ChaosMonkey(
        { system: sys, redis: redis!, postgres: postgres!, instances: INSTANCES },
        SEED,
      );
      const faults = await monkey.run(chaosStart + CHAOS_MS);
      const lastFaultEnded = monkey.lastFaultEndedAt;
      // The players play on after the last fault until every table has moved again, or past the bound.
      while (
        Date.now() < lastFaultEnded + STUCK_BOUND_MS + 1000 &&
        tables.some((t) => movedAfter(t.moves, lastFaultEnded) === Number.POSITIVE_INFINITY)
      )
        await sleep(200);
      const playEnded = Date.now();
      await Promise.all(tables.map((t) => t.stop()));
      const series = sampler.stop();
      for (const table of tables) await table.lastViews();

      // The stored log of each table against what its players sent and were shown.
      const checks: TableCheck[] = [];
      let actionRows = 0;
      const byOrigin: Record<string, number> = {};
      for (const table of tables) {
        const rows = await readLog(sys.stores.databaseUrl, table.tableId);
        for (const row of rows) {
          if (row.kind !== 'action') continue;
          actionRows++;
          const by = String((row.payload as { by?: unknown }).by);
          byOrigin[by] = (byOrigin[by] ?? 0) + 1;
        }
        checks.push(checkTable(table.tableId, rows, table.sent, table.shown));
      }
      const liveness = tables.map((t) => movedAfter(t.moves, lastFaultEnded));
      const pauses = tables.map((t) => longestPause(t.moves, chaosStart, lastFaultEnded));
      const memory = series.map((s) => growth(s, WARMUP_MS)).filter((g): g is Growth => g !== null);
      const codes: Record<string, number> = {};
      for (const table of tables)
        for (const s of table.sent) if (s.code) codes[s.code] = (codes[s.code] ?? 0) + 1;
      const sum = (f: (c: TableCheck) => number) => checks.reduce((n, c) => n + f(c), 0);
      const faultCounts = Object.fromEntries(
        FAULT_KINDS.map((k) => [k, faults.filter((f) => f.kind === k).length]),
      );
      const sortedLoad = [...load].sort((a, b) => a - b);
      const report = {
        seed: SEED,
        tables: TABLES,
        chaosSeconds: Math.round((lastFaultEnded - chaosStart) / 1000),
        playedSeconds: Math.round((playEnded - chaosStart) / 1000),
        faults: faultCounts,
        faultList: faults.map((f) => ({
          kind: f.kind,
          target: f.target,
          atS: Math.round(f.startedMs / 100) / 10,
          outageMs: f.outageMs,
          overMs: f.endedMs - f.startedMs,
          ...(f.error ? { error: f.error } : {}),
        })),
        intents: {
          sent: sum((c) => c.acked + c.refused + c.unknown.stored + c.unknown.notStored),
          acked: sum((c) => c.acked),
          refused: sum((c) => c.refused),
          unknownStored: sum((c) => c.unknown.stored),
          unknownNotStored: sum((c) => c.unknown.notStored),
          errorCodes: codes,
        },
        storedActions: { total: actionRows, byOrigin },
        viewsCompared: sum((c) => c.viewsCompared),
        lost: checks.flatMap((c) => c.lost.map((id) => `${c.tableId} ${id}`)),
        doubled: checks.flatMap((c) => c.doubled.map((id) => `${c.tableId} ${id}`)),
        refusedButStored: checks.flatMap((c) => c.refusedButStored.map((id) => `${c.tableId} ${id}`)),
        wrongViews: checks.flatMap((c) => c.wrongViews.map((w) => `${c.tableId} ${w}`)),
        movedAgainAfterLastFaultMs: { worst: Math.max(...liveness), bound: STUCK_BOUND_MS },
        longestPauseDuringChaosMs: Math.max(...pauses),
        memory: {
          bound: MEMORY_GROWTH_BOUND,
          worstRatio: Math.max(...memory.map((m) => m.ratio)),
          series: memory,
        },
        loadAverage1m: {
          min: sortedLoad[0],
          median: sortedLoad[Math.floor(sortedLoad.length / 2)],
          max: sortedLoad.at(-1),
        },
      };
      const dir = join(ARTIFACTS, 'chaos');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `report-${LONG ? 'long' : 'short'}.json`), JSON.stringify(report, null, 2));
      console.log(
        `chaos report (test-artifacts/chaos/report-${LONG ? 'long' : 'short'}.json):\n${JSON.stringify(report, null, 2)}`,
      );

      expect(faults.filter((f) => f.error)).toEqual([]);
      for (const instance of INSTANCES) expect(sys.isRunning(instance)).toBe(true);
      expect(report.intents.acked).toBeGreaterThan(0);
      expect(report.lost).toEqual([]);
      expect(report.doubled).toEqual([]);
      expect(report.refusedButStored).toEqual([]);
      expect(report.wrongViews).toEqual([]);
      // A store or Redis away is "try again" (UNAVAILABLE) or no answer yet, never "something went
      // wrong" (INTERNAL): that is kept for bugs.
      expect(report.intents.errorCodes['INTERNAL']).toBeUndefined();
      expect(report.movedAgainAfterLastFaultMs.worst).toBeLessThanOrEqual(STUCK_BOUND_MS);
      for (const m of memory)
        expect({ ...m, ratio: m.ratio <= MEMORY_GROWTH_BOUND ? 'ok' : m.ratio }).toMatchObject({
          ratio: 'ok',
        });
    },
    CHAOS_MS + 300_000,
  );
});

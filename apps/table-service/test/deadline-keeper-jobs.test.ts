import { recordingLogger } from '../../../libs/platform/src/test-logger';
import {
  createDeadlineQueue,
  createLogger,
  createPrisma,
  DEADLINE_LEAD_MS,
  DeadlineQueues,
  ShardDatabases,
  systemClock,
  type Clock,
  type DeadlineQueue,
  type Logger,
  type PrismaClient,
} from '@dominoes/platform';
import { shardOf, type DeadlineJob } from '@dominoes/protocol';
import { RULE_DURATIONS } from '@dominoes/rules';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { DeadlineKeeper } from '../src/deadlines/deadline-keeper';
import { TableEngine } from '../src/table/table-engine';
import type { Deadline, TableState } from '../src/table/table-state';
import { TableStore } from '../src/table/table-store';
import { envelopes } from './support/engine-harness';
import { InMemorySeatPublisher } from './support/in-memory-seat-publisher';
import { InMemoryTableStore } from './support/in-memory-table-store';

const SHARDS = 4;
const GRACE = 2000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A clock the test moves. */
function testClock(start: number): Clock & { at: number } {
  const clock = { at: start, now: () => clock.at };
  return clock;
}

/** Table ids of distinct shards (of SHARDS), in shard order. */
function idsOfShards(prefix: string): string[] {
  const ids: string[] = [];
  for (let n = 0; ids.filter(Boolean).length < SHARDS; n++) {
    const id = `${prefix}${String(n).padStart(6 - prefix.length, '0')}`;
    ids[shardOf(id, SHARDS)] ??= id;
  }
  return ids;
}

/**
 * The deadline keeper (deadline-keeper.ts) setting real BullMQ jobs on the real Redis: the job each
 * change asks for, the rebuild of a shard taken from Postgres (the real TableStore), and the overdue
 * safety net over an engine on its in-memory ports (the keeper reads only the engine's cache).
 */
describe('deadline keeper: the jobs it sets on real Redis', () => {
  let stores: TestStores;
  let prisma: PrismaClient;
  let queue: DeadlineQueue;

  beforeAll(async () => {
    stores = await createTestStores('keeper_jobs');
    prisma = createPrisma(stores.databaseUrl, 2);
    queue = createDeadlineQueue(stores.redisUrl, stores.redisPrefix);
  });
  afterAll(async () => {
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await prisma?.$disconnect();
    await stores?.dispose();
  });
  afterEach(async () => {
    await queue.obliterate({ force: true });
  });

  /** Every job in the queue, by table id. */
  const jobs = async () => {
    const all = await queue.getJobs(['delayed', 'wait', 'prioritized', 'active']);
    return new Map(all.map((job) => [job.data.tableId, { data: job.data, delay: job.opts.delay }]));
  };
  /** A keeper on the real queue; `jobsOn` replaces the queue (a Redis that refuses). */
  const keeperOf = (
    engine: TableEngine,
    options: {
      clock?: Clock;
      store?: TableStore;
      owns?: (tableId: string) => boolean;
      jobsOn?: DeadlineQueue;
      logger?: Logger;
    } = {},
  ) =>
    new DeadlineKeeper(
      new DeadlineQueues([options.jobsOn ?? queue], SHARDS),
      SHARDS,
      options.store ?? new TableStore(prisma),
      engine,
      options.clock ?? systemClock,
      options.logger ?? createLogger('keeper-jobs-test', 'silent'),
      GRACE,
      options.owns,
    );
  /** An engine on in-memory ports; `down` makes its store fail every write and read. */
  const memoryWorld = () => {
    const memory = new InMemoryTableStore();
    const world = { down: false, loads: [] as string[] };
    memory.beforeWrite = () => {
      if (world.down) throw new Error('store down');
    };
    const load = memory.load.bind(memory);
    memory.load = async (tableId) => {
      world.loads.push(tableId);
      if (world.down) throw new Error('store down');
      return load(tableId);
    };
    const engine = new TableEngine({
      store: memory,
      publisher: new InMemorySeatPublisher(),
      clock: systemClock,
      durations: RULE_DURATIONS,
      deadlines: { schedule: async () => undefined },
      logger: createLogger('keeper-jobs-test', 'silent'),
    });
    return { ...world, world, engine };
  };
  /** Opens a waiting table (its deadline: the waiting table's expiry) on `engine`. */
  const open = async (engine: TableEngine, tableId: string): Promise<Deadline> => {
    const send = envelopes(tableId, `${tableId}-`);
    await engine.handle(send(0, { kind: 'create', config: { variant: 'partnership' } }));
    const table = await engine.load(tableId);
    if (!table?.deadline) throw new Error('no deadline');
    return table.deadline;
  };
  /** Opens a table, then makes an intent on it fail while the store is down: the engine drops it. */
  const failedOn = async (w: ReturnType<typeof memoryWorld>, tableId: string): Promise<Deadline> => {
    const deadline = await open(w.engine, tableId);
    w.world.down = true;
    await expect(w.engine.handle(envelopes(tableId, `${tableId}-f-`)(1, { kind: 'join' }))).rejects.toThrow(
      'store down',
    );
    w.world.down = false;
    expect(w.engine.cachedTable(tableId)).toBeUndefined();
    return deadline;
  };

  describe('schedule: the job of a stored change', () => {
    it("sets the table's job with its key and due time, delayed by what is left of it on the keeper's clock", async () => {
      const clock = testClock(1_000_000);
      const keeper = keeperOf(memoryWorld().engine, { clock });
      await keeper.schedule('SCHED1', { kind: 'turn', at: 1_005_000, key: 'k-sched-1', seat: 2 });
      expect((await jobs()).get('SCHED1')).toEqual({
        data: { tableId: 'SCHED1', key: 'k-sched-1', dueAt: 1_005_000 },
        delay: 5000 - DEADLINE_LEAD_MS,
      });
    });

    it('carries the traceparent of the change that set it, when there is one', async () => {
      const keeper = keeperOf(memoryWorld().engine);
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const at = Date.now() + 60_000;
      await keeper.schedule('SCHED2', { kind: 'turn', at, key: 'k-sched-2', seat: 0 }, traceparent);
      expect((await jobs()).get('SCHED2')?.data).toEqual<DeadlineJob>({
        tableId: 'SCHED2',
        key: 'k-sched-2',
        dueAt: at,
        traceparent,
      });
    });
  });

  describe('shardAcquired: the deadlines of a shard taken, from Postgres', () => {
    /** The real store, counting the rebuild's queries; `failures` of them fail first (Postgres away). */
    class CountingStore extends TableStore {
      readonly reads: number[][] = [];
      failures = 0;
      override async openTableDeadlines(shards: readonly number[], total: number) {
        this.reads.push([...shards].sort());
        if (this.failures > 0) {
          this.failures--;
          throw new Error('Postgres away');
        }
        return super.openTableDeadlines(shards, total);
      }
    }
    let ids: string[];
    const deadlines = new Map<string, Deadline>();

    beforeAll(async () => {
      // One waiting table in each shard, stored in Postgres by an engine of its own (another replica).
      ids = idsOfShards('RB');
      const writer = new TableEngine({
        store: new TableStore(prisma),
        publisher: new InMemorySeatPublisher(),
        clock: systemClock,
        durations: RULE_DURATIONS,
        deadlines: { schedule: async () => undefined },
        logger: createLogger('keeper-jobs-test', 'silent'),
      });
      for (const id of ids) deadlines.set(id, await open(writer, id));
    });

    it('shards taken together are read with one query, and every open table of them gets its job; the log counts them', async () => {
      const store = new CountingStore(prisma);
      const { logger, lines } = recordingLogger();
      const keeper = keeperOf(memoryWorld().engine, { store, logger });
      keeper.shardAcquired(1);
      keeper.shardAcquired(3);
      keeper.shardAcquired(1);
      await sleep(500);
      keeper.stop();
      expect(store.reads).toEqual([[1, 3]]);
      const set = await jobs();
      expect([...set.keys()].sort()).toEqual([ids[1], ids[3]].sort());
      expect(set.get(ids[1]!)?.data).toEqual({
        tableId: ids[1],
        key: deadlines.get(ids[1]!)!.key,
        dueAt: deadlines.get(ids[1]!)!.at,
      });
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: 'deadlines rebuilt from Postgres', shards: [1, 3], deadlines: 2 }),
      );
    });

    it('a shard taken after a rebuild started is rebuilt by a query of its own', async () => {
      const store = new CountingStore(prisma);
      const keeper = keeperOf(memoryWorld().engine, { store });
      keeper.shardAcquired(0);
      await sleep(400);
      keeper.shardAcquired(2);
      await sleep(400);
      keeper.stop();
      expect(store.reads).toEqual([[0], [2]]);
      expect([...(await jobs()).keys()].sort()).toEqual([ids[0], ids[2]].sort());
    });

    it('a rebuild whose query fails is logged and tried again until Postgres answers', async () => {
      const store = new CountingStore(prisma);
      store.failures = 2;
      const { logger, lines } = recordingLogger();
      const keeper = keeperOf(memoryWorld().engine, { store, logger });
      keeper.shardAcquired(2);
      await sleep(1000);
      keeper.stop();
      expect(store.reads).toEqual([[2], [2], [2]]);
      expect([...(await jobs()).keys()]).toEqual([ids[2]]);
      expect(lines.filter((l) => l.msg === 'deadline rebuild failed; retrying')).toHaveLength(2);
      expect(lines.find((l) => l.msg === 'deadline rebuild failed; retrying')).toMatchObject({
        level: 50,
        err: { message: 'Postgres away' },
      });
    });

    it('split by shard (decision 0027): each database is read on its own, so the shards of a database that does not answer are retried while the others get their jobs', async () => {
      const unreachable = createPrisma('postgresql://postgres@127.0.0.1:1/nowhere', 1, {
        connectionTimeoutMs: 500,
      });
      const split = new TableStore(
        new ShardDatabases({ databaseUrls: ['home', 'away'], databaseOfShard: [0, 0, 1, 1] }, (_, index) =>
          index === 0 ? prisma : unreachable,
        ),
      );
      const { logger, lines } = recordingLogger();
      const keeper = keeperOf(memoryWorld().engine, { store: split, logger });
      try {
        for (const shard of [0, 1, 2, 3]) keeper.shardAcquired(shard);
        await sleep(1500);
      } finally {
        keeper.stop();
        await unreachable.$disconnect();
      }
      expect([...(await jobs()).keys()].sort()).toEqual([ids[0], ids[1]].sort());
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: 'deadlines rebuilt from Postgres', shards: [0, 1], deadlines: 2 }),
      );
      const failed = lines.filter((l) => l.msg === 'deadline rebuild failed; retrying');
      expect(failed.length).toBeGreaterThanOrEqual(1);
      for (const line of failed) expect(line).toMatchObject({ shards: [2, 3] });
    });

    it('a stopped keeper rebuilds nothing: not a shard taken after, nor one waiting, nor a failed rebuild again', async () => {
      const store = new CountingStore(prisma);
      const afterStop = keeperOf(memoryWorld().engine, { store });
      afterStop.stop();
      afterStop.shardAcquired(0);
      const waiting = keeperOf(memoryWorld().engine, { store });
      waiting.shardAcquired(1);
      waiting.stop();
      await sleep(400);
      expect(store.reads).toEqual([]);

      store.failures = 5;
      const failing = keeperOf(memoryWorld().engine, { store });
      failing.shardAcquired(3);
      await sleep(250); // the query has failed once
      failing.stop();
      await sleep(400);
      expect(store.reads).toEqual([[3]]);
      expect(await jobs()).toEqual(new Map());
    });

    it("sets the engine's copy of a table over the stored row, and counts a table with no deadline left as none", async () => {
      const w = memoryWorld();
      // This replica's copy of ids[0] has a newer deadline; its copy of ids[1] has none.
      const stored0 = deadlines.get(ids[0]!)!;
      const newer: Deadline = { ...stored0, key: `${stored0.key}-newer`, at: stored0.at + 1000 };
      const copies = new Map<string, Deadline | null>([
        [ids[0]!, newer],
        [ids[1]!, null],
      ]);
      w.engine.cachedTable = (id) =>
        copies.has(id) ? ({ id, deadline: copies.get(id) } as TableState) : undefined;
      const { logger, lines } = recordingLogger();
      const keeper = keeperOf(w.engine, { store: new CountingStore(prisma), logger });
      keeper.shardAcquired(0);
      keeper.shardAcquired(1);
      await sleep(500);
      keeper.stop();
      const set = await jobs();
      expect([...set.keys()]).toEqual([ids[0]]);
      expect(set.get(ids[0]!)?.data.key).toBe(newer.key);
      expect(lines).toContainEqual(expect.objectContaining({ deadlines: 1 }));
    });

    it('a deadline that keeps moving while its job is set is set again at most five times, then counted', async () => {
      const w = memoryWorld();
      let moves = 0;
      const moving = () => ({ id: ids[3], deadline: { ...deadlines.get(ids[3]!)!, key: `moved-${moves}` } });
      w.engine.cachedTable = (id) => (id === ids[3] ? (moving() as TableState) : undefined);
      const set: string[] = [];
      const { logger, lines } = recordingLogger();
      const keeper = new (class extends DeadlineKeeper {
        override async schedule(tableId: string, d: Deadline): Promise<void> {
          set.push(d.key);
          moves++;
          await super.schedule(tableId, d);
        }
      })(
        new DeadlineQueues([queue], SHARDS),
        SHARDS,
        new TableStore(prisma),
        w.engine,
        systemClock,
        logger,
        GRACE,
      );
      keeper.shardAcquired(3);
      await sleep(600);
      keeper.stop();
      expect(set).toEqual(['moved-0', 'moved-1', 'moved-2', 'moved-3', 'moved-4']);
      expect((await jobs()).get(ids[3]!)?.data.key).toBe('moved-4');
      expect(lines).toContainEqual(expect.objectContaining({ deadlines: 1 }));
    });
  });

  describe('sweep: the safety net for deadlines with no job', () => {
    it('sets again, due now, a deadline overdue by the grace exactly, and leaves one a millisecond short of it', async () => {
      const w = memoryWorld();
      const d = await open(w.engine, 'SWEEP1');
      const clock = testClock(d.at + GRACE - 1);
      const { logger, lines } = recordingLogger();
      const keeper = keeperOf(w.engine, { clock, logger });
      await keeper.sweep();
      expect(await jobs()).toEqual(new Map());
      clock.at = d.at + GRACE;
      await keeper.sweep();
      expect((await jobs()).get('SWEEP1')).toEqual({
        data: { tableId: 'SWEEP1', key: d.key, dueAt: d.at },
        delay: 0,
      });
      expect(lines).toEqual([
        expect.objectContaining({
          level: 40,
          msg: 'deadline overdue with no firing: setting its job again',
          tableId: 'SWEEP1',
          key: d.key,
          lateMs: GRACE,
        }),
      ]);
    });

    it("sets an overdue deadline's job once, and again only when it is still overdue ten graces later", async () => {
      const w = memoryWorld();
      const d = await open(w.engine, 'SWEEP2');
      const clock = testClock(d.at + GRACE);
      const set: number[] = [];
      const keeper = new (class extends DeadlineKeeper {
        override async schedule(tableId: string, deadline: Deadline): Promise<void> {
          set.push(clock.at);
          await super.schedule(tableId, deadline);
        }
      })(
        new DeadlineQueues([queue], SHARDS),
        SHARDS,
        new TableStore(prisma),
        w.engine,
        clock,
        createLogger('keeper-jobs-test', 'silent'),
        GRACE,
      );
      const first = clock.at;
      await keeper.sweep();
      await keeper.sweep();
      clock.at = first + 10 * GRACE - 1;
      await keeper.sweep();
      expect(set).toEqual([first]);
      clock.at = first + 10 * GRACE;
      await keeper.sweep();
      expect(set).toEqual([first, first + 10 * GRACE]);
    });

    it('a new deadline of the same table, overdue too, gets its job at once, within the ten graces of the last one', async () => {
      const w = memoryWorld();
      const d1 = await open(w.engine, 'SWEEP6');
      const d2: Deadline = { ...d1, key: `${d1.key}-next`, at: d1.at + 1 };
      let current = d1;
      w.engine.cachedTables = () => [{ id: 'SWEEP6', deadline: current } as TableState];
      const clock = testClock(d2.at + GRACE);
      const keeper = keeperOf(w.engine, { clock });
      await keeper.sweep();
      expect((await jobs()).get('SWEEP6')?.data.key).toBe(d1.key);
      current = d2;
      clock.at += 1;
      await keeper.sweep();
      expect((await jobs()).get('SWEEP6')?.data.key).toBe(d2.key);
    });

    it('a table with no deadline gets no job', async () => {
      const w = memoryWorld();
      await open(w.engine, 'SWEEP3');
      w.engine.cachedTables = () => [{ id: 'SWEEP3', deadline: null } as TableState];
      await keeperOf(w.engine, { clock: testClock(Date.now() + 3_600_000) }).sweep();
      expect(await jobs()).toEqual(new Map());
    });

    it('while Redis refuses jobs the sweep stops at the first refusal, logs it, and sets every overdue job at the next sweep', async () => {
      const w = memoryWorld();
      const d1 = await open(w.engine, 'SWEEP4');
      await open(w.engine, 'SWEEP5');
      let down = true;
      const adds: string[] = [];
      const flaky = new Proxy(queue, {
        get(target, property, receiver) {
          if (property === 'add')
            return (...args: Parameters<DeadlineQueue['add']>) => {
              adds.push(args[1].tableId);
              return down ? Promise.reject(new Error('Connection is closed.')) : target.add(...args);
            };
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const { logger, lines } = recordingLogger();
      const keeper = keeperOf(w.engine, { clock: testClock(d1.at + 60_000), jobsOn: flaky, logger });
      await keeper.sweep();
      expect(adds).toEqual(['SWEEP4']);
      expect(lines.filter((l) => l.level === 50)).toEqual([
        expect.objectContaining({
          msg: 'overdue sweep could not set a deadline job',
          err: expect.objectContaining({ message: 'Connection is closed.' }),
        }),
      ]);
      down = false;
      await keeper.sweep();
      expect([...(await jobs()).keys()].sort()).toEqual(['SWEEP4', 'SWEEP5']);
    });

    it('loads again the tables an intent failed on while the store was down, when this replica owns them, and sets their overdue jobs', async () => {
      const w = memoryWorld();
      const d = await failedOn(w, 'RELD01');
      await failedOn(w, 'RELD02');
      const clock = testClock(d.at + 60_000);
      // Not this replica's: left alone, still to be loaded again.
      await keeperOf(w.engine, { clock, owns: (id) => id !== 'RELD01' && id !== 'RELD02' }).sweep();
      expect(w.engine.tablesToReload().sort()).toEqual(['RELD01', 'RELD02']);
      // With no ownership to ask (a keeper that only sweeps what it caches), nothing is loaded.
      await keeperOf(w.engine, { clock }).sweep();
      expect(w.engine.tablesToReload().sort()).toEqual(['RELD01', 'RELD02']);
      expect(await jobs()).toEqual(new Map());

      await keeperOf(w.engine, { clock, owns: (id) => id === 'RELD01' }).sweep();
      expect(w.engine.tablesToReload()).toEqual(['RELD02']);
      expect((await jobs()).get('RELD01')?.data).toEqual({ tableId: 'RELD01', key: d.key, dueAt: d.at });
      expect((await jobs()).has('RELD02')).toBe(false);
    });

    it('a store that still does not answer stops the reloading at the first table and logs it; the next sweep tries again', async () => {
      const w = memoryWorld();
      const d = await failedOn(w, 'RELD03');
      await failedOn(w, 'RELD04');
      w.loads.length = 0;
      w.world.down = true;
      const { logger, lines } = recordingLogger();
      const keeper = keeperOf(w.engine, { clock: testClock(d.at + 60_000), owns: () => true, logger });
      await keeper.sweep();
      expect(w.world.loads).toHaveLength(1);
      expect(lines).toEqual([
        expect.objectContaining({
          level: 40,
          msg: 'overdue sweep: the store does not answer yet; trying again',
          tableId: w.world.loads[0],
          err: expect.objectContaining({ message: 'store down' }),
        }),
      ]);
      w.world.down = false;
      await keeper.sweep();
      expect(w.engine.tablesToReload()).toEqual([]);
      expect([...(await jobs()).keys()].sort()).toEqual(['RELD03', 'RELD04']);
    });

    it('a stopped keeper loads no table again', async () => {
      const w = memoryWorld();
      await failedOn(w, 'RELD05');
      const keeper = keeperOf(w.engine, { owns: () => true });
      keeper.stop();
      await keeper.sweep();
      expect(w.engine.tablesToReload()).toEqual(['RELD05']);
    });
  });

  describe('startSweep: the safety net once an interval', () => {
    it('sweeps every interval, never starts a sweep while one is running, and stops with the keeper', async () => {
      let release: () => void = () => undefined;
      let sweeps = 0;
      const keeper = new (class extends DeadlineKeeper {
        override async sweep(): Promise<void> {
          sweeps++;
          await new Promise<void>((resolve) => (release = resolve));
        }
      })(
        new DeadlineQueues([queue], SHARDS),
        SHARDS,
        new TableStore(prisma),
        memoryWorld().engine,
        systemClock,
        createLogger('keeper-jobs-test', 'silent'),
        GRACE,
      );
      keeper.startSweep(20);
      await sleep(150);
      expect(sweeps).toBe(1); // the first one hangs (a Postgres that does not answer)
      release();
      await sleep(150);
      expect(sweeps).toBeGreaterThanOrEqual(2);
      keeper.stop();
      release();
      await sleep(50);
      const stoppedAt = sweeps;
      release();
      await sleep(150);
      expect(sweeps).toBe(stoppedAt);
    });
  });
});

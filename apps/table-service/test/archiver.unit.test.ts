import { createPrisma, ShardDatabases, type Logger } from '@dominoes/platform';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import {
  createTwoDatabases,
  tableCodeIn,
  type TwoDatabases,
} from '../../../libs/platform/test/two-databases';
import { Archiver, type ArchiverOptions } from '../src/retention/archiver';
import { TableStore } from '../src/table/table-store';
import { applyStored, deadlineOf, openDrawFor } from './support/store-steps';

/*
 * Retention's archiver on two real Postgres databases (decision 0027): which tables a run moves
 * (idle long enough, per database, at most a batch), what it tells the engine and the log, a
 * database that cannot be reached (a real connection refused), stopping, and its timer.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HOST = '00000000-0000-4000-8000-000000000077';
/** A database URL on the test server that does not exist: every query on it fails. */
const missingDatabaseUrl = (url: string) => url.replace(/\/[^/]+$/, '/archiver_no_such_database');

describe('Archiver on real Postgres', () => {
  let two: TwoDatabases;
  let databases: ShardDatabases;
  let store: TableStore;
  let made = 0;

  beforeAll(async () => {
    two = await createTwoDatabases('archiver');
    databases = two.open();
    store = new TableStore(databases);
  });
  afterAll(async () => {
    await two?.dispose();
  });

  /** A table of database `index`, opened and closed (its waiting time ran out). */
  async function closedTableIn(index: number): Promise<string> {
    const id = tableCodeIn(databases, index, 'arch', made++);
    const opened = (await openDrawFor(store, HOST, id, 1000))!;
    const closed = await applyStored(store, id, deadlineOf(opened, 0), 60_000);
    expect(closed.status).toBe('closed');
    return id;
  }
  const archived = async (index: number, id: string) => {
    const rows = await two
      .client(index)
      .$queryRawUnsafe<{ n: number }[]>(
        'select count(*)::int as n from archive.game_tables where id = $1',
        id,
      );
    return rows[0]!.n === 1;
  };
  const archiverOf = (options: Partial<ArchiverOptions> & { logger: Logger }) => {
    const forgotten: string[][] = [];
    const archiver = new Archiver({
      store,
      forget: (moved) => forgotten.push([...moved].sort()),
      clock: { now: () => Date.now() + 60_000 },
      afterMs: 1_000,
      intervalMs: 60_000,
      ...options,
    });
    return { archiver, forgotten };
  };
  /** Databases whose first (of one, or of two with the suite's second) does not exist. */
  function brokenDatabases(withSecond = false): ShardDatabases {
    const urls = [
      missingDatabaseUrl(two.map.databaseUrls[0]!),
      ...(withSecond ? [two.map.databaseUrls[1]!] : []),
    ];
    const databaseOfShard = withSecond ? two.map.databaseOfShard : two.map.databaseOfShard.map(() => 0);
    return new ShardDatabases({ databaseUrls: urls, databaseOfShard }, (url) => createPrisma(url, 1));
  }
  /** Takes every archivable table out of the way, so a test sees only its own. */
  const drain = () => archiverOf({ logger: recordingLogger().logger }).archiver.runOnce();

  beforeEach(async () => {
    await drain();
  });

  it('a run moves the closed tables idle for the bound from each database, tells the engine once which, and logs how many', async () => {
    const ids = [await closedTableIn(0), await closedTableIn(1)];
    const { logger, lines } = recordingLogger();
    const { archiver, forgotten } = archiverOf({ logger });
    expect(await archiver.runOnce()).toBe(2);
    expect(forgotten).toEqual([[...ids].sort()]);
    expect(await archived(0, ids[0]!)).toBe(true);
    expect(await archived(1, ids[1]!)).toBe(true);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 30,
        archived: 2,
        msg: 'finished and closed tables moved to the archive',
      }),
    );
  });

  it('a table closed less than the bound ago stays, and a run that moves nothing tells nobody', async () => {
    const id = await closedTableIn(0);
    const { logger, lines } = recordingLogger();
    const { archiver, forgotten } = archiverOf({ logger, clock: { now: () => Date.now() }, afterMs: 60_000 });
    expect(await archiver.runOnce()).toBe(0);
    expect(forgotten).toEqual([]);
    expect(lines).toEqual([]);
    expect(await archived(0, id)).toBe(false);
  });

  it('a run moves at most a batch of tables from each database', async () => {
    const ids = [await closedTableIn(0), await closedTableIn(0), await closedTableIn(1)];
    const { archiver, forgotten } = archiverOf({ logger: recordingLogger().logger, batch: 1 });
    expect(await archiver.runOnce()).toBe(2);
    expect(forgotten[0]).toHaveLength(2);
    expect(forgotten[0]).toContain(ids[2]);
    expect(await archiver.runOnce()).toBe(1);
    expect(await archiver.runOnce()).toBe(0);
  });

  it('a database that cannot be reached is logged with its index, the next one still runs, and the run then fails with its error', async () => {
    const broken = brokenDatabases(true);
    try {
      const id = await closedTableIn(1);
      const { logger, lines } = recordingLogger();
      const { archiver, forgotten } = archiverOf({ logger, store: new TableStore(broken) });
      await expect(archiver.runOnce()).rejects.toThrow(/archiver_no_such_database/);
      expect(forgotten).toEqual([[id]]);
      expect(await archived(1, id)).toBe(true);
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 40, database: 0, msg: 'archive run of one database failed' }),
      );
    } finally {
      await broken.disconnect();
    }
  });

  it('with one database, a failing run logs nothing itself (the timer logs it)', async () => {
    const lone = brokenDatabases();
    try {
      const { logger, lines } = recordingLogger();
      const { archiver } = archiverOf({ logger, store: new TableStore(lone) });
      await expect(archiver.runOnce()).rejects.toThrow(/archiver_no_such_database/);
      expect(lines).toEqual([]);
    } finally {
      await lone.disconnect();
    }
  });

  it('stopped between two tables, a run moves no further table and goes to no further database', async () => {
    const ids = [await closedTableIn(0), await closedTableIn(0), await closedTableIn(1)];
    const listed: number[] = [];
    let archiver: Archiver | null = null;
    const stopping: ArchiverOptions['store'] = {
      databases: store.databases,
      archivableTableIds: (database, idleBefore, limit) => {
        listed.push(database);
        return store.archivableTableIds(database, idleBefore, limit);
      },
      archiveTable: async (id, idleBefore) => {
        const moved = await store.archiveTable(id, idleBefore);
        void archiver!.stop();
        return moved;
      },
    };
    const made = archiverOf({ logger: recordingLogger().logger, store: stopping });
    archiver = made.archiver;
    expect(await archiver.runOnce()).toBe(1);
    expect(listed).toEqual([0]);
    expect(made.forgotten).toHaveLength(1);
    expect(ids.slice(0, 2)).toContain(made.forgotten[0]![0]);
    expect(await archiver.runOnce()).toBe(0);
  });

  it('with an archive bound of 0 it never runs', async () => {
    await closedTableIn(0);
    const { archiver, forgotten } = archiverOf({
      logger: recordingLogger().logger,
      afterMs: 0,
      intervalMs: 20,
    });
    archiver.start();
    await sleep(200);
    await archiver.stop();
    expect(forgotten).toEqual([]);
  });

  it('started, it runs every interval by itself, one run at a time, and its timer keeps no process alive', async () => {
    const id = await closedTableIn(1);
    let runs = 0;
    let under = 0;
    let most = 0;
    const slow: ArchiverOptions['store'] = {
      databases: store.databases,
      archivableTableIds: async (database, idleBefore, limit) => {
        if (database === 0) runs++;
        most = Math.max(most, ++under);
        await sleep(120);
        under--;
        return store.archivableTableIds(database, idleBefore, limit);
      },
      archiveTable: (tableId, idleBefore) => store.archiveTable(tableId, idleBefore),
    };
    const { archiver, forgotten } = archiverOf({
      logger: recordingLogger().logger,
      store: slow,
      intervalMs: 20,
    });
    archiver.start();
    expect((archiver as unknown as { timer: NodeJS.Timeout }).timer.hasRef()).toBe(false);
    for (let i = 0; i < 100 && forgotten.length === 0; i++) await sleep(20);
    await sleep(300);
    await archiver.stop();
    expect(forgotten[0]).toEqual([id]);
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(most).toBe(1);
    const after = runs;
    // Stopped, its timer starts no run at all (not even one that would find it stopped).
    const started = jest.spyOn(archiver, 'runOnce');
    await sleep(100);
    expect(runs).toBe(after);
    expect(started).not.toHaveBeenCalled();
  });

  it('a run of the timer that fails is logged and tried again', async () => {
    const lone = brokenDatabases();
    try {
      const { logger, lines } = recordingLogger();
      const { archiver } = archiverOf({ logger, store: new TableStore(lone), intervalMs: 20 });
      archiver.start();
      const failed = () => lines.filter((l) => l.msg === 'archive run failed; trying again later');
      for (let i = 0; i < 200 && failed().length < 2; i++) await sleep(20);
      await archiver.stop();
      expect(failed().length).toBeGreaterThanOrEqual(2);
      expect(failed()[0]).toMatchObject({
        level: 40,
        err: expect.objectContaining({ message: expect.stringMatching(/archiver_no_such_database/) }),
      });
    } finally {
      await lone.disconnect();
    }
  });

  it('stop waits for the run under way, and that run failing after stop is not logged', async () => {
    const lone = brokenDatabases();
    const broken = new TableStore(lone);
    let reached: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (reached = resolve));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let ended = false;
    const gated: ArchiverOptions['store'] = {
      databases: 1,
      archivableTableIds: async (database, idleBefore, limit) => {
        reached();
        await gate;
        try {
          return await broken.archivableTableIds(database, idleBefore, limit);
        } finally {
          ended = true;
        }
      },
      archiveTable: (tableId, idleBefore) => broken.archiveTable(tableId, idleBefore),
    };
    try {
      const { logger, lines } = recordingLogger();
      const { archiver } = archiverOf({ logger, store: gated, intervalMs: 20 });
      archiver.start();
      await started;
      const stopped = archiver.stop();
      release();
      await stopped;
      expect(ended).toBe(true);
      expect(lines).toEqual([]);
    } finally {
      await lone.disconnect();
    }
  });
});

import { shardOf, type IntentEnvelope } from '@dominoes/protocol';
import type { ShardDatabases } from '@dominoes/platform';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import {
  createTwoDatabases,
  tableCodeIn,
  type TwoDatabases,
} from '../../../libs/platform/test/two-databases';
import { Archiver } from '../src/retention/archiver';
import { TooManyTablesError } from '../src/table/table-ports';
import { TableStore } from '../src/table/table-store';
import type { TableState } from '../src/table/table-state';
import { applyStored, deadlineOf, openAtOnce, openDrawFor } from './support/store-steps';

/*
 * Postgres split by shard (issue 13, decision 0027), on two real databases: every row of a table is
 * in its shard's database, read back from there, and a host's open tables are counted in both.
 */
describe('table store split over two databases', () => {
  let two: TwoDatabases;
  let databases: ShardDatabases;
  let store: TableStore;
  const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

  beforeAll(async () => {
    two = await createTwoDatabases('split_store');
    databases = two.open();
    store = new TableStore(databases);
  });
  afterAll(async () => {
    await two?.dispose();
  });

  const openFor = (host: string, id: string, max: number, s = store) => openDrawFor(s, host, id, max);
  const apply = (id: string, envelope: Omit<IntentEnvelope, 'tableId'>, now = 0) =>
    applyStored(store, id, envelope, now);
  const join = (player: string, intentId: string): Omit<IntentEnvelope, 'tableId'> => ({
    intentId,
    player: { id: player, name: 'guest' },
    connectionId: 'c1',
    replyTo: null,
    sentAt: 0,
    intent: { kind: 'join' },
  });
  /** How many rows of table `id` database `index` holds in each of its tables. */
  const rowsIn = async (index: number, id: string) => {
    const rows = await two
      .client(index)
      .$queryRawUnsafe<{ tables: number; seats: number; actions: number }[]>(
        `select (select count(*)::int from game_tables where id = $1) as tables,
              (select count(*)::int from table_seats where table_id = $1) as seats,
              (select count(*)::int from table_actions where table_id = $1) as actions`,
        id,
      );
    return rows[0]!;
  };

  it("a table's rows (table, seats, log, match) land only in its shard's database, and both databases get tables", async () => {
    const inFirst = tableCodeIn(databases, 0, 'rows');
    const inSecond = tableCodeIn(databases, 1, 'rows');
    for (const id of [inFirst, inSecond]) {
      expect(await openFor(uuid(1), id, 5)).not.toBeNull();
      expect((await apply(id, join(uuid(2), `${id}:join`))).status).toBe('playing');
    }
    const first = await rowsIn(0, inFirst);
    expect(first).toMatchObject({ tables: 1, seats: 2 });
    expect(first.actions).toBeGreaterThan(2);
    expect(await rowsIn(1, inFirst)).toEqual({ tables: 0, seats: 0, actions: 0 });
    const second = await rowsIn(1, inSecond);
    expect(second).toMatchObject({ tables: 1, seats: 2 });
    expect(second.actions).toBeGreaterThan(2);
    expect(await rowsIn(0, inSecond)).toEqual({ tables: 0, seats: 0, actions: 0 });
    const matches = (index: number) =>
      two
        .client(index)
        .$queryRawUnsafe<{ table_id: string }[]>('select table_id from matches order by table_id');
    expect((await matches(0)).map((m) => m.table_id)).toEqual([inFirst]);
    expect((await matches(1)).map((m) => m.table_id)).toEqual([inSecond]);
  });

  it('after a restart (a new store on new pools) each table is loaded from its own database, and the deadline rebuild finds the open tables of each database', async () => {
    const ids = [tableCodeIn(databases, 0, 'reload'), tableCodeIn(databases, 1, 'reload')];
    const before: TableState[] = [];
    for (const id of ids) {
      await openFor(uuid(3), id, 5);
      before.push(await apply(id, join(uuid(4), `${id}:join`)));
    }
    const restarted = new TableStore(two.open(2));
    for (const [i, id] of ids.entries()) {
      const loaded = await restarted.load(id);
      expect(loaded).toEqual(before[i]);
      expect(loaded?.status).toBe('playing');
    }
    // The shards of both tables, asked at once: one query in each database, both tables found.
    const shards = ids.map((id) => shardOf(id, 16));
    const rebuilt = (await restarted.openTableDeadlines(shards, 16)).map((t) => t.id);
    expect(rebuilt).toEqual(expect.arrayContaining(ids));
    expect(rebuilt.every((id) => shards.includes(shardOf(id, 16)))).toBe(true);
  });

  it("the host limit counts the host's open tables in every database: the (limit+1)-th is refused wherever it would go", async () => {
    const host = uuid(5);
    const a = [0, 1].map((n) => tableCodeIn(databases, 0, 'limit', n));
    const b = [0, 1].map((n) => tableCodeIn(databases, 1, 'limit', n));
    expect(await openFor(host, a[0]!, 3)).not.toBeNull();
    expect(await openFor(host, b[0]!, 3)).not.toBeNull();
    expect(await openFor(host, a[1]!, 3)).not.toBeNull();
    expect(await store.openTablesOf(host)).toBe(3);
    // Database 1 holds only one of the host's tables: its own count alone would let a fourth in.
    await expect(openFor(host, b[1]!, 3)).rejects.toEqual(new TooManyTablesError(3, 3));
    expect(await rowsIn(1, b[1]!)).toEqual({ tables: 0, seats: 0, actions: 0 });
    await expect(openFor(host, tableCodeIn(databases, 0, 'limit', 2), 3)).rejects.toBeInstanceOf(
      TooManyTablesError,
    );
    expect(await store.openTablesOf(host)).toBe(3);
  });

  it('openings of one host from several replicas at once, over both databases, store no more tables than the limit (the host lock is in the home database)', async () => {
    const replicas = [0, 1, 2, 3].map(() => new TableStore(two.open(3)));
    const host = uuid(6);
    const ids = Array.from({ length: 16 }, (_, i) =>
      tableCodeIn(databases, i % 2, 'race', Math.floor(i / 2)),
    );
    const outcomes = await openAtOnce(replicas, host, ids, 3);
    expect(outcomes.filter((o) => o === 'stored')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'refused')).toHaveLength(13);
    expect(await store.openTablesOf(host)).toBe(3);
  });

  it('the archiver moves the closed tables of each database into that database’s archive', async () => {
    const ids = [tableCodeIn(databases, 0, 'archive'), tableCodeIn(databases, 1, 'archive')];
    for (const id of ids) {
      const opened = (await openFor(uuid(7), id, 5))!;
      // The waiting table's expiry fires: closed.
      const closed = await apply(id, deadlineOf(opened, 0), 60_000);
      expect(closed.status).toBe('closed');
    }
    const forgotten: string[] = [];
    const archiver = new Archiver({
      store,
      forget: (moved) => forgotten.push(...moved),
      clock: { now: () => Date.now() + 60_000 },
      logger: recordingLogger().logger,
      afterMs: 1_000,
      intervalMs: 60_000,
    });
    expect(await archiver.runOnce()).toBeGreaterThanOrEqual(2);
    expect(forgotten).toEqual(expect.arrayContaining(ids));
    for (const [index, id] of ids.entries()) {
      const archived = await two
        .client(index)
        .$queryRawUnsafe<{ n: number }[]>(
          'select count(*)::int as n from archive.game_tables where id = $1',
          id,
        );
      expect(archived[0]!.n).toBe(1);
      expect(await rowsIn(index, id)).toEqual({ tables: 0, seats: 0, actions: 0 });
    }
  });
});

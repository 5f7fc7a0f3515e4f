import { createPrisma, type PrismaClient } from '@dominoes/platform';
import { createSeededRng, RULE_DURATIONS } from '@dominoes/rules';
import { shardOf, type IntentEnvelope } from '@dominoes/protocol';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { decide, openTable } from '../src/table/table-policy';
import { DuplicateIntentError, StaleWriteError, TooManyTablesError } from '../src/table/table-ports';
import { TableStore } from '../src/table/table-store';
import { applyStored as applyStoredOn, deadlineOf, openAtOnce, openDrawFor } from './support/store-steps';
import { RECENT_INTENTS_KEPT, type TableState } from '../src/table/table-state';

describe('table store on a real Postgres', () => {
  let stores: TestStores;
  let prisma: PrismaClient;
  let store: TableStore;

  beforeAll(async () => {
    stores = await createTestStores('store');
    prisma = createPrisma(stores.databaseUrl, 2);
    store = new TableStore(prisma);
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await stores?.dispose();
  });

  const joinEnvelope = (player: string, intentId: string): IntentEnvelope => ({
    intentId,
    tableId: 'STORE1',
    player: { id: player, name: 'x' },
    connectionId: null,
    replyTo: null,
    sentAt: 0,
    intent: { kind: 'join' },
  });
  const uuid = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
  const limits = { maxOpenTablesPerHost: 5 };

  /** Opens table `id` for `host` (a 2-seat, one-round draw game) through the store. */
  const openFor = (host: string, id: string, max: number, s = store) => openDrawFor(s, host, id, max);
  /** Decides one intent on the stored table and stores the change, as the engine does. */
  const applyStored = (id: string, envelope: Omit<IntentEnvelope, 'tableId'>, now = 0) =>
    applyStoredOn(store, id, envelope, now);

  it('creates a table once: a second table with the same code is refused', async () => {
    const opened = openTable('STORE1', { id: uuid(0), name: 'host' }, { variant: 'partnership' }, null, {
      now: 0,
      waitingTableTtlMs: 60_000,
    });
    if (!opened.ok) throw new Error(opened.message);
    const stored = await store.create(opened.table, opened.events, 'create-1', limits);
    expect(stored?.version).toBe(2);
    expect(await store.create(opened.table, opened.events, 'create-2', limits)).toBeNull();
    expect((await store.load('STORE1'))?.version).toBe(2);
  });

  it('fencing: a write from a stale version stores nothing and says so', async () => {
    const table = (await store.load('STORE1')) as TableState;
    const decision = decide(table, joinEnvelope(uuid(1), 'join-1'), {
      now: 0,
      rng: createSeededRng(1),
      durations: RULE_DURATIONS,
    });
    if (!decision.ok) throw new Error(decision.message);
    await store.append(table, decision.table, decision.events, 'join-1');
    // A replica that still believes in the old version tries to write its own change.
    const zombie = decide(table, joinEnvelope(uuid(2), 'join-2'), {
      now: 0,
      rng: createSeededRng(1),
      durations: RULE_DURATIONS,
    });
    if (!zombie.ok) throw new Error(zombie.message);
    await expect(store.append(table, zombie.table, zombie.events, 'join-2')).rejects.toBeInstanceOf(
      StaleWriteError,
    );
    const rows = await prisma.tableAction.findMany({ where: { tableId: 'STORE1' }, orderBy: { seq: 'asc' } });
    expect(rows.map((r) => Number(r.seq))).toEqual([1, 2, 3]);
    expect(rows.map((r) => r.intentId)).toEqual(['create-1', null, 'join-1']);
    const seats = await prisma.tableSeat.findMany({ where: { tableId: 'STORE1' }, orderBy: { seat: 'asc' } });
    expect(seats.map((s) => s.playerId)).toEqual([uuid(0), uuid(1)]);
  });

  it('at most once: storing the same intent id again is refused by the database', async () => {
    const table = (await store.load('STORE1')) as TableState;
    const decision = decide(table, joinEnvelope(uuid(3), 'join-1'), {
      now: 0,
      rng: createSeededRng(1),
      durations: RULE_DURATIONS,
    });
    if (!decision.ok) throw new Error(decision.message);
    await expect(store.append(table, decision.table, decision.events, 'join-1')).rejects.toBeInstanceOf(
      DuplicateIntentError,
    );
    expect((await store.load('STORE1'))?.version).toBe(3);
  });

  it('a host has at most MAX_OPEN_TABLES_PER_HOST open tables: one more is refused (TooManyTablesError) and not stored; a finished match and a closed table no longer count', async () => {
    const host = uuid(5);
    for (const id of ['LIM001', 'LIM002', 'LIM003']) expect(await openFor(host, id, 3)).not.toBeNull();
    await expect(openFor(host, 'LIM004', 3)).rejects.toBeInstanceOf(TooManyTablesError);
    expect(await store.load('LIM004')).toBeNull();
    expect(await store.openTablesOf(host)).toBe(3);
    // Another host is not limited by this one's tables.
    expect(await openFor(uuid(6), 'LIM005', 3)).not.toBeNull();

    // LIM001 expires (its clock fires): closed, it no longer counts.
    let lim1 = (await store.load('LIM001')) as TableState;
    lim1 = await applyStored('LIM001', deadlineOf(lim1, 1), 60_000);
    expect(lim1.status).toBe('closed');
    expect(await store.openTablesOf(host)).toBe(2);
    expect(await openFor(host, 'LIM004', 3)).not.toBeNull();
    await expect(openFor(host, 'LIM006', 3)).rejects.toBeInstanceOf(TooManyTablesError);

    // LIM002 plays its one round to the end by the clock: finished, it no longer counts.
    // Connected: a table with no seat connected would wait for its abandonment instead (issue 12).
    let lim2 = await applyStored('LIM002', { ...joinEnvelope(uuid(7), 'lim2-join'), connectionId: 'c-lim2' });
    expect(lim2.status).toBe('playing');
    for (let n = 0; lim2.status === 'playing' && n < 200; n++)
      lim2 = await applyStored('LIM002', deadlineOf(lim2, n), 1_000 * n);
    expect(lim2.status).toBe('finished');
    expect(await store.openTablesOf(host)).toBe(2);
    expect(await openFor(host, 'LIM006', 3)).not.toBeNull();
  });

  it('openings of one host from several replicas at once store no more tables than the limit (counted under the host lock in Postgres)', async () => {
    const replicas = [0, 1, 2, 3].map(() => createPrisma(stores.databaseUrl, 4));
    try {
      const host = uuid(8);
      const ids = Array.from({ length: 16 }, (_, i) => `RACE${String(i).padStart(2, '0')}`);
      const outcomes = await openAtOnce(
        replicas.map((r) => new TableStore(r)),
        host,
        ids,
        3,
      );
      expect(outcomes.filter((o) => o === 'stored')).toHaveLength(3);
      expect(outcomes.filter((o) => o === 'refused')).toHaveLength(13);
      expect(await store.openTablesOf(host)).toBe(3);
    } finally {
      await Promise.all(replicas.map((r) => r.$disconnect()));
    }
  });

  it('a new table is stored with its expiry as deadline_at, so the deadline rebuild after a restart finds it', async () => {
    const stored = (await openFor(uuid(9), 'EXPIRE', 5))!;
    expect(stored.deadline).toMatchObject({ kind: 'expire', at: 60_000 });
    const rebuilt = (await store.openTableDeadlines([shardOf('EXPIRE', 16)], 16)).map((t) => t.id);
    expect(rebuilt).toContain('EXPIRE');
    expect((await store.load('EXPIRE'))?.deadline).toMatchObject({
      kind: 'expire',
      at: 60_000,
    });
  });
  it(`the snapshot holds no intent ids (decision 0022): load reads the last ${RECENT_INTENTS_KEPT} from the log, oldest first, also for a snapshot written with them`, async () => {
    await openFor(uuid(8), 'RECENT', 5);
    const host = { id: uuid(8), name: 'h' };
    const ids = ['RECENT:create'];
    // Every new socket of the host is one stored change (a presence event) with its own intent id.
    for (let i = 0; i < RECENT_INTENTS_KEPT + 6; i++) {
      const intentId = `RECENT:join:${i}`;
      await applyStored('RECENT', {
        intentId,
        player: host,
        connectionId: `gw:${i}`,
        replyTo: null,
        sentAt: 0,
        intent: { kind: 'join' },
      });
      ids.push(intentId);
    }
    const [row] = await prisma.$queryRawUnsafe<{ state: string }[]>(
      "select state::text as state from game_tables where id = 'RECENT'",
    );
    expect(row!.state).not.toContain('recentIntents');
    expect(row!.state).not.toContain('RECENT:join');
    const loaded = (await store.load('RECENT'))!;
    expect(loaded.recentIntents).toEqual(ids.slice(-RECENT_INTENTS_KEPT));

    // A snapshot stored before this change carried its own list: the log's wins.
    await prisma.$executeRawUnsafe(
      `update game_tables set state = (state::jsonb || '{"recentIntents": ["old"]}')::json where id = 'RECENT'`,
    );
    expect((await store.load('RECENT'))!.recentIntents).toEqual(ids.slice(-RECENT_INTENTS_KEPT));
  });
});

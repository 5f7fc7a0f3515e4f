import { createPrisma, type PrismaClient } from '@dominoes/platform';
import { createSeededRng, RULE_DURATIONS } from '@dominoes/rules';
import type { IntentEnvelope } from '@dominoes/protocol';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { decide, openTable } from '../src/table/table-policy';
import { DuplicateIntentError, StaleWriteError, TableStore } from '../src/table/table-store';
import type { TableState } from '../src/table/table-state';

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

  it('creates a table once: a second table with the same code is refused', async () => {
    const opened = openTable('STORE1', { id: uuid(0), name: 'host' }, { variant: 'partnership' }, null);
    if (!opened.ok) throw new Error(opened.message);
    const stored = await store.create(opened.table, opened.events, 'create-1');
    expect(stored?.version).toBe(2);
    expect(await store.create(opened.table, opened.events, 'create-2')).toBeNull();
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
});

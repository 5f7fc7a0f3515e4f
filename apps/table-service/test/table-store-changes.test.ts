import { createPrisma, type PrismaClient } from '@dominoes/platform';
import { createSeededRng, RULE_DURATIONS } from '@dominoes/rules';
import { shardOf } from '@dominoes/protocol';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { decide, openTable } from '../src/table/table-policy';
import { SNAPSHOT_EVERY, StoredStateGapError } from '../src/table/stored-state';
import { TableStore } from '../src/table/table-store';
import type { TableState } from '../src/table/table-state';
import { deadlineOf } from './support/store-steps';

/*
 * Decision 0040 on a real Postgres: a move stores its state change on its last log row, the snapshot
 * is written whole every SNAPSHOT_EVERY versions, and load rebuilds the table from both.
 */
describe('table store: a snapshot, then state changes, on a real Postgres (decision 0040)', () => {
  let stores: TestStores;
  let prisma: PrismaClient;
  let store: TableStore;

  beforeAll(async () => {
    stores = await createTestStores('store_changes');
    prisma = createPrisma(stores.databaseUrl, 2);
    store = new TableStore(prisma);
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await stores?.dispose();
  });

  const row = async (id: string) =>
    (
      await prisma.$queryRawUnsafe<{ version: number; state_version: number; changes: number }[]>(
        `SELECT version::int, state_version::int,
                (SELECT count(*)::int FROM table_actions a WHERE a.table_id = t.id AND a.state_change IS NOT NULL) AS changes
           FROM game_tables t WHERE id = $1`,
        id,
      )
    )[0]!;

  /** Opens a partnership table with four seated players and plays it by its deadlines, `steps` changes. */
  async function playStored(
    id: string,
    steps: number,
    check: (decided: TableState, loaded: TableState) => void,
  ) {
    const opened = openTable(
      id,
      { id: '00000000-0000-4000-8000-000000000001', name: 'h' },
      { variant: 'partnership' },
      'c-h',
      {
        now: 0,
        waitingTableTtlMs: 60_000,
      },
    );
    if (!opened.ok) throw new Error(opened.message);
    await store.create(opened.table, opened.events, `${id}:create`, { maxOpenTablesPerHost: 100 });
    const rng = createSeededRng(11);
    const step = async (table: TableState, envelope: Parameters<typeof decide>[1], now: number) => {
      const decision = decide(table, envelope, { now, rng, durations: RULE_DURATIONS });
      if (!decision.ok) throw new Error(decision.message);
      await store.append(table, decision.table, decision.events, envelope.intentId);
      const loaded = (await store.load(id))!;
      const decided = { ...decision.table, version: table.version + decision.events.length };
      check(decided, loaded);
      return loaded;
    };
    let table = (await store.load(id))!;
    for (let p = 2; p <= 4; p++) {
      const player = `00000000-0000-4000-8000-00000000000${p}`;
      table = await step(
        table,
        {
          intentId: `${id}:join${p}`,
          tableId: id,
          player: { id: player, name: `p${p}` },
          connectionId: `c-${p}`,
          replyTo: null,
          sentAt: 0,
          intent: { kind: 'join' },
        },
        0,
      );
    }
    for (let n = 0; n < steps && table.deadline; n++) {
      table = await step(table, { ...deadlineOf(table, n), tableId: id }, table.deadline.at);
    }
    return table;
  }

  it('a table played move by move loads, after every change, key for key as it was decided, though most moves wrote no snapshot', async () => {
    let checked = 0;
    const last = await playStored('CHG1', 3 * SNAPSHOT_EVERY, (decided, loaded) => {
      expect({ ...loaded, recentIntents: [] }).toEqual(
        JSON.parse(JSON.stringify({ ...decided, recentIntents: [] })),
      );
      checked += 1;
    });
    expect(checked).toBeGreaterThan(2 * SNAPSHOT_EVERY);
    const stored = await row('CHG1');
    expect(stored.version).toBe(last.version);
    // The snapshot is at most SNAPSHOT_EVERY - 1 versions behind, and the moves since carry their changes.
    expect(stored.version - stored.state_version).toBeLessThan(SNAPSHOT_EVERY);
    expect(stored.changes).toBeGreaterThan(2 * SNAPSHOT_EVERY);
  });

  it("the deadline rebuild after a takeover sets a stale snapshot's table a wake-up when its current deadline is due (the row's deadline_at), not the snapshot's older deadline", async () => {
    const last = await playStored('CHG2', 5, () => undefined);
    const stored = await row('CHG2');
    expect(stored.state_version).toBeLessThan(stored.version);
    const rebuilt = (await store.openTableDeadlines([shardOf('CHG2', 16)], 16)).find((t) => t.id === 'CHG2');
    expect(rebuilt?.deadline.at).toBe(last.deadline!.at);
  });

  it('a table whose changes do not reach its version is not loaded (StoredStateGapError), never rebuilt over the gap', async () => {
    await playStored('CHG3', 5, () => undefined);
    const stored = await row('CHG3');
    await prisma.$executeRawUnsafe(
      'UPDATE game_tables SET state_version = state_version - 1 WHERE id = $1',
      'CHG3',
    );
    await expect(store.load('CHG3')).rejects.toBeInstanceOf(StoredStateGapError);
    await prisma.$executeRawUnsafe(
      'UPDATE game_tables SET state_version = $2 WHERE id = $1',
      'CHG3',
      stored.state_version,
    );
    expect((await store.load('CHG3'))?.version).toBe(stored.version);
  });
});

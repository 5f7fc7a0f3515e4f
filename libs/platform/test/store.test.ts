import { createPrisma, type PrismaClient } from '../src/db';
import { INTENT_ID_KEY, isUniqueViolation, TableQueries, type TableChange } from '../src/store';
import { createTestStores, type TestStores } from '../src/test-stores';

describe('the store (TableQueries) on a real Postgres', () => {
  let stores: TestStores;
  let prisma: PrismaClient;
  let queries: TableQueries;
  const host = '00000000-0000-4000-8000-000000000001';
  const player = '00000000-0000-4000-8000-000000000002';

  beforeAll(async () => {
    stores = await createTestStores('store_queries');
    prisma = createPrisma(stores.databaseUrl, 2);
    queries = new TableQueries(prisma);
    const opened = await queries.insertTable(
      {
        id: 'QUERY1',
        variant: 'draw',
        seatCount: 2,
        target: 100,
        oneRound: true,
        hostPlayerId: host,
        status: 'waiting',
        state: '{}',
        deadlineAt: null,
        chat: true,
        isPublic: false,
        seatsPresent: 1,
      },
      5,
    );
    expect(opened).toEqual({ inserted: true, open: 0 });
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await stores?.dispose();
  });

  const change = (
    expectedVersion: number,
    intentId: string,
    seat: number,
    playerId: string,
  ): TableChange => ({
    tableId: 'QUERY1',
    expectedVersion,
    version: expectedVersion + 1,
    state: '{}',
    status: 'waiting',
    deadlineAt: null,
    seatsPresent: 1,
    hostPlayerId: null,
    log: [
      {
        seq: expectedVersion + 1,
        kind: 'seat-taken',
        seat,
        match_number: null,
        round_number: null,
        payload: {},
        intent_id: intentId,
      },
    ],
    seatsFreed: [],
    seatsTaken: [{ seat, player_id: playerId, name: 'x' }],
    matches: [],
    rounds: [],
    expiresAt: null,
  });

  it('a change is stored once; a stale version is not written; a stored intent id is a duplicate, told by its SQLSTATE and key', async () => {
    expect(await queries.append(change(0, 'i1', 0, host))).toBe('stored');
    expect(await queries.append(change(0, 'i2', 1, player))).toBe('not-written');
    expect(await queries.append(change(1, 'i1', 1, player))).toBe('duplicate');
    expect(await queries.storedIntent('QUERY1', 'i1', host)).toEqual({ version: 1, seat: 0 });
    expect(await queries.storedIntent('QUERY1', 'i2', host)).toBeNull();
  });

  it('a unique violation of another key is not taken for a duplicate intent: it is thrown', async () => {
    // The host takes a second seat: table_seats' (table_id, player_id) key refuses it.
    const error = await queries.append(change(1, 'i3', 1, host)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).not.toBeNull();
    expect(isUniqueViolation(error, INTENT_ID_KEY)).toBe(false);
    expect(
      isUniqueViolation(error, {
        constraint: 'table_seats_table_id_player_id_key',
        columns: ['table_id', 'player_id'],
      }),
    ).toBe(true);
    expect(isUniqueViolation(new Error('table_actions_table_id_intent_id_key'), INTENT_ID_KEY)).toBe(false);
  });

  it("the gateway's session is read-only and time-limited, and reads the summary in one statement", async () => {
    const reader = createPrisma(stores.databaseUrl, 1, { readOnly: true, statementTimeoutMs: 200 });
    try {
      const read = new TableQueries(reader);
      expect(await read.summary('QUERY1')).toEqual({
        id: 'QUERY1',
        variant: 'draw',
        seatCount: 2,
        target: 100,
        oneRound: true,
        status: 'waiting',
        seats: [{ seat: 0, name: 'x' }],
      });
      expect(await read.summary('NOSUCH')).toBeNull();
      expect(await read.ping()).toBe(true);
      await expect(read.append(change(1, 'i4', 1, player))).rejects.toThrow(/25006|read-only/);
      await expect(reader.$queryRawUnsafe('select pg_sleep(1)')).rejects.toThrow(/57014|statement timeout/);
    } finally {
      await reader.$disconnect();
    }
  });
});

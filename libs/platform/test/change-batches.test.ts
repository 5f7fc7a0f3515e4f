import { createPrisma, type PrismaClient } from '../src/db';
import { ChangeBatches, TableQueries, type ChangeOutcome, type TableChange } from '../src/store';
import { createTestStores, type TestStores } from '../src/test-stores';

/** Many tables' changes in one statement (decision 0030), on a real Postgres. */
describe('the store groups changes that arrive together into one statement (ChangeBatches)', () => {
  let stores: TestStores;
  let prisma: PrismaClient;
  let queries: TableQueries;
  const host = '00000000-0000-4000-8000-00000000000a';
  const player = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  let tableNumber = 0;

  beforeAll(async () => {
    stores = await createTestStores('change_batches');
    prisma = createPrisma(stores.databaseUrl, 8);
    queries = new TableQueries(prisma);
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await stores?.dispose();
  });

  /** A fresh table at version 0. */
  async function openTable(): Promise<string> {
    tableNumber += 1;
    const id = `BATCH${tableNumber}`;
    const opened = await queries.insertTable(
      {
        id,
        variant: 'partnership',
        seatCount: 4,
        target: 100,
        oneRound: false,
        hostPlayerId: host,
        status: 'waiting',
        state: '{}',
        deadlineAt: null,
        chat: true,
        isPublic: false,
        seatsPresent: 0,
      },
      1000,
    );
    expect(opened.inserted).toBe(true);
    return id;
  }

  /** Seat `seat` taken by player `seat + 1`, with a match and a round row and a snapshot that needs escaping. */
  const change = (tableId: string, expectedVersion: number, intentId: string, seat: number): TableChange => ({
    tableId,
    expectedVersion,
    version: expectedVersion + 2,
    state: JSON.stringify({
      id: tableId,
      name: `quote " back \\ é ${intentId}`,
      version: expectedVersion + 2,
    }),
    status: 'playing',
    deadlineAt: new Date(Date.UTC(2026, 11, 3, 12, 0, seat)),
    seatsPresent: seat + 1,
    hostPlayerId: null,
    log: [
      {
        seq: expectedVersion + 1,
        kind: 'seat-taken',
        seat,
        match_number: null,
        round_number: null,
        payload: { n: 1 },
        intent_id: intentId,
      },
      {
        seq: expectedVersion + 2,
        kind: 'match-started',
        seat: null,
        match_number: 1,
        round_number: null,
        payload: {},
        intent_id: null,
      },
    ],
    seatsFreed: [],
    seatsTaken: [{ seat, player_id: player(seat + 1), name: `p${seat}` }],
    matches: [
      {
        number: 1,
        variant: 'partnership',
        target: 100,
        one_round: false,
        seats: [player(seat + 1)],
        scores: null,
        winner_side: null,
        finished: false,
        abandoned: false,
      },
    ],
    rounds: [
      { match_number: 1, number: 1, opener: seat, deal: { hands: [] }, result: null, finished: false },
    ],
    expiresAt: null,
  });

  /** What is stored of a table: its row and the rows its changes added. */
  async function storedRows(tableId: string) {
    const [table] = await prisma.$queryRawUnsafe<
      { state: string; version: bigint; status: string; seats_present: number; deadline_at: Date | null }[]
    >(
      'SELECT state::text AS state, version, status, seats_present, deadline_at FROM game_tables WHERE id = $1',
      tableId,
    );
    const log = await prisma.$queryRawUnsafe<{ seq: bigint; kind: string; intent_id: string | null }[]>(
      'SELECT seq, kind, intent_id FROM table_actions WHERE table_id = $1 ORDER BY seq',
      tableId,
    );
    const seats = await prisma.$queryRawUnsafe<{ seat: number; name: string }[]>(
      'SELECT seat, name FROM table_seats WHERE table_id = $1 ORDER BY seat',
      tableId,
    );
    const counts = await prisma.$queryRawUnsafe<{ matches: number; rounds: number }[]>(
      'SELECT (SELECT count(*)::int FROM matches WHERE table_id = $1) AS matches, (SELECT count(*)::int FROM rounds WHERE table_id = $1) AS rounds',
      tableId,
    );
    return { table, log, seats, counts: counts[0] };
  }

  /** Counts the statements of the batch kind and of the one-change kind that reach Postgres. */
  function counting(target: TableQueries) {
    const counts = { batches: 0, alone: 0, sizes: [] as number[] };
    const appendBatch = target.appendBatch.bind(target);
    const append = target.append.bind(target);
    target.appendBatch = (changes) => {
      counts.batches += 1;
      counts.sizes.push(changes.length);
      return appendBatch(changes);
    };
    target.append = (c) => {
      counts.alone += 1;
      return append(c);
    };
    return counts;
  }

  it('changes of many tables asked for in one turn are stored by one statement, each exactly as one change alone stores it', async () => {
    const alone = await openTable();
    expect(await queries.append(change(alone, 0, 'a-0', 1))).toBe('stored');
    const tables = await Promise.all(Array.from({ length: 20 }, () => openTable()));
    const batched = new TableQueries(prisma);
    const counts = counting(batched);
    const batches = new ChangeBatches(batched, { maxBatch: 64, maxInFlight: 1 });
    const outcomes = await Promise.all(tables.map((id, i) => batches.append(change(id, 0, `b-${i}`, 1))));
    expect(outcomes).toEqual(tables.map(() => 'stored'));
    expect(counts).toEqual({ batches: 1, alone: 0, sizes: [20] });
    const reference = await storedRows(alone);
    for (const [i, id] of tables.entries()) {
      const rows = await storedRows(id);
      expect(rows.table).toEqual({ ...reference.table, state: change(id, 0, `b-${i}`, 1).state });
      expect(rows.log).toEqual(reference.log.map((r) => ({ ...r, intent_id: r.intent_id && `b-${i}` })));
      expect(rows.seats).toEqual(reference.seats);
      expect(rows.counts).toEqual({ matches: 1, rounds: 1 });
      expect(JSON.parse(rows.table!.state)).toEqual(JSON.parse(change(id, 0, `b-${i}`, 1).state!));
    }
  });

  it('in one statement, a change without its snapshot (decision 0040) keeps the stored one and its version, and its state change is on its last log row; the change beside it is stored whole', async () => {
    const [kept, whole] = await Promise.all([openTable(), openTable()]);
    await queries.append(change(kept!, 0, 'k-0', 0));
    await queries.append(change(whole!, 0, 'w-0', 0));
    const stateChange = { from: 2, to: 4, ops: [{ set: ['name'], to: 'changed' }] };
    const withoutSnapshot = change(kept!, 2, 'k-2', 1);
    const batches = new ChangeBatches(queries, { maxBatch: 64, maxInFlight: 1 });
    const outcomes = await Promise.all([
      batches.append({
        ...withoutSnapshot,
        state: null,
        log: withoutSnapshot.log.map((row, i) => ({ ...row, state_change: i === 1 ? stateChange : null })),
      }),
      batches.append(change(whole!, 2, 'w-2', 1)),
    ]);
    expect(outcomes).toEqual(['stored', 'stored']);
    const keptSnapshot = await queries.snapshot(kept!, 10);
    expect(keptSnapshot).toMatchObject({ version: 4n, stateVersion: 2n, stateChanges: [stateChange] });
    expect(keptSnapshot!.state).toEqual(JSON.parse(change(kept!, 0, 'k-0', 0).state!));
    const wholeSnapshot = await queries.snapshot(whole!, 10);
    expect(wholeSnapshot).toMatchObject({ version: 4n, stateVersion: 4n, stateChanges: [] });
    expect(wholeSnapshot!.state).toEqual(JSON.parse(change(whole!, 2, 'w-2', 1).state!));
  });

  it('in one statement, a stale version and an expired change write nothing of themselves and the others are stored', async () => {
    const [a, stale, expired, b] = await Promise.all([openTable(), openTable(), openTable(), openTable()]);
    const counts = counting(queries);
    const batches = new ChangeBatches(queries, { maxBatch: 64, maxInFlight: 1 });
    const outcomes = await Promise.all([
      batches.append(change(a!, 0, 's-a', 0)),
      batches.append(change(stale!, 5, 's-stale', 0)),
      batches.append({ ...change(expired!, 0, 's-expired', 0), expiresAt: new Date(Date.now() - 1000) }),
      batches.append(change(b!, 0, 's-b', 0)),
    ]);
    expect(outcomes).toEqual<ChangeOutcome[]>(['stored', 'not-written', 'not-written', 'stored']);
    expect(counts.sizes).toEqual([4]);
    for (const id of [stale!, expired!]) {
      const rows = await storedRows(id);
      expect(rows.table!.version).toBe(0n);
      expect(rows.log).toEqual([]);
      expect(rows.seats).toEqual([]);
      expect(rows.counts).toEqual({ matches: 0, rounds: 0 });
    }
    expect((await storedRows(b!)).table!.version).toBe(2n);
  });

  it('an intent id stored before fails the statement; its changes are then stored one by one: that one is a duplicate, the others stored', async () => {
    const [a, dup, b] = await Promise.all([openTable(), openTable(), openTable()]);
    expect(await queries.append(change(dup!, 0, 'd-dup', 0))).toBe('stored');
    const counts = counting(queries);
    const batches = new ChangeBatches(queries, { maxBatch: 64, maxInFlight: 1 });
    const outcomes = await Promise.all([
      batches.append(change(a!, 0, 'd-a', 0)),
      batches.append(change(dup!, 2, 'd-dup', 1)),
      batches.append(change(b!, 0, 'd-b', 0)),
    ]);
    expect(outcomes).toEqual<ChangeOutcome[]>(['stored', 'duplicate', 'stored']);
    expect(counts).toMatchObject({ batches: 1, alone: 3 });
    expect((await storedRows(dup!)).table!.version).toBe(2n);
  });

  it("a table's second change waits for its first (never two of one table in a statement), and a batch holds at most maxBatch", async () => {
    const tables = await Promise.all(Array.from({ length: 5 }, () => openTable()));
    const counts = counting(queries);
    const batches = new ChangeBatches(queries, { maxBatch: 3, maxInFlight: 1 });
    const first = tables.map((id, i) => batches.append(change(id, 0, `w-${i}`, 0)));
    // Asked before the first is stored, fenced on its version: stored only if it runs after it.
    const second = batches.append({
      ...change(tables[0]!, 2, 'w-again', 1),
      log: change(tables[0]!, 2, 'w-again', 1).log,
    });
    expect(await Promise.all([...first, second])).toEqual([
      'stored',
      'stored',
      'stored',
      'stored',
      'stored',
      'stored',
    ]);
    expect(counts.sizes.every((n) => n <= 3)).toBe(true);
    expect((await storedRows(tables[0]!)).table!.version).toBe(4n);
    expect(batches.waiting).toBe(0);
  });

  it("a statement that fails without a refusal from Postgres (its outcome unknown) is every change's error, and is not tried again", async () => {
    const [a, b] = await Promise.all([openTable(), openTable()]);
    const broken = new TableQueries(prisma);
    const counts = counting(broken);
    const lost = new Error('Connection terminated unexpectedly');
    broken.appendBatch = () => Promise.reject(lost);
    const batches = new ChangeBatches(broken, { maxBatch: 64, maxInFlight: 1 });
    const outcomes = await Promise.allSettled([
      batches.append(change(a!, 0, 'u-a', 0)),
      batches.append(change(b!, 0, 'u-b', 0)),
    ]);
    expect(outcomes).toEqual([
      { status: 'rejected', reason: lost },
      { status: 'rejected', reason: lost },
    ]);
    expect(counts.alone).toBe(0);
  });
});

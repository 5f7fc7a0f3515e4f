import { createPrisma, ShardDatabases, type PrismaClient } from '@dominoes/platform';
import { shardOf } from '@dominoes/protocol';
import type { MatchConfig, RoundResult, Tile } from '@dominoes/rules';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import type { TableEvent } from '../src/table/table-events';
import { openTable } from '../src/table/table-policy';
import { DuplicateIntentError, IntentExpiredError, StaleWriteError } from '../src/table/table-ports';
import type { Deadline, TableState } from '../src/table/table-state';
import { TableStore } from '../src/table/table-store';
import { applyStored, deadlineOf, openDrawFor } from './support/store-steps';

/*
 * What TableStore writes for a table's state and events: the game_tables row's columns, the log's
 * rows, and the side tables (table_seats, matches, rounds) that the history pages and the lobby read.
 * The store is a mapper, so most cases here hand it a state and events and read the rows back.
 */
describe('the rows the table store writes, on a real Postgres', () => {
  let stores: TestStores;
  let other: TestStores;
  let prisma: PrismaClient;
  let store: TableStore;

  beforeAll(async () => {
    [stores, other] = await Promise.all([createTestStores('store_rows'), createTestStores('store_rows_b')]);
    prisma = createPrisma(stores.databaseUrl, 2);
    store = new TableStore(prisma);
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await Promise.all([stores?.dispose(), other?.dispose()]);
  });

  const uuid = (n: number) => `00000000-0000-4000-8000-0000000002${String(n).padStart(2, '0')}`;
  const limits = { maxOpenTablesPerHost: 10 };
  const row = (id: string, db = prisma) => db.gameTable.findUniqueOrThrow({ where: { id } });
  /** Table `id` opened for uuid(0) (a 3-seat draw game opened at 1 000, its host on socket gw:1). */
  const opened = (id: string, config: Parameters<typeof openTable>[2] = { variant: 'draw', seats: 3 }) => {
    const o = openTable(id, { id: uuid(0), name: 'Host' }, config, 'gw:1', {
      now: 1_000,
      waitingTableTtlMs: 60_000,
    });
    if (!o.ok) throw new Error(o.message);
    return o;
  };
  const createOpened = (id: string) => {
    const o = opened(id);
    return store.create(o.table, o.events, null, limits);
  };
  /** Stores `events` as one change of table `id` whose state becomes `change(before)`. */
  async function change(
    id: string,
    events: TableEvent[],
    next: (before: TableState) => TableState = (t) => t,
    intentId: string | null = null,
  ): Promise<TableState> {
    const before = (await store.load(id))!;
    await store.append(before, next(before), events, intentId);
    return (await store.load(id))!;
  }
  const matches = (tableId: string) =>
    prisma.match.findMany({ where: { tableId }, orderBy: { number: 'asc' } });
  const rounds = (tableId: string) =>
    prisma.round.findMany({ where: { tableId }, orderBy: [{ matchNumber: 'asc' }, { number: 'asc' }] });

  it("create stores the table's row from its state (settings, host, status, chat off, public, seats present, the expiry as deadline_at) and returns it at its events' version with the opening intent", async () => {
    const o = opened('ROWS01', { variant: 'draw', seats: 3, chat: false, public: true });
    const stored = await store.create(o.table, o.events, 'ROWS01:create', limits);
    expect(stored).toMatchObject({ id: 'ROWS01', version: 2, recentIntents: ['ROWS01:create'] });
    expect(await row('ROWS01')).toMatchObject({
      variant: 'draw',
      seatCount: 3,
      target: o.table.target,
      oneRound: o.table.oneRound,
      hostPlayerId: uuid(0),
      status: 'waiting',
      version: 2n,
      chat: false,
      isPublic: true,
      seatsPresent: 1,
      deadlineAt: new Date(61_000),
    });
    expect(await store.load('ROWS01')).toMatchObject({ version: 2, recentIntents: ['ROWS01:create'] });
  });

  it('create of a table stored before chat and the lobby (no chat or public key): chat on, private; no intent id: no recent intents; an away seat is not present; no deadline: deadline_at null', async () => {
    const o = opened('ROWS02');
    const { chat: _chat, public: _public, ...older } = o.table;
    const table: TableState = {
      ...older,
      seats: [{ ...o.table.seats[0]!, connections: [], away: true }, null, null],
      deadline: null,
    };
    expect(await store.create(table, o.events, null, limits)).toMatchObject({
      version: 2,
      recentIntents: [],
    });
    expect(await row('ROWS02')).toMatchObject({
      chat: true,
      isPublic: false,
      seatsPresent: 0,
      deadlineAt: null,
    });
    expect((await store.load('ROWS02'))!.recentIntents).toEqual([]);
  });

  it("create writes the table's row before its log: when the log's write fails, the row left is the table at version 0, with its status, seats present and expiry (it still expires)", async () => {
    const o = opened('ROWS12');
    // A round of a match that was never stored: its row breaks the rounds' foreign key.
    const orphan: TableEvent = {
      kind: 'round-ended',
      matchNumber: 9,
      roundNumber: 1,
      payload: { result: roundResult(1), scores: [0, 1, 0], opener: 0 },
    };
    await expect(store.create(o.table, [...o.events, orphan], 'ROWS12:create', limits)).rejects.toThrow();
    expect(await row('ROWS12')).toMatchObject({
      status: 'waiting',
      version: 0n,
      seatsPresent: 1,
      deadlineAt: new Date(61_000),
    });
    expect(await store.load('ROWS12')).toEqual({ ...o.table, version: 0, recentIntents: [] });
    // The snapshot the insert wrote: version 0 and no intent ids of its own (decision 0022).
    const [snapshot] = await prisma.$queryRawUnsafe<{ state: TableState }[]>(
      "select state from game_tables where id = 'ROWS12'",
    );
    expect(snapshot!.state).toMatchObject({ version: 0, recentIntents: [] });
    expect(await prisma.tableAction.count({ where: { tableId: 'ROWS12' } })).toBe(0);
  });

  it('create refuses a table with no host, and stores nothing of it', async () => {
    const o = opened('ROWS03');
    await expect(store.create({ ...o.table, hostPlayerId: null }, o.events, 'x', limits)).rejects.toThrow(
      'Table ROWS03 has no host to open it.',
    );
    expect(await store.load('ROWS03')).toBeNull();
  });

  it("each event of a change is one log row numbered on from the version before, with its kind, seat, match, round and payload; the change's intent id is on its first row only", async () => {
    await openDrawFor(store, uuid(1), 'ROWS04', 5);
    const before = (await store.load('ROWS04'))!;
    // The second player: the seat is taken, the match starts and its first round is dealt.
    const after = await applyStored(store, 'ROWS04', {
      intentId: 'ROWS04:join',
      player: { id: uuid(2), name: 'Bea' },
      connectionId: 'gw:2',
      replyTo: null,
      sentAt: 0,
      intent: { kind: 'join' },
    });
    const rows = await prisma.tableAction.findMany({
      where: { tableId: 'ROWS04', seq: { gt: before.version } },
      orderBy: { seq: 'asc' },
    });
    expect(rows.length).toBe(after.version - before.version);
    expect(rows.map((r) => r.kind)).toEqual(
      expect.arrayContaining(['seat-taken', 'match-started', 'round-dealt']),
    );
    const seatTaken = rows.find((r) => r.kind === 'seat-taken')!;
    expect(seatTaken).toMatchObject({ seat: 1, matchNumber: null, roundNumber: null });
    expect(seatTaken.payload).toEqual({ playerId: uuid(2), name: 'Bea' });
    expect(rows.find((r) => r.kind === 'match-started')).toMatchObject({
      seat: null,
      matchNumber: 1,
      roundNumber: null,
    });
    expect(rows.find((r) => r.kind === 'round-dealt')).toMatchObject({
      seat: null,
      matchNumber: 1,
      roundNumber: 1,
    });
    expect(rows.map((r) => Number(r.seq))).toEqual(rows.map((_, i) => before.version + 1 + i));
    expect(rows.map((r) => r.intentId)).toEqual(rows.map((_, i) => (i === 0 ? 'ROWS04:join' : null)));

    // The seats' rows: who sits where, by name; the match's and its first round's rows.
    expect(
      (await prisma.tableSeat.findMany({ where: { tableId: 'ROWS04' }, orderBy: { seat: 'asc' } })).map(
        (s) => [s.seat, s.playerId, s.name],
      ),
    ).toEqual([
      [0, uuid(1), 'h'],
      [1, uuid(2), 'Bea'],
    ]);
    const dealt = rows.find((r) => r.kind === 'round-dealt')!.payload as {
      hands: unknown;
      stock: unknown;
      opener: number;
    };
    expect(await matches('ROWS04')).toMatchObject([
      {
        number: 1,
        variant: 'draw',
        target: before.target,
        oneRound: true,
        seats: [uuid(1), uuid(2)],
        scores: null,
        winnerSide: null,
        finishedAt: null,
        abandonedAt: null,
      },
    ]);
    expect(await rounds('ROWS04')).toMatchObject([
      {
        matchNumber: 1,
        number: 1,
        opener: dealt.opener,
        deal: { hands: dealt.hands, stock: dealt.stock },
        result: null,
        finishedAt: null,
      },
    ]);

    // Played to its end by the clock: the round's result and the match's scores and winner, finished.
    let table = after;
    for (let n = 0; table.status === 'playing' && n < 200; n++)
      table = await applyStored(store, 'ROWS04', deadlineOf(table, n), 1_000 * n);
    expect(table.status).toBe('finished');
    const log = await prisma.tableAction.findMany({ where: { tableId: 'ROWS04' }, orderBy: { seq: 'asc' } });
    const ended = log.find((r) => r.kind === 'round-ended')!.payload as { result: unknown };
    const result = (
      log.find((r) => r.kind === 'match-ended')!.payload as {
        result: { scores: number[]; winnerSide: number | null };
      }
    ).result;
    const [round] = await rounds('ROWS04');
    expect(round).toMatchObject({ opener: dealt.opener, result: ended.result });
    expect(round!.finishedAt).toBeInstanceOf(Date);
    const [match] = await matches('ROWS04');
    expect(match).toMatchObject({ scores: result.scores, winnerSide: result.winnerSide, abandonedAt: null });
    expect(match!.finishedAt).toBeInstanceOf(Date);
  });

  it("a player who leaves a waiting table: the seat's row is deleted, the other seats' kept", async () => {
    await createOpened('ROWS05');
    const bea = { id: uuid(4), name: 'Bea' };
    const step = (intentId: string, kind: 'join' | 'leave') =>
      applyStored(store, 'ROWS05', {
        intentId,
        player: bea,
        connectionId: null,
        replyTo: null,
        sentAt: 0,
        intent: { kind },
      });
    await step('ROWS05:join', 'join');
    const seats = () => prisma.tableSeat.findMany({ where: { tableId: 'ROWS05' }, orderBy: { seat: 'asc' } });
    expect((await seats()).map((s) => [s.playerId, s.name])).toEqual([
      [uuid(0), 'Host'],
      [uuid(4), 'Bea'],
    ]);
    await step('ROWS05:leave', 'leave');
    expect((await seats()).map((s) => s.playerId)).toEqual([uuid(0)]);
  });

  const config: MatchConfig = { variant: 'draw', seats: 3, target: 100, oneRound: false };
  const hands: Tile[][] = [[[0, 1]], [[2, 3]], [[4, 5]]];
  const stock: Tile[] = [[6, 6]];
  const roundResult = (points: number) =>
    ({ winnerSide: 1, points, blocked: false }) as unknown as RoundResult;
  const dealt = (round: number, opener: number): TableEvent => ({
    kind: 'round-dealt',
    matchNumber: 1,
    roundNumber: round,
    payload: { hands, stock, opener, redeals: 0 },
  });
  const roundEnded = (round: number, points: number, opener: number): TableEvent => ({
    kind: 'round-ended',
    matchNumber: 1,
    roundNumber: round,
    payload: { result: roundResult(points), scores: [0, points, 0], opener },
  });

  it("the rounds' rows: a round dealt and one ended in the same change are two rows; a round dealt and ended in one change is one row; a round ended with no row yet takes the opener from its end; a match started and ended in one change is one finished row", async () => {
    await createOpened('ROWS06');
    const started: TableEvent = {
      kind: 'match-started',
      matchNumber: 1,
      payload: { config, players: [uuid(0)] },
    };
    await change('ROWS06', [started, dealt(1, 2)]);
    await change('ROWS06', [roundEnded(1, 7, 2), dealt(2, 0)]);
    await change('ROWS06', [dealt(3, 1), roundEnded(3, 9, 1)]);
    await change('ROWS06', [roundEnded(4, 11, 2)]);
    const stored = await rounds('ROWS06');
    expect(stored.map((r) => [r.number, r.opener, r.deal, r.result, r.finishedAt !== null])).toEqual([
      [1, 2, { hands, stock }, roundResult(7), true],
      [2, 0, { hands, stock }, null, false],
      [3, 1, { hands, stock }, roundResult(9), true],
      [4, 2, null, roundResult(11), true],
    ]);
    expect((await matches('ROWS06'))[0]).toMatchObject({ finishedAt: null, scores: null });

    await createOpened('ROWS07');
    const whole: TableEvent[] = [
      { ...started },
      {
        kind: 'match-ended',
        matchNumber: 1,
        payload: { result: { finished: true, winnerSide: 2, scores: [1, 2, 3] } },
      },
    ];
    await change('ROWS07', whole);
    const [match] = await matches('ROWS07');
    expect(match).toMatchObject({ number: 1, scores: [1, 2, 3], winnerSide: 2, abandonedAt: null });
    expect(match!.finishedAt).toBeInstanceOf(Date);
  });

  it("an abandoned match (decision 0017) is stored with the scores it stopped at, no winner, abandoned_at set and finished_at left null; its seats are the table's, an empty seat as null", async () => {
    const o = opened('ROWS08');
    await store.create(o.table, o.events, null, limits);
    await change('ROWS08', [
      { kind: 'match-started', matchNumber: 1, payload: { config, players: [uuid(0)] } },
      { kind: 'match-abandoned', matchNumber: 1, payload: { scores: [4, 5, 6], at: 9_000 } },
    ]);
    const [match] = await matches('ROWS08');
    expect(match).toMatchObject({
      seats: [uuid(0), null, null],
      scores: [4, 5, 6],
      winnerSide: null,
      finishedAt: null,
      variant: 'draw',
      target: o.table.target,
      oneRound: o.table.oneRound,
    });
    expect(match!.abandonedAt).toBeInstanceOf(Date);
  });

  it("a change stores the state's status, deadline as deadline_at, seats present and version; a null host keeps the stored one, another host replaces it", async () => {
    const o = opened('ROWS09');
    await store.create(o.table, o.events, null, limits);
    const deadline: Deadline = { kind: 'turn', at: 123_456, key: 'turn:1', seat: 1 };
    const bea = { playerId: uuid(5), name: 'Bea', connections: [], autoPass: false, arrival: 2 };
    const first = await change(
      'ROWS09',
      [{ kind: 'host-changed', payload: { hostPlayerId: null } }],
      (t) => ({
        ...t,
        status: 'playing',
        deadline,
        hostPlayerId: null,
        seats: [t.seats[0]!, bea, { ...bea, away: true }],
      }),
    );
    expect(first).toMatchObject({ version: 3, status: 'playing', deadline, hostPlayerId: null });
    expect(await row('ROWS09')).toMatchObject({
      status: 'playing',
      version: 3n,
      deadlineAt: new Date(123_456),
      seatsPresent: 2,
      hostPlayerId: uuid(0),
    });
    await change('ROWS09', [], (t) => ({ ...t, status: 'finished', deadline: null, hostPlayerId: uuid(5) }));
    expect(await row('ROWS09')).toMatchObject({
      status: 'finished',
      version: 3n,
      deadlineAt: null,
      hostPlayerId: uuid(5),
    });
  });

  it('a refused change says why: a stale version (the table and version named), an intent id stored already (named), an expiry passed before the write (the intent named, also with no id); an expiry still ahead is stored', async () => {
    const o = opened('ROWS10');
    await store.create(o.table, o.events, 'ROWS10:create', limits);
    const table = (await store.load('ROWS10'))!;
    const presence = (connected: boolean): TableEvent => ({
      kind: 'presence',
      seat: 0,
      payload: { connected, connections: 0 },
    });
    const stale = { ...table, version: 1 };
    await expect(store.append(stale, stale, [presence(false)], 'p1')).rejects.toThrow(
      new StaleWriteError('ROWS10', 1),
    );
    await expect(store.append(stale, stale, [presence(false)], 'p1')).rejects.toThrow(
      'Table ROWS10 is no longer at version 1: another replica wrote it.',
    );
    await expect(store.append(table, table, [presence(false)], 'ROWS10:create')).rejects.toThrow(
      new DuplicateIntentError('ROWS10:create'),
    );
    const expired = store.append(table, table, [presence(false)], 'late', Date.now() - 1_000);
    await expect(expired).rejects.toBeInstanceOf(IntentExpiredError);
    await expect(expired).rejects.toMatchObject({ intentId: 'late' });
    await expect(
      store.append(table, table, [presence(false)], null, Date.now() - 1_000),
    ).rejects.toMatchObject({
      name: 'IntentExpiredError',
      intentId: '',
    });
    // A stale version with an expiry still ahead is stale, not expired.
    await expect(
      store.append(stale, stale, [presence(false)], 'p2', Date.now() + 60_000),
    ).rejects.toBeInstanceOf(StaleWriteError);
    await store.append(table, table, [presence(true)], 'in-time', Date.now() + 60_000);
    expect(await store.load('ROWS10')).toMatchObject({
      version: 3,
      recentIntents: ['ROWS10:create', 'in-time'],
    });
  });

  it("a closed table is archivable once idle since the time asked for, and archived (gone from the tables) only then; an open table's deadline is found with it", async () => {
    const o = opened('ROWS11');
    await store.create(o.table, o.events, null, limits);
    expect(await store.openTableDeadlines([shardOf('ROWS11', 16)], 16)).toContainEqual({
      id: 'ROWS11',
      deadline: o.table.deadline,
    });
    await change('ROWS11', [], (t) => ({ ...t, status: 'closed', deadline: null }));
    const past = Date.now() - 3_600_000;
    const ahead = Date.now() + 60_000;
    expect(await store.archivableTableIds(0, past, 100)).not.toContain('ROWS11');
    expect(await store.archivableTableIds(0, ahead, 100)).toContain('ROWS11');
    expect(await store.archiveTable('ROWS11', past)).toBe(false);
    expect(await store.load('ROWS11')).not.toBeNull();
    expect(await store.archiveTable('ROWS11', ahead)).toBe(true);
    expect(await store.load('ROWS11')).toBeNull();
  });

  it('over two databases (decision 0027): each table is written to and read from the database of its shard, which databaseOfShard names', async () => {
    const map = {
      databaseUrls: [stores.databaseUrl, other.databaseUrl],
      databaseOfShard: Array.from({ length: 16 }, (_, s) => s % 2),
    };
    const databases = new ShardDatabases(map, (url) => createPrisma(url, 2));
    try {
      const sharded = new TableStore(databases);
      expect(sharded.databases).toBe(2);
      expect([0, 1, 2, 3].map((s) => sharded.databaseOfShard(s))).toEqual([0, 1, 0, 1]);
      expect(store.databases).toBe(1);
      expect(store.databaseOfShard(3)).toBe(0);
      // A table code of each database.
      const codes = Array.from({ length: 40 }, (_, i) => `TWO${String(i).padStart(3, '0')}`);
      const inFirst = codes.find((c) => shardOf(c, 16) % 2 === 0)!;
      const inSecond = codes.find((c) => shardOf(c, 16) % 2 === 1)!;
      for (const id of [inFirst, inSecond]) await openDrawFor(sharded, uuid(6), id, 5);
      expect((await sharded.load(inFirst))?.id).toBe(inFirst);
      expect((await sharded.load(inSecond))?.id).toBe(inSecond);
      expect(await databases.all[0]!.gameTable.count({ where: { id: { in: [inFirst, inSecond] } } })).toBe(1);
      expect((await row(inSecond, databases.all[1]!)).hostPlayerId).toBe(uuid(6));
    } finally {
      await databases.disconnect();
    }
  });
});

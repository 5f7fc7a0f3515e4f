import {
  ShardDatabases,
  ShardedTableQueries,
  type LogRow,
  type MatchRow,
  type PrismaClient,
  type RoundRow,
  type SeatRow,
  type StoredStateChange,
  type TableChange,
} from '@dominoes/platform';
import { eventMatch, eventRound, eventSeat, type TableEvent } from './table-events';
import {
  DuplicateIntentError,
  IntentExpiredError,
  StaleWriteError,
  TooManyTablesError,
  type TableRepository,
} from './table-ports';
import { restoredState, storedState } from './stored-state';
import { isPresent, RECENT_INTENTS_KEPT, type Deadline, type TableState } from './table-state';

function logRows(
  events: readonly TableEvent[],
  fromVersion: number,
  intentId: string | null,
  stateChange: StoredStateChange | null,
): LogRow[] {
  return events.map((event, i) => ({
    seq: fromVersion + i + 1,
    kind: event.kind,
    seat: eventSeat(event),
    match_number: eventMatch(event),
    round_number: eventRound(event),
    payload: event.payload,
    // The intent id goes on its first row: the unique (table_id, intent_id) stops a second apply.
    intent_id: i === 0 ? intentId : null,
    // The state change goes on its last row (decision 0040): load reads them by seq after the snapshot's.
    state_change: i === events.length - 1 ? stateChange : null,
  }));
}

/** The relational rows (seats, matches, rounds) that the events of one change touch, merged per key. */
function sideRows(table: TableState, events: readonly TableEvent[]) {
  const seatsTaken: SeatRow[] = [];
  const seatsFreed: number[] = [];
  const matches = new Map<number, MatchRow>();
  const rounds = new Map<string, RoundRow>();
  const matchRow = (n: number): MatchRow => {
    const known = matches.get(n);
    if (known) return known;
    const row: MatchRow = {
      number: n,
      variant: table.variant,
      target: table.target,
      one_round: table.oneRound,
      seats: table.seats.map((s) => s?.playerId ?? null),
      scores: null,
      winner_side: null,
      finished: false,
      abandoned: false,
    };
    matches.set(n, row);
    return row;
  };
  for (const e of events) {
    if (e.kind === 'seat-taken')
      seatsTaken.push({ seat: e.seat, player_id: e.payload.playerId, name: e.payload.name });
    if (e.kind === 'seat-freed') seatsFreed.push(e.seat);
    if (e.kind === 'match-started') matchRow(e.matchNumber);
    if (e.kind === 'match-ended') {
      Object.assign(matchRow(e.matchNumber), {
        scores: e.payload.result.scores,
        winner_side: e.payload.result.winnerSide,
        finished: true,
      });
    }
    // Abandoned (decision 0017): the scores it stopped at, no winner, finished_at left null.
    if (e.kind === 'match-abandoned')
      Object.assign(matchRow(e.matchNumber), { scores: e.payload.scores, abandoned: true });
    if (e.kind === 'round-dealt' || e.kind === 'round-ended') {
      const key = `${e.matchNumber}.${e.roundNumber}`;
      const row: RoundRow = rounds.get(key) ?? {
        match_number: e.matchNumber,
        number: e.roundNumber,
        opener: null,
        deal: null,
        result: null,
        finished: false,
      };
      if (e.kind === 'round-dealt')
        Object.assign(row, {
          opener: e.payload.opener,
          deal: { hands: e.payload.hands, stock: e.payload.stock },
        });
      else
        Object.assign(row, {
          result: e.payload.result,
          finished: true,
          opener: row.opener ?? e.payload.opener,
        });
      rounds.set(key, row);
    }
  }
  return { seatsTaken, seatsFreed, matches: [...matches.values()], rounds: [...rounds.values()] };
}

const deadlineAt = (table: TableState): Date | null => (table.deadline ? new Date(table.deadline.at) : null);

/** The row's seats_present (decision 0026), stored with every change: the lobby filters on it. */
const seatsPresent = (table: TableState): number => table.seats.filter(isPresent).length;

/**
 * Tables in Postgres, through libs/platform's store (TableQueries, the one owner of the schema's
 * queries): this maps a table's state and events to its rows, and the outcomes to the engine's errors.
 * Split by shard (decision 0027), each table's rows are read and written in its shard's database
 * (ShardedTableQueries); a PrismaClient given alone is one database holding every shard.
 */
export class TableStore implements TableRepository {
  private readonly queries: ShardedTableQueries;

  constructor(databases: ShardDatabases | PrismaClient) {
    this.queries = new ShardedTableQueries(
      databases instanceof ShardDatabases ? databases : ShardDatabases.single(databases),
    );
  }

  /** How many databases the tables are in (the archiver runs on each). */
  get databases(): number {
    return this.queries.each.length;
  }

  /** The database (index in DATABASE_URLS) that holds shard `shard`'s tables. */
  databaseOfShard(shard: number): number {
    return this.queries.databases.indexOfShard(shard);
  }

  async load(tableId: string): Promise<TableState | null> {
    const row = await this.queries.snapshot(tableId, RECENT_INTENTS_KEPT);
    if (!row) return null;
    const version = Number(row.version);
    const state = restoredState(
      tableId,
      row.state,
      Number(row.stateVersion),
      version,
      row.stateChanges,
    ) as TableState;
    // The intent ids come from the log (snapshots written before decision 0022 still hold their own).
    return { ...state, version, recentIntents: row.recentIntents };
  }

  async create(
    table: TableState,
    events: readonly TableEvent[],
    intentId: string | null,
    limits: { readonly maxOpenTablesPerHost: number },
  ): Promise<TableState | null> {
    if (table.hostPlayerId === null) throw new Error(`Table ${table.id} has no host to open it.`);
    const empty: TableState = { ...table, version: 0, recentIntents: [] };
    const stored: TableState = {
      ...table,
      version: events.length,
      recentIntents: intentId ? [intentId] : [],
    };
    const outcome = await this.queries.insertTable(
      {
        id: table.id,
        variant: table.variant,
        seatCount: table.seatCount,
        target: table.target,
        oneRound: table.oneRound,
        chat: table.chat !== false,
        hostPlayerId: table.hostPlayerId,
        status: table.status,
        isPublic: table.public === true,
        state: JSON.stringify(empty),
        seatsPresent: seatsPresent(table),
        // With the row: a crash before the log is written still leaves a table that expires.
        deadlineAt: deadlineAt(table),
      },
      limits.maxOpenTablesPerHost,
    );
    if (!outcome.inserted) {
      if (outcome.open >= limits.maxOpenTablesPerHost)
        throw new TooManyTablesError(outcome.open, limits.maxOpenTablesPerHost);
      return null;
    }
    // The table row exists now: the log and seats follow as an ordinary fenced change from version 0.
    await this.append(empty, stored, events, intentId);
    return stored;
  }

  /**
   * Fenced on `before.version` and, when `expiresAt` is given, on Postgres's own clock being before it
   * at the moment the row is written (after any lock wait): an intent whose sender was told "not
   * applied" is never stored.
   */
  async append(
    before: TableState,
    after: TableState,
    events: readonly TableEvent[],
    intentId: string | null,
    expiresAt?: number,
  ): Promise<void> {
    const version = before.version + events.length;
    // Whole, or as its change on the last log row (decision 0040); without the intent ids either way
    // (decision 0022): they are in the log rows written with it, and load reads them from there.
    const stored = storedState(before, after, version, events.length);
    const change: TableChange = {
      tableId: after.id,
      expectedVersion: before.version,
      version,
      state: stored.whole,
      status: after.status,
      deadlineAt: deadlineAt(after),
      seatsPresent: seatsPresent(after),
      hostPlayerId: after.hostPlayerId,
      log: logRows(events, before.version, intentId, stored.change),
      ...sideRows(after, events),
      expiresAt: expiresAt === undefined ? null : new Date(expiresAt),
    };
    const outcome = await this.queries.append(change);
    if (outcome === 'duplicate') throw new DuplicateIntentError(intentId ?? '');
    if (outcome === 'not-written') {
      if (expiresAt !== undefined && Date.now() >= expiresAt) throw new IntentExpiredError(intentId ?? '');
      throw new StaleWriteError(after.id, before.version);
    }
  }

  /**
   * Finished or closed tables of database `database` not changed since `idleBefore` (ms), found by
   * game_tables_status_idx.
   */
  archivableTableIds(database: number, idleBefore: number, limit: number): Promise<string[]> {
    return this.queries.archivableTableIds(database, new Date(idleBefore), limit);
  }

  /** Moves one table and its whole log into the `archive` schema; false when nothing moved. */
  archiveTable(tableId: string, idleBefore: number): Promise<boolean> {
    return this.queries.archiveTable(tableId, new Date(idleBefore));
  }

  openTablesOf(hostPlayerId: string): Promise<number> {
    return this.queries.openTablesOf(hostPlayerId);
  }

  /**
   * The deadline of each open table of `shards` out of `total`, to set its job again on a takeover.
   * Where the snapshot is older than the table (decision 0040) its deadline may be an earlier one:
   * the job is then a wake-up due when the current deadline is (the row's deadline_at), under the
   * snapshot's key; a firing under a key that is not the current one sets the current deadline's job
   * (decision 0032), due at once by then.
   */
  async openTableDeadlines(
    shards: readonly number[],
    total: number,
  ): Promise<{ id: string; deadline: Deadline }[]> {
    const rows = await this.queries.openTableDeadlines(shards, total);
    return rows.map((r) => {
      const stored = r.deadline as Deadline | null;
      if (stored && !r.stale) return { id: r.id, deadline: stored };
      const wakeUp: Deadline = {
        kind: stored?.kind ?? 'turn',
        key: stored?.key ?? 'wake-up',
        seat: null,
        at: r.deadlineAt.getTime(),
      };
      return { id: r.id, deadline: wakeUp };
    });
  }
}

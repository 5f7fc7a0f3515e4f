import { directSql, type DirectSql, type Prisma, type PrismaClient } from '../db';
import type { GameTable, Match, Round, TableAction, TableSeat } from '../generated/prisma/client';
import { isUniqueViolation, type UniqueKey } from './sql-errors';

/*
 * Every query of the tables' schema (prisma/schema.prisma), for the table-service (the only writer)
 * and the gateway (reads). Row types are the Prisma models' fields; the statements are raw SQL where
 * one statement does what the query API would take several round trips for (decision 0012).
 */

/** A table counts toward its host's limit until it is finished or closed (and has a clock). */
export const OPEN_STATUSES = ['waiting', 'playing'] as const;
const OPEN_STATUS_SQL = OPEN_STATUSES.map((s) => `'${s}'`).join(', ');

/** `@@unique([tableId, intentId])` of TableAction: an intent id is stored at most once per table. */
export const INTENT_ID_KEY: UniqueKey = {
  constraint: 'table_actions_table_id_intent_id_key',
  columns: ['table_id', 'intent_id'],
};

/**
 * A table's snapshot: its state (JSON) at `stateVersion`, the state changes stored since (the table is
 * at `version` once they are applied: decision 0040), and the ids of the last intents stored in its
 * log, oldest first (the snapshot does not carry them: decision 0022).
 */
export type StoredSnapshot = Pick<GameTable, 'state' | 'version' | 'stateVersion'> & {
  readonly recentIntents: string[];
  /** The state changes stored since `stateVersion` (decision 0040), oldest first. */
  readonly stateChanges: StoredStateChange[];
};

/**
 * A change's state change (decision 0040): the JSON operations (libs/protocol's change operations)
 * that turn the table's state at version `from` into its state at version `to`.
 */
export interface StoredStateChange {
  readonly from: number;
  readonly to: number;
  readonly ops: unknown[];
}

/** A new table's row. `state` is the snapshot at version 0, as JSON text. */
export interface NewTableRow extends Pick<
  GameTable,
  | 'id'
  | 'variant'
  | 'seatCount'
  | 'target'
  | 'oneRound'
  | 'hostPlayerId'
  | 'status'
  | 'deadlineAt'
  | 'isPublic'
  | 'chat'
> {
  readonly state: string;
  /** Seats present (decision 0026): the lobby lists a waiting table only while it has one. */
  readonly seatsPresent: number;
}

/** One row of the log (table_actions), as the change's JSON recordset carries it. */
export interface LogRow {
  readonly seq: number;
  readonly kind: TableAction['kind'];
  readonly seat: TableAction['seat'];
  readonly match_number: TableAction['matchNumber'];
  readonly round_number: TableAction['roundNumber'];
  readonly payload: unknown;
  readonly intent_id: TableAction['intentId'];
  /** On the change's last row when the snapshot is not written whole (decision 0040). */
  readonly state_change?: StoredStateChange | null;
}

export interface SeatRow {
  readonly seat: TableSeat['seat'];
  readonly player_id: TableSeat['playerId'];
  readonly name: TableSeat['name'];
}

/** A match's row; `scores`, `winner_side` and `finished` once it ended (null keeps what is stored). */
export interface MatchRow {
  number: Match['number'];
  variant: Match['variant'];
  target: Match['target'];
  one_round: Match['oneRound'];
  seats: (string | null)[];
  scores: unknown;
  winner_side: Match['winnerSide'];
  finished: boolean;
  /** The match ended unfinished: no seat connected for ABANDONED_TABLE_MS (sets abandoned_at). */
  abandoned: boolean;
}

/** A round's row; `deal` when it was dealt, `result` and `finished` once it ended. */
export interface RoundRow {
  match_number: Round['matchNumber'];
  number: Round['number'];
  opener: Round['opener'] | null;
  deal: unknown;
  result: unknown;
  finished: boolean;
}

/** One change of a table: its snapshot row, fenced on `expectedVersion`, with the rows it adds. */
export interface TableChange extends Pick<GameTable, 'status' | 'deadlineAt'> {
  readonly tableId: GameTable['id'];
  readonly expectedVersion: number;
  readonly version: number;
  /**
   * The snapshot at `version`, as JSON text; null leaves the stored snapshot as it is, and the change's
   * state change is on its last log row (decision 0040).
   */
  readonly state: string | null;
  /** Seats present after the change (decision 0026: seated, and connected or not yet connected). */
  readonly seatsPresent: number;
  /** Null keeps the stored host. */
  readonly hostPlayerId: GameTable['hostPlayerId'] | null;
  readonly log: readonly LogRow[];
  readonly seatsFreed: readonly number[];
  readonly seatsTaken: readonly SeatRow[];
  readonly matches: readonly MatchRow[];
  readonly rounds: readonly RoundRow[];
  /** Stored only while Postgres's own clock is before it (after any lock wait). */
  readonly expiresAt: Date | null;
}

/** `stored`; `not-written` (another version is stored, or the expiry passed); `duplicate` (intent id). */
export type ChangeOutcome = 'stored' | 'not-written' | 'duplicate';

/** An open table's deadline as stored (TableQueries.openTableDeadlines). */
export interface OpenTableDeadline {
  readonly id: string;
  /** The snapshot's deadline (JSON): the table's own unless `stale`. */
  readonly deadline: unknown;
  /** When the table's current deadline is due (its row's deadline_at). */
  readonly deadlineAt: Date;
  /** The snapshot is older than the table (decision 0040): its deadline may not be the current one. */
  readonly stale: boolean;
}

/** What the gateway shows of a table. */
export interface TableSummaryRow extends Pick<
  GameTable,
  'id' | 'variant' | 'seatCount' | 'target' | 'oneRound' | 'status'
> {
  readonly seats: Pick<TableSeat, 'seat' | 'name'>[];
}

/*
 * One statement per change: the fenced snapshot update, the log rows and the side rows all hang off
 * the UPDATE's RETURNING, so when the version check fails nothing at all is written. One round trip.
 */
const APPEND_SQL = `
WITH t AS (
  UPDATE game_tables
     SET state = COALESCE($2::json, state), state_version = CASE WHEN $2::json IS NULL THEN state_version ELSE $3 END, version = $3, status = $4, deadline_at = $5::timestamptz, host_player_id = COALESCE($6::uuid, host_player_id), seats_present = $14, updated_at = now()
   WHERE id = $1 AND version = $7 AND ($13::timestamptz IS NULL OR clock_timestamp() < $13::timestamptz)
  RETURNING id
), log AS (
  INSERT INTO table_actions (table_id, seq, kind, seat, match_number, round_number, payload, intent_id, state_change)
  SELECT t.id, x.seq, x.kind, x.seat, x.match_number, x.round_number, x.payload, x.intent_id, x.state_change
    FROM t, jsonb_to_recordset($8::jsonb) AS x(seq bigint, kind text, seat int, match_number int, round_number int, payload jsonb, intent_id text, state_change json)
), freed AS (
  DELETE FROM table_seats s USING t WHERE s.table_id = t.id AND s.seat = ANY($9::int[])
), taken AS (
  INSERT INTO table_seats (table_id, seat, player_id, name)
  SELECT t.id, x.seat, x.player_id, x.name FROM t, jsonb_to_recordset($10::jsonb) AS x(seat int, player_id uuid, name text)
  ON CONFLICT (table_id, seat) DO UPDATE SET player_id = EXCLUDED.player_id, name = EXCLUDED.name, joined_at = now()
), m AS (
  INSERT INTO matches (table_id, number, variant, target, one_round, seats, scores, winner_side, finished_at, abandoned_at)
  SELECT t.id, x.number, x.variant, x.target, x.one_round, x.seats, x.scores, x.winner_side, CASE WHEN x.finished THEN now() END, CASE WHEN x.abandoned THEN now() END
    FROM t, jsonb_to_recordset($11::jsonb) AS x(number int, variant text, target int, one_round boolean, seats jsonb, scores jsonb, winner_side int, finished boolean, abandoned boolean)
  ON CONFLICT (table_id, number) DO UPDATE
     SET scores = COALESCE(EXCLUDED.scores, matches.scores), winner_side = COALESCE(EXCLUDED.winner_side, matches.winner_side),
         finished_at = COALESCE(EXCLUDED.finished_at, matches.finished_at), abandoned_at = COALESCE(EXCLUDED.abandoned_at, matches.abandoned_at)
), r AS (
  INSERT INTO rounds (table_id, match_number, number, opener, deal, result, finished_at)
  SELECT t.id, x.match_number, x.number, x.opener, COALESCE(x.deal, 'null'::jsonb), x.result, CASE WHEN x.finished THEN now() END
    FROM t, jsonb_to_recordset($12::jsonb) AS x(match_number int, number int, opener int, deal jsonb, result jsonb, finished boolean)
  ON CONFLICT (table_id, match_number, number) DO UPDATE
     SET result = COALESCE(EXCLUDED.result, rounds.result), finished_at = COALESCE(EXCLUDED.finished_at, rounds.finished_at)
)
SELECT count(*)::int AS updated FROM t`;

/*
 * Several tables' changes in one statement (ChangeBatches): APPEND_SQL with one row of `c` per change,
 * each UPDATE fenced on its own expected version and expiry, and each table's rows hung off its own
 * line of the UPDATE's RETURNING. The ids returned are the changes stored; a change not among them
 * wrote nothing. Per-table columns are arrays ($1, $3-$9) and the snapshots one JSON array ($2, the
 * snapshots' texts joined: as a text[] every snapshot was escaped into the array literal, two regex
 * passes and four copies of ~5 KB per change: a fifth of the table-service's allocation, issue 14;
 * a JSON null keeps the stored snapshot, decision 0040), paired by position; the rows each change adds are one JSON recordset per kind, tagged with table_id.
 */
const APPEND_BATCH_SQL = `
WITH c AS (
  SELECT u.id, s.state, u.version, u.status, u.deadline_at, u.host_player_id, u.expected, u.expires_at, u.seats_present
    FROM unnest($1::text[], $3::bigint[], $4::text[], $5::timestamptz[], $6::uuid[], $7::bigint[], $8::timestamptz[], $9::int[]) WITH ORDINALITY
           AS u(id, version, status, deadline_at, host_player_id, expected, expires_at, seats_present, n)
    JOIN json_array_elements($2::json) WITH ORDINALITY AS s(state, n) USING (n)
), t AS (
  UPDATE game_tables g
     SET state = CASE WHEN json_typeof(c.state) = 'null' THEN g.state ELSE c.state END,
         state_version = CASE WHEN json_typeof(c.state) = 'null' THEN g.state_version ELSE c.version END,
         version = c.version, status = c.status, deadline_at = c.deadline_at, host_player_id = COALESCE(c.host_player_id, g.host_player_id), seats_present = c.seats_present, updated_at = now()
    FROM c
   WHERE g.id = c.id AND g.version = c.expected AND (c.expires_at IS NULL OR clock_timestamp() < c.expires_at)
  RETURNING g.id
), log AS (
  INSERT INTO table_actions (table_id, seq, kind, seat, match_number, round_number, payload, intent_id, state_change)
  SELECT t.id, x.seq, x.kind, x.seat, x.match_number, x.round_number, x.payload, x.intent_id, x.state_change
    FROM jsonb_to_recordset($10::jsonb) AS x(table_id text, seq bigint, kind text, seat int, match_number int, round_number int, payload jsonb, intent_id text, state_change json)
    JOIN t ON t.id = x.table_id
), freed AS (
  DELETE FROM table_seats s USING t, jsonb_to_recordset($11::jsonb) AS x(table_id text, seat int)
   WHERE x.table_id = t.id AND s.table_id = t.id AND s.seat = x.seat
), taken AS (
  INSERT INTO table_seats (table_id, seat, player_id, name)
  SELECT t.id, x.seat, x.player_id, x.name FROM jsonb_to_recordset($12::jsonb) AS x(table_id text, seat int, player_id uuid, name text) JOIN t ON t.id = x.table_id
  ON CONFLICT (table_id, seat) DO UPDATE SET player_id = EXCLUDED.player_id, name = EXCLUDED.name, joined_at = now()
), m AS (
  INSERT INTO matches (table_id, number, variant, target, one_round, seats, scores, winner_side, finished_at, abandoned_at)
  SELECT t.id, x.number, x.variant, x.target, x.one_round, x.seats, x.scores, x.winner_side, CASE WHEN x.finished THEN now() END, CASE WHEN x.abandoned THEN now() END
    FROM jsonb_to_recordset($13::jsonb) AS x(table_id text, number int, variant text, target int, one_round boolean, seats jsonb, scores jsonb, winner_side int, finished boolean, abandoned boolean)
    JOIN t ON t.id = x.table_id
  ON CONFLICT (table_id, number) DO UPDATE
     SET scores = COALESCE(EXCLUDED.scores, matches.scores), winner_side = COALESCE(EXCLUDED.winner_side, matches.winner_side),
         finished_at = COALESCE(EXCLUDED.finished_at, matches.finished_at), abandoned_at = COALESCE(EXCLUDED.abandoned_at, matches.abandoned_at)
), r AS (
  INSERT INTO rounds (table_id, match_number, number, opener, deal, result, finished_at)
  SELECT t.id, x.match_number, x.number, x.opener, COALESCE(x.deal, 'null'::jsonb), x.result, CASE WHEN x.finished THEN now() END
    FROM jsonb_to_recordset($14::jsonb) AS x(table_id text, match_number int, number int, opener int, deal jsonb, result jsonb, finished boolean)
    JOIN t ON t.id = x.table_id
  ON CONFLICT (table_id, match_number, number) DO UPDATE
     SET result = COALESCE(EXCLUDED.result, rounds.result), finished_at = COALESCE(EXCLUDED.finished_at, rounds.finished_at)
)
SELECT id FROM t`;

/** Each of `changes`' rows of one kind, tagged with its table's id, as one JSON array. */
function taggedRows<T>(changes: readonly TableChange[], rows: (change: TableChange) => readonly T[]): string {
  return JSON.stringify(
    changes.flatMap((change) => rows(change).map((row) => ({ table_id: change.tableId, ...row }))),
  );
}

/*
 * Opening a table, counted against its host's open tables. Run after the host's advisory lock in the
 * same transaction: under READ COMMITTED this statement's snapshot is taken after the lock, so it sees
 * every table another replica opened for this host before it, and no two openings can both see room.
 * Uses game_tables_host_open_idx.
 */
const HOST_LOCK_SQL = 'SELECT 1 AS locked FROM pg_advisory_xact_lock(1869, hashtext($1::text))';
const CREATE_SQL = `
WITH open AS (
  SELECT count(*)::int AS n FROM game_tables WHERE host_player_id = $6::uuid AND status IN (${OPEN_STATUS_SQL})
), inserted AS (
  INSERT INTO game_tables (id, variant, seat_count, target, one_round, host_player_id, status, version, state, deadline_at, is_public, chat, seats_present)
  SELECT $1::text, $2::text, $3::int, $4::int, $5::boolean, $6::uuid, $7::text, $8::bigint, $9::json, $10::timestamptz, $12::boolean, $13::boolean, $14::smallint
    FROM open WHERE open.n < $11::int
  ON CONFLICT (id) DO NOTHING RETURNING id
)
SELECT (SELECT n FROM open) AS open, (SELECT count(*)::int FROM inserted) AS inserted`;

const SUMMARY_SQL = `
  select t.id, t.variant, t.seat_count as "seatCount", t.target, t.one_round as "oneRound", t.status,
         coalesce(json_agg(json_build_object('seat', s.seat, 'name', s.name)) filter (where s.seat is not null), '[]') as seats
    from game_tables t
    left join table_seats s on s.table_id = t.id
   where t.id = $1
   group by t.id`;

const STORED_INTENT_SQL = `
  select t.version,
         (select s.seat from table_seats s where s.table_id = t.id and s.player_id = $3::uuid) as seat
    from table_actions a
    join game_tables t on t.id = a.table_id
   where a.table_id = $1 and a.intent_id = $2`;

/*
 * The snapshot with the ids of the table's last $2 intents, from the log (each stored intent's id is
 * on its first row), newest first by table_actions_pkey, then put oldest first, and the state changes
 * stored since the snapshot (decision 0040), oldest first, by the same key. One round trip.
 */
const SNAPSHOT_SQL = `
  SELECT t.state, t.version, t.state_version AS "stateVersion",
         COALESCE((SELECT json_agg(a.state_change ORDER BY a.seq)
                     FROM table_actions a
                    WHERE a.table_id = t.id AND a.seq > t.state_version AND a.state_change IS NOT NULL), '[]'::json) AS "stateChanges",
         COALESCE((SELECT json_agg(r.intent_id ORDER BY r.seq)
                     FROM (SELECT a.intent_id, a.seq FROM table_actions a
                            WHERE a.table_id = t.id AND a.intent_id IS NOT NULL
                            ORDER BY a.seq DESC LIMIT $2) r), '[]'::json) AS "recentIntents"
    FROM game_tables t
   WHERE t.id = $1`;

/*
 * Whether seat $2 of table $1 is held by player $3 with connection $4 among its connections, as the
 * table-service last stored it (the state's seats: a freed seat is null, a seat taken back on another
 * socket no longer lists the old one). The chat's check that a socket still sits where it talks.
 */
const SEAT_HELD_SQL = `
  SELECT EXISTS (
    SELECT 1 FROM game_tables t
     WHERE t.id = $1 AND t.state -> 'seats' -> $2::int ->> 'playerId' = $3
       AND EXISTS (SELECT 1 FROM json_array_elements_text(t.state -> 'seats' -> $2::int -> 'connections') AS c(id)
                    WHERE c.id = $4)
  ) AS held`;

const timestamp = (at: Date | null): string | null => (at ? at.toISOString() : null);

/** What runs a statement: a pool, or a transaction holding a lock (TableQueries.withHostLock). */
export type SqlClient = Pick<Prisma.TransactionClient, '$queryRawUnsafe' | 'gameTable'>;

interface CreateOutcome {
  readonly open: number;
  readonly inserted: number;
}

const createArgs = (row: NewTableRow, maxOpen: number) =>
  [
    row.id,
    row.variant,
    row.seatCount,
    row.target,
    row.oneRound,
    row.hostPlayerId,
    row.status,
    0,
    row.state,
    timestamp(row.deadlineAt),
    maxOpen,
    row.isPublic,
    row.chat,
    row.seatsPresent,
  ] as const;

const createdOf = (rows: readonly CreateOutcome[]): { inserted: boolean; open: number } => {
  const outcome = rows[0] ?? { open: 0, inserted: 0 };
  return { inserted: outcome.inserted > 0, open: outcome.open };
};

/**
 * Inserts `row` on `db` unless the host has `maxOpen` open tables there (CREATE_SQL, without the
 * lock: the caller holds it). Split by shard, `maxOpen` is what the other databases leave.
 */
export async function insertCountedTable(
  db: SqlClient,
  row: NewTableRow,
  maxOpen: number,
): Promise<{ inserted: boolean; open: number }> {
  return createdOf(await db.$queryRawUnsafe<CreateOutcome[]>(CREATE_SQL, ...createArgs(row, maxOpen)));
}

/** How many tables `hostPlayerId` has open on `db` (by game_tables_host_open_idx). */
export function countOpenTables(db: SqlClient, hostPlayerId: string): Promise<number> {
  return db.gameTable.count({ where: { hostPlayerId, status: { in: [...OPEN_STATUSES] } } });
}

export class TableQueries {
  /** The pool under `prisma`, for the statements of every change (decision 0033). */
  private readonly direct: DirectSql | undefined;

  constructor(private readonly prisma: PrismaClient) {
    this.direct = directSql(prisma);
  }

  /** Runs one of the statements of every change: on the pool directly when there is one. */
  private change<Row>(sql: string, ...values: unknown[]): Promise<Row[]> {
    return this.direct
      ? this.direct.query<Row>(sql, values)
      : this.prisma.$queryRawUnsafe<Row[]>(sql, ...values);
  }

  /** The snapshot of `tableId` and the ids of its last `recentIntents` intents (SNAPSHOT_SQL). */
  async snapshot(tableId: string, recentIntents: number): Promise<StoredSnapshot | null> {
    const rows = await this.prisma.$queryRawUnsafe<StoredSnapshot[]>(SNAPSHOT_SQL, tableId, recentIntents);
    return rows[0] ?? null;
  }

  /**
   * Inserts `row` at version 0 unless its host has `maxOpen` open tables (counted under the host's
   * lock, so on every replica at once) or its id is taken. `open` is the host's count before it.
   */
  async insertTable(row: NewTableRow, maxOpen: number): Promise<{ inserted: boolean; open: number }> {
    const [, rows] = await this.prisma.$transaction([
      this.prisma.$queryRawUnsafe(HOST_LOCK_SQL, row.hostPlayerId),
      this.prisma.$queryRawUnsafe<CreateOutcome[]>(CREATE_SQL, ...createArgs(row, maxOpen)),
    ]);
    return createdOf(rows);
  }

  /**
   * Runs `work` holding host `hostPlayerId`'s advisory lock, in one transaction of this database (the
   * home database's, with Postgres split by shard: decision 0027). `work` is given the transaction,
   * to run this database's statements on the connection that holds the lock.
   */
  withHostLock<T>(
    hostPlayerId: string,
    work: (locked: SqlClient) => Promise<T>,
    timeoutMs: number,
  ): Promise<T> {
    return this.prisma.$transaction(
      async (tx) => {
        await tx.$queryRawUnsafe(HOST_LOCK_SQL, hostPlayerId);
        return work(tx);
      },
      { maxWait: timeoutMs, timeout: timeoutMs },
    );
  }

  /** Stores `change` in one statement (APPEND_SQL), or nothing of it. */
  async append(change: TableChange): Promise<ChangeOutcome> {
    try {
      const rows = await this.change<{ updated: number }>(
        APPEND_SQL,
        change.tableId,
        change.state,
        change.version,
        change.status,
        timestamp(change.deadlineAt),
        change.hostPlayerId,
        change.expectedVersion,
        JSON.stringify(change.log),
        change.seatsFreed,
        JSON.stringify(change.seatsTaken),
        JSON.stringify(change.matches),
        JSON.stringify(change.rounds),
        timestamp(change.expiresAt),
        change.seatsPresent,
      );
      return rows[0]?.updated === 1 ? 'stored' : 'not-written';
    } catch (error) {
      if (isUniqueViolation(error, INTENT_ID_KEY)) return 'duplicate';
      throw error;
    }
  }

  /**
   * Stores several tables' changes in one statement (APPEND_BATCH_SQL), each fenced on its own
   * version and expiry: the ids of the tables whose change was stored (the others wrote nothing).
   * At most one change per table. A statement Postgres refuses (an intent id stored before, a
   * deadlock) writes nothing of any of them and is thrown, as is any other error.
   */
  async appendBatch(changes: readonly TableChange[]): Promise<Set<string>> {
    const rows = await this.change<{ id: string }>(
      APPEND_BATCH_SQL,
      changes.map((c) => c.tableId),
      `[${changes.map((c) => c.state ?? 'null').join(',')}]`,
      changes.map((c) => c.version),
      changes.map((c) => c.status),
      changes.map((c) => timestamp(c.deadlineAt)),
      changes.map((c) => c.hostPlayerId),
      changes.map((c) => c.expectedVersion),
      changes.map((c) => timestamp(c.expiresAt)),
      changes.map((c) => c.seatsPresent),
      taggedRows(changes, (c) => c.log),
      taggedRows(changes, (c) => c.seatsFreed.map((seat) => ({ seat }))),
      taggedRows(changes, (c) => c.seatsTaken),
      taggedRows(changes, (c) => c.matches),
      taggedRows(changes, (c) => c.rounds),
    );
    return new Set(rows.map((row) => row.id));
  }

  /** Finished or closed tables not changed since `idleBefore`, found by game_tables_status_idx. */
  async archivableTableIds(idleBefore: Date, limit: number): Promise<string[]> {
    const rows = await this.prisma.gameTable.findMany({
      select: { id: true },
      where: { status: { in: ['finished', 'closed'] }, updatedAt: { lt: idleBefore } },
      take: limit,
    });
    return rows.map((r) => r.id);
  }

  /**
   * Moves one table, with its seats, matches, rounds and whole log, into the `archive` schema, in one
   * transaction (the `archive_table` function of migration 20261201140000_archive). False when it is
   * gone, open again, or changed since `idleBefore`: nothing moved.
   */
  async archiveTable(tableId: string, idleBefore: Date): Promise<boolean> {
    const rows = await this.prisma.$queryRawUnsafe<{ moved: boolean }[]>(
      'SELECT archive_table($1, $2::timestamptz) AS moved',
      tableId,
      idleBefore.toISOString(),
    );
    return rows[0]?.moved === true;
  }

  /** How many tables `hostPlayerId` has open (by game_tables_host_open_idx). */
  openTablesOf(hostPlayerId: string): Promise<number> {
    return countOpenTables(this.prisma, hostPlayerId);
  }

  /**
   * The id and deadline of every open table of `shards` out of `total` that has one, in one query: an
   * index scan of game_tables_open_route_idx, whose route_hash is libs/protocol's shardOf computed by
   * Postgres, reading each row's deadline (decision 0011). `deadline` is the snapshot's (JSON), which
   * is older than the table when `stale` (decision 0040); `deadlineAt` is always the table's own.
   */
  openTableDeadlines(shards: readonly number[], total: number): Promise<OpenTableDeadline[]> {
    return this.prisma.$queryRawUnsafe<OpenTableDeadline[]>(
      `SELECT id, state->'deadline' AS deadline, deadline_at AS "deadlineAt", state_version < version AS stale FROM game_tables WHERE status IN (${OPEN_STATUS_SQL}) AND (route_hash % $1) = ANY($2::int[]) AND deadline_at IS NOT NULL`,
      total,
      [...shards],
    );
  }

  /** Table `tableId`'s settings, status and seated names, in one round trip. */
  async summary(tableId: string): Promise<TableSummaryRow | null> {
    const rows = await this.prisma.$queryRawUnsafe<TableSummaryRow[]>(SUMMARY_SQL, tableId);
    return rows[0] ?? null;
  }

  /** Whether table `tableId`'s host left text chat on; null when there is no such table (or it is archived). */
  async chatEnabled(tableId: string): Promise<boolean | null> {
    const rows = await this.prisma.$queryRawUnsafe<{ chat: boolean }[]>(
      'SELECT chat FROM game_tables WHERE id = $1',
      tableId,
    );
    return rows[0]?.chat ?? null;
  }

  /** Whether seat `seat` of `tableId` is `playerId`'s with connection `connectionId` on it now (SEAT_HELD_SQL). */
  async seatHeld(tableId: string, seat: number, playerId: string, connectionId: string): Promise<boolean> {
    const rows = await this.prisma.$queryRawUnsafe<{ held: boolean }[]>(
      SEAT_HELD_SQL,
      tableId,
      seat,
      playerId,
      connectionId,
    );
    return rows[0]?.held === true;
  }

  /** Whether intent `intentId` is in table `tableId`'s log; if so the table's version and the player's seat. */
  async storedIntent(
    tableId: string,
    intentId: string,
    playerId: string | null,
  ): Promise<{ version: number; seat: number | null } | null> {
    const rows = await this.prisma.$queryRawUnsafe<{ version: bigint; seat: number | null }[]>(
      STORED_INTENT_SQL,
      tableId,
      intentId,
      playerId,
    );
    const row = rows[0];
    return row ? { version: Number(row.version), seat: row.seat } : null;
  }

  /** Whether Postgres answers. */
  async ping(): Promise<boolean> {
    try {
      await this.prisma.$queryRawUnsafe('select 1');
      return true;
    } catch {
      return false;
    }
  }
}

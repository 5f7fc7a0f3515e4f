import type { PrismaClient } from '@dominoes/platform';
import { eventMatch, eventRound, eventSeat, type TableEvent } from './table-events';
import type { Deadline, TableState } from './table-state';

/** Another writer stored a newer version: this replica lost the table and must not write (fencing). */
export class StaleWriteError extends Error {
  constructor(tableId: string, expected: number) {
    super(`Table ${tableId} is no longer at version ${expected}: another replica wrote it.`);
    this.name = 'StaleWriteError';
  }
}

/** The host has as many open tables as MAX_OPEN_TABLES_PER_HOST allows: the new one is not stored. */
export class TooManyTablesError extends Error {
  constructor(
    readonly open: number,
    readonly limit: number,
  ) {
    super(
      `You have ${open} open tables, the most one host may have (${limit}): finish one or let it close first.`,
    );
    this.name = 'TooManyTablesError';
  }
}

/** The intent's expiry passed before it could be stored: nothing was written. */
export class IntentExpiredError extends Error {
  constructor(readonly intentId: string) {
    super(`Intent ${intentId} expired before it was stored.`);
    this.name = 'IntentExpiredError';
  }
}

export class DuplicateIntentError extends Error {
  constructor(intentId: string) {
    super(`Intent ${intentId} was stored already.`);
    this.name = 'DuplicateIntentError';
  }
}

interface LogRow {
  seq: number;
  kind: string;
  seat: number | null;
  match_number: number | null;
  round_number: number | null;
  payload: unknown;
  intent_id: string | null;
}

function logRows(events: readonly TableEvent[], fromVersion: number, intentId: string | null): LogRow[] {
  return events.map((event, i) => ({
    seq: fromVersion + i + 1,
    kind: event.kind,
    seat: eventSeat(event),
    match_number: eventMatch(event),
    round_number: eventRound(event),
    payload: event.payload,
    // The intent id goes on its first row: the unique (table_id, intent_id) stops a second apply.
    intent_id: i === 0 ? intentId : null,
  }));
}

/** The relational rows (seats, matches, rounds) that the events of one change touch, merged per key. */
function sideRows(table: TableState, events: readonly TableEvent[]) {
  const seatsTaken: { seat: number; player_id: string; name: string }[] = [];
  const seatsFreed: number[] = [];
  const matches = new Map<number, Record<string, unknown>>();
  const rounds = new Map<string, Record<string, unknown>>();
  const matchRow = (n: number) => {
    if (!matches.has(n)) {
      matches.set(n, {
        number: n,
        variant: table.variant,
        target: table.target,
        one_round: table.oneRound,
        seats: table.seats.map((s) => s?.playerId ?? null),
        scores: null,
        winner_side: null,
        finished: false,
      });
    }
    return matches.get(n)!;
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
    if (e.kind === 'round-dealt' || e.kind === 'round-ended') {
      const key = `${e.matchNumber}.${e.roundNumber}`;
      const row = rounds.get(key) ?? {
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
          opener: row['opener'] ?? e.payload.opener,
        });
      rounds.set(key, row);
    }
  }
  return { seatsTaken, seatsFreed, matches: [...matches.values()], rounds: [...rounds.values()] };
}

/*
 * One statement per change: the fenced snapshot update, the log rows and the side rows all hang off
 * the UPDATE's RETURNING, so when the version check fails nothing at all is written. One round trip.
 */
const APPEND_SQL = `
WITH t AS (
  UPDATE game_tables
     SET state = $2::json, version = $3, status = $4, deadline_at = $5::timestamptz, host_player_id = COALESCE($6::uuid, host_player_id), updated_at = now()
   WHERE id = $1 AND version = $7 AND ($13::timestamptz IS NULL OR clock_timestamp() < $13::timestamptz)
  RETURNING id
), log AS (
  INSERT INTO table_actions (table_id, seq, kind, seat, match_number, round_number, payload, intent_id)
  SELECT t.id, x.seq, x.kind, x.seat, x.match_number, x.round_number, x.payload, x.intent_id
    FROM t, jsonb_to_recordset($8::jsonb) AS x(seq bigint, kind text, seat int, match_number int, round_number int, payload jsonb, intent_id text)
), freed AS (
  DELETE FROM table_seats s USING t WHERE s.table_id = t.id AND s.seat = ANY($9::int[])
), taken AS (
  INSERT INTO table_seats (table_id, seat, player_id, name)
  SELECT t.id, x.seat, x.player_id, x.name FROM t, jsonb_to_recordset($10::jsonb) AS x(seat int, player_id uuid, name text)
  ON CONFLICT (table_id, seat) DO UPDATE SET player_id = EXCLUDED.player_id, name = EXCLUDED.name, joined_at = now()
), m AS (
  INSERT INTO matches (table_id, number, variant, target, one_round, seats, scores, winner_side, finished_at)
  SELECT t.id, x.number, x.variant, x.target, x.one_round, x.seats, x.scores, x.winner_side, CASE WHEN x.finished THEN now() END
    FROM t, jsonb_to_recordset($11::jsonb) AS x(number int, variant text, target int, one_round boolean, seats jsonb, scores jsonb, winner_side int, finished boolean)
  ON CONFLICT (table_id, number) DO UPDATE
     SET scores = COALESCE(EXCLUDED.scores, matches.scores), winner_side = COALESCE(EXCLUDED.winner_side, matches.winner_side),
         finished_at = COALESCE(EXCLUDED.finished_at, matches.finished_at)
), r AS (
  INSERT INTO rounds (table_id, match_number, number, opener, deal, result, finished_at)
  SELECT t.id, x.match_number, x.number, x.opener, COALESCE(x.deal, 'null'::jsonb), x.result, CASE WHEN x.finished THEN now() END
    FROM t, jsonb_to_recordset($12::jsonb) AS x(match_number int, number int, opener int, deal jsonb, result jsonb, finished boolean)
  ON CONFLICT (table_id, match_number, number) DO UPDATE
     SET result = COALESCE(EXCLUDED.result, rounds.result), finished_at = COALESCE(EXCLUDED.finished_at, rounds.finished_at)
)
SELECT count(*)::int AS updated FROM t`;

/** A table counts toward its host's limit until it is finished or closed. */
export const OPEN_STATUSES = ['waiting', 'playing'] as const;
const OPEN_STATUS_SQL = OPEN_STATUSES.map((s) => `'${s}'`).join(', ');

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
  INSERT INTO game_tables (id, variant, seat_count, target, one_round, host_player_id, status, version, state, deadline_at)
  SELECT $1::text, $2::text, $3::int, $4::int, $5::boolean, $6::uuid, $7::text, $8::bigint, $9::json, $10::timestamptz
    FROM open WHERE open.n < $11::int
  ON CONFLICT (id) DO NOTHING RETURNING id
)
SELECT (SELECT n FROM open) AS open, (SELECT count(*)::int FROM inserted) AS inserted`;

const deadlineTimestamp = (table: TableState): string | null =>
  table.deadline ? new Date(table.deadline.at).toISOString() : null;

export class TableStore {
  constructor(private readonly prisma: PrismaClient) {}

  async load(tableId: string): Promise<TableState | null> {
    const rows = await this.prisma.$queryRawUnsafe<{ state: TableState; version: bigint }[]>(
      'SELECT state, version FROM game_tables WHERE id = $1',
      tableId,
    );
    const row = rows[0];
    return row ? { ...row.state, version: Number(row.version) } : null;
  }

  /**
   * Inserts a new table; null when the code is taken. Throws TooManyTablesError when its host already
   * has `maxOpenTablesPerHost` open tables (on any replica: counted in Postgres under the host's lock).
   */
  async create(
    table: TableState,
    events: readonly TableEvent[],
    intentId: string | null,
    limits: { readonly maxOpenTablesPerHost: number },
  ): Promise<TableState | null> {
    const empty: TableState = { ...table, version: 0, recentIntents: [] };
    const stored: TableState = {
      ...table,
      version: events.length,
      recentIntents: intentId ? [intentId] : [],
    };
    const [, rows] = await this.prisma.$transaction([
      this.prisma.$queryRawUnsafe(HOST_LOCK_SQL, table.hostPlayerId),
      this.prisma.$queryRawUnsafe<{ open: number; inserted: number }[]>(
        CREATE_SQL,
        table.id,
        table.variant,
        table.seatCount,
        table.target,
        table.oneRound,
        table.hostPlayerId,
        table.status,
        0,
        JSON.stringify(empty),
        // With the row: a crash before the log is written still leaves a table that expires.
        deadlineTimestamp(table),
        limits.maxOpenTablesPerHost,
      ),
    ]);
    const outcome = rows[0] ?? { open: 0, inserted: 0 };
    if (outcome.inserted === 0) {
      if (outcome.open >= limits.maxOpenTablesPerHost)
        throw new TooManyTablesError(outcome.open, limits.maxOpenTablesPerHost);
      return null;
    }
    // The table row exists now: the log and seats follow as an ordinary fenced change from version 0.
    await this.append(empty, stored, events, intentId);
    return stored;
  }

  /**
   * Stores a change of `before` into `after` with its events, fenced on `before.version` and, when
   * `expiresAt` is given, on Postgres's own clock being before it at the moment the row is written
   * (after any lock wait): an intent whose sender was told "not applied" is never stored.
   */
  async append(
    before: TableState,
    after: TableState,
    events: readonly TableEvent[],
    intentId: string | null,
    expiresAt?: number,
  ): Promise<void> {
    const version = before.version + events.length;
    const stored = { ...after, version };
    const side = sideRows(after, events);
    let updated: number;
    try {
      const rows = await this.prisma.$queryRawUnsafe<{ updated: number }[]>(
        APPEND_SQL,
        after.id,
        JSON.stringify(stored),
        version,
        after.status,
        deadlineTimestamp(after),
        after.hostPlayerId,
        before.version,
        JSON.stringify(logRows(events, before.version, intentId)),
        side.seatsFreed,
        JSON.stringify(side.seatsTaken),
        JSON.stringify(side.matches),
        JSON.stringify(side.rounds),
        expiresAt === undefined ? null : new Date(expiresAt).toISOString(),
      );
      updated = rows[0]?.updated ?? 0;
    } catch (error) {
      if (String((error as Error).message).includes('table_actions_table_id_intent_id_key')) {
        throw new DuplicateIntentError(intentId ?? '');
      }
      throw error;
    }
    if (updated !== 1) {
      if (expiresAt !== undefined && Date.now() >= expiresAt) throw new IntentExpiredError(intentId ?? '');
      throw new StaleWriteError(after.id, before.version);
    }
  }

  /** Finished or closed tables not changed since `idleBefore` (ms), found by game_tables_status_idx. */
  async archivableTableIds(idleBefore: number, limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRawUnsafe<{ id: string }[]>(
      "SELECT id FROM game_tables WHERE status IN ('finished', 'closed') AND updated_at < $1::timestamptz LIMIT $2",
      new Date(idleBefore).toISOString(),
      limit,
    );
    return rows.map((r) => r.id);
  }

  /**
   * Moves one table, with its seats, matches, rounds and whole log, into the `archive` schema, in one
   * transaction (the `archive_table` function of migration 20261201140000_archive). False when it is
   * gone, open again, or changed since `idleBefore`: nothing moved.
   */
  async archiveTable(tableId: string, idleBefore: number): Promise<boolean> {
    const rows = await this.prisma.$queryRawUnsafe<{ moved: boolean }[]>(
      'SELECT archive_table($1, $2::timestamptz) AS moved',
      tableId,
      new Date(idleBefore).toISOString(),
    );
    return rows[0]?.moved === true;
  }

  /** How many tables `hostPlayerId` has open (not finished, not closed). */
  async openTablesOf(hostPlayerId: string): Promise<number> {
    const rows = await this.prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM game_tables WHERE host_player_id = $1::uuid AND status IN (${OPEN_STATUS_SQL})`,
      hostPlayerId,
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * The deadline of every open table (waiting or playing: the ones with a clock) of `shards` out of
   * `total`, for setting their deadline jobs again when this replica takes those shards: one query,
   * an index scan of game_tables_open_route_idx (whose route_hash is libs/protocol's shardOf computed
   * by Postgres) reading each row's deadline from its state (decision 0011).
   */
  openTableDeadlines(
    shards: readonly number[],
    total: number,
  ): Promise<{ id: string; deadline: Deadline }[]> {
    return this.prisma.$queryRawUnsafe<{ id: string; deadline: Deadline }[]>(
      "SELECT id, state->'deadline' AS deadline FROM game_tables WHERE status IN ('waiting', 'playing') AND (route_hash % $1) = ANY($2::int[]) AND json_typeof(state->'deadline') = 'object'",
      total,
      [...shards],
    );
  }
}

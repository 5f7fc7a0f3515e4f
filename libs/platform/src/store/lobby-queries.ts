import type { PrismaClient } from '../db';
import type { SqlClient } from './table-queries';
import type { GameTable, TableSeat } from '../generated/prisma/client';

/*
 * The lobby's reads (issue 12, decision 0019): open public tables, the tables a player sits at, and
 * quick play's search under its lock. Public open tables are read by game_tables_lobby_idx (a
 * partial index of just those rows), a player's seats by table_seats_player_id_idx.
 */

/** A table as the lobby reads it: its settings, seated names, host's name and when it opened. */
export interface LobbyRow extends Pick<
  GameTable,
  'id' | 'variant' | 'seatCount' | 'target' | 'oneRound' | 'status' | 'isPublic'
> {
  readonly version: number;
  readonly openedAt: number;
  readonly host: string | null;
  readonly seats: Pick<TableSeat, 'seat' | 'name'>[];
}

const LOBBY_COLUMNS = `
  t.id, t.variant, t.seat_count AS "seatCount", t.target, t.one_round AS "oneRound", t.status,
  t.is_public AS "isPublic", t.version::float8 AS version,
  (extract(epoch FROM t.created_at) * 1000)::float8 AS "openedAt",
  (SELECT s.name FROM table_seats s WHERE s.table_id = t.id AND s.player_id = t.host_player_id) AS host,
  coalesce((SELECT json_agg(json_build_object('seat', s.seat, 'name', s.name) ORDER BY s.seat)
              FROM table_seats s WHERE s.table_id = t.id), '[]') AS seats`;

/*
 * A waiting table is listed while a seat is present (decision 0026): seated, and connected or taken
 * without a socket that has not connected yet. An emptied table, or one whose players all closed their
 * tabs, leaves the lobby; seats_present is stored by the table-service with every change.
 */
const PRESENT = 't.seats_present > 0';

/** Waiting tables oldest first (the next to start), then the newest in play; each part capped. */
const PUBLIC_TABLES_SQL = `
(SELECT ${LOBBY_COLUMNS} FROM game_tables t
  WHERE t.is_public AND t.status = 'waiting' AND ${PRESENT} ORDER BY t.created_at LIMIT $1)
UNION ALL
(SELECT ${LOBBY_COLUMNS} FROM game_tables t
  WHERE t.is_public AND t.status = 'playing' ORDER BY t.created_at DESC LIMIT $2)`;

const PUBLIC_COUNTS_SQL = `
SELECT count(*) FILTER (WHERE t.status = 'waiting' AND ${PRESENT})::int AS waiting,
       count(*) FILTER (WHERE t.status = 'playing')::int AS playing
  FROM game_tables t WHERE t.is_public AND t.status IN ('waiting', 'playing')`;

const YOURS_SQL = `
SELECT ${LOBBY_COLUMNS} FROM table_seats me JOIN game_tables t ON t.id = me.table_id
 WHERE me.player_id = $1::uuid AND t.status IN ('waiting', 'playing')
 ORDER BY t.created_at DESC LIMIT $2`;

/*
 * Quick play's search: waiting public tables of exactly this configuration with a free seat and a
 * seat present, a table the player already sits at first (pressing twice keeps one table; a player
 * whose own table has nobody present is returned to it, and their socket's join makes it present again), then
 * the oldest. Never a table whose players are all away (decision 0026). Run under the
 * configuration's advisory lock, so two searches never both miss a table the other is opening or
 * filling.
 */
const MINE = 'EXISTS (SELECT 1 FROM table_seats s WHERE s.table_id = t.id AND s.player_id = $4::uuid)';
const QUICK_PLAY_LOCK_SQL = 'SELECT 1 AS locked FROM pg_advisory_xact_lock(1870, hashtext($1::text))';
const QUICK_PLAY_SEARCH = `FROM game_tables t
 WHERE t.is_public AND t.status = 'waiting' AND t.variant = $1 AND t.seat_count = $2 AND t.target = $3
   AND t.one_round = false
   AND (SELECT count(*) FROM table_seats s WHERE s.table_id = t.id) < t.seat_count
   AND (${PRESENT} OR ${MINE})
 ORDER BY ${MINE} DESC, t.created_at
 LIMIT $5`;
const QUICK_PLAY_SQL = `
SELECT t.id ${QUICK_PLAY_SEARCH}`;

/*
 * The same search with what orders it, for Postgres split by shard (decision 0027): each database's
 * best $5, merged in the same order (the player's own table first, then the oldest).
 */
const QUICK_PLAY_RANKED_SQL = `
SELECT t.id, ${MINE} AS mine, (extract(epoch FROM t.created_at) * 1000)::float8 AS "openedAt" ${QUICK_PLAY_SEARCH}`;

/** One candidate of quick play's search in one database, with what ranks it among every database's. */
export interface RankedCandidate {
  readonly id: string;
  /** The player already sits at it. */
  readonly mine: boolean;
  readonly openedAt: number;
}

/** Quick play's best `limit` candidates in database `db` (QUICK_PLAY_RANKED_SQL), best first. */
export function rankedCandidatesOn(
  db: SqlClient,
  config: QuickPlayConfig,
  playerId: string,
  limit: number,
): Promise<RankedCandidate[]> {
  return db.$queryRawUnsafe<RankedCandidate[]>(
    QUICK_PLAY_RANKED_SQL,
    config.variant,
    config.seatCount,
    config.target,
    playerId,
    limit,
  );
}

/** The configuration quick play looks for (the rules' normalised config; never one round). */
export interface QuickPlayConfig {
  readonly variant: string;
  readonly seatCount: number;
  readonly target: number;
}

/** Within quick play's lock: the tables to try, best first. */
export interface QuickPlaySearch {
  candidates(playerId: string, limit: number): Promise<string[]>;
}

export class LobbyQueries {
  constructor(private readonly prisma: PrismaClient) {}

  /** Up to `waiting` waiting and `playing` playing public tables (never a private one). */
  publicTables(waiting: number, playing: number): Promise<LobbyRow[]> {
    return this.prisma.$queryRawUnsafe<LobbyRow[]>(PUBLIC_TABLES_SQL, waiting, playing);
  }

  /** How many public tables wait (with a seat present) and play. */
  async publicCounts(): Promise<{ waiting: number; playing: number }> {
    const rows = await this.prisma.$queryRawUnsafe<{ waiting: number; playing: number }[]>(PUBLIC_COUNTS_SQL);
    return rows[0] ?? { waiting: 0, playing: 0 };
  }

  /** The open tables `playerId` sits at, newest first, private ones included. */
  tablesOf(playerId: string, limit: number): Promise<LobbyRow[]> {
    return this.prisma.$queryRawUnsafe<LobbyRow[]>(YOURS_SQL, playerId, limit);
  }

  /**
   * Runs `work` holding the advisory lock of configuration `config` (one transaction, on one
   * connection, until `work` ends): quick play for one configuration, one at a time on every gateway.
   * A wait for the lock longer than the session's statement timeout fails (the caller says "try again").
   */
  withQuickPlayLock<T>(
    config: QuickPlayConfig,
    work: (search: QuickPlaySearch) => Promise<T>,
    timeoutMs: number,
  ): Promise<T> {
    return this.lockQuickPlay(
      config,
      (tx) =>
        work({
          candidates: async (playerId, limit) => {
            const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
              QUICK_PLAY_SQL,
              config.variant,
              config.seatCount,
              config.target,
              playerId,
              limit,
            );
            return rows.map((r) => r.id);
          },
        }),
      timeoutMs,
    );
  }

  /** Runs `work` holding configuration `config`'s advisory lock, given the transaction that holds it. */
  lockQuickPlay<T>(
    config: QuickPlayConfig,
    work: (locked: SqlClient) => Promise<T>,
    timeoutMs: number,
  ): Promise<T> {
    const key = `${config.variant}:${config.seatCount}:${config.target}`;
    return this.prisma.$transaction(
      async (tx) => {
        await tx.$queryRawUnsafe(QUICK_PLAY_LOCK_SQL, key);
        return work(tx);
      },
      { maxWait: timeoutMs, timeout: timeoutMs },
    );
  }
}

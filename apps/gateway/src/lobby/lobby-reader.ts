import {
  ShardedLobbyQueries,
  type LobbyRow,
  type Logger,
  type ShardDatabases,
  type ShardMap,
} from '@dominoes/platform';
import {
  LOBBY_MAX_PLAYING,
  LOBBY_MAX_WAITING,
  LOBBY_MAX_YOURS,
  TableStatusSchema,
  VariantSchema,
  type LobbyTable,
} from '@dominoes/protocol';
import { readOnlyDatabases } from '../tables/read-only-pool';
import { playersBySeat } from '../tables/table-reader';

/** A lobby row as the lobby frame's table; a row that is not open (it changed meanwhile) is left out. */
export function lobbyTableOf(row: LobbyRow): LobbyTable | null {
  const status = TableStatusSchema.safeParse(row.status);
  const variant = VariantSchema.safeParse(row.variant);
  if (!status.success || !variant.success) return null;
  if (status.data !== 'waiting' && status.data !== 'playing') return null;
  const players = playersBySeat(row.seatCount, row.seats);
  return {
    tableId: row.id,
    variant: variant.data,
    seatCount: row.seatCount,
    target: row.target,
    oneRound: row.oneRound,
    status: status.data,
    players,
    host: row.host,
    openedAt: Math.round(row.openedAt),
    version: row.version,
    public: row.isPublic,
  };
}

const tablesOf = (rows: readonly LobbyRow[]): LobbyTable[] =>
  rows.flatMap((row) => {
    const table = lobbyTableOf(row);
    return table ? [table] : [];
  });

/**
 * The gateway's reads for the lobby and quick play, through libs/platform's store (LobbyQueries), on
 * a small read-only pool of its own: quick play holds a connection for its lock while it seats the
 * player, and must not starve the table summaries (TableReader's pool). Split by shard (decision
 * 0027), one such pool per database: the lists and counts are asked of every database and merged,
 * quick play's lock stays in the home database.
 */
export class LobbyReader {
  private readonly databases: ShardDatabases;
  readonly queries: ShardedLobbyQueries;

  /** When each database was last reported left out (one warning per database every 10 s). */
  private readonly leftOutAt = new Map<number, number>();

  constructor(map: ShardMap, logger?: Logger) {
    this.databases = readOnlyDatabases(map);
    this.queries = new ShardedLobbyQueries(this.databases, (database, error) => {
      const now = Date.now();
      if (now - (this.leftOutAt.get(database) ?? 0) < 10_000) return;
      this.leftOutAt.set(database, now);
      logger?.warn(
        { database, err: error instanceof Error ? error.message : String(error) },
        'a database did not answer: its tables are left out of the lobby and quick play',
      );
    });
  }

  /** What a `lobby` frame lists: public tables (capped), their counts, and the player's own tables. */
  async snapshot(playerId: string): Promise<{
    tables: LobbyTable[];
    counts: { waiting: number; playing: number };
    yours: LobbyTable[];
  }> {
    const [tables, counts, yours] = await Promise.all([
      this.queries.publicTables(LOBBY_MAX_WAITING, LOBBY_MAX_PLAYING),
      this.queries.publicCounts(),
      this.queries.tablesOf(playerId, LOBBY_MAX_YOURS),
    ]);
    return { tables: tablesOf(tables), counts, yours: tablesOf(yours) };
  }

  /** Nest calls it last on shutdown, after HTTP and the sockets closed (its own pool: not in the lifecycle's list). */
  async onApplicationShutdown(): Promise<void> {
    await this.databases.disconnect().catch(() => undefined);
  }
}

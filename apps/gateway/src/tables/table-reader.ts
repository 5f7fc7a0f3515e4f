import {
  ShardedMatchHistoryQueries,
  ShardedTableQueries,
  type ShardDatabases,
  type ShardMap,
} from '@dominoes/platform';
import { TableCodeSchema, TableStatusSchema, VariantSchema, type TableSummary } from '@dominoes/protocol';
import { readOnlyDatabases } from './read-only-pool';

/** Each seat's player's name, or null for a free seat (a stored seat out of range is passed over). */
export function playersBySeat(
  seatCount: number,
  seats: readonly { readonly seat: number; readonly name: string }[],
): (string | null)[] {
  const players: (string | null)[] = new Array<string | null>(seatCount).fill(null);
  for (const seat of seats) if (seat.seat >= 0 && seat.seat < players.length) players[seat.seat] = seat.name;
  return players;
}

/**
 * The gateway keeps no game state: a table's public summary is read from Postgres, through
 * libs/platform's store (the one owner of the schema's queries), on a small pool whose sessions are
 * read-only (the table-service is the only writer). Split by shard (decision 0027), one such pool per
 * database: a table is read in its shard's database, a player's matches in every one.
 */
export class TableReader {
  private readonly databases: ShardDatabases;
  private readonly queries: ShardedTableQueries;
  /** The match list's and replays' queries, on the same read-only pools. */
  readonly history: ShardedMatchHistoryQueries;

  constructor(map: ShardMap) {
    this.databases = readOnlyDatabases(map);
    this.queries = new ShardedTableQueries(this.databases);
    this.history = new ShardedMatchHistoryQueries(this.databases);
  }

  /** The summary of table `code`, or null when there is none (a malformed code included). */
  async summary(code: string): Promise<TableSummary | null> {
    if (!TableCodeSchema.safeParse(code).success) return null;
    const row = await this.queries.summary(code);
    if (!row) return null;
    const players = playersBySeat(row.seatCount, row.seats);
    const status = TableStatusSchema.safeParse(row.status);
    return {
      tableId: row.id,
      variant: VariantSchema.parse(row.variant),
      seatCount: row.seatCount,
      target: row.target,
      oneRound: row.oneRound,
      status: status.success ? status.data : 'waiting',
      players,
    };
  }

  /**
   * Whether intent `intentId` is stored in table `tableId`'s log, and if so the table's version and
   * the player's seat now. The gateway asks once an intent's reply is overdue: by then its expiry has
   * passed, so the answer cannot change any more (issue 11: what a player is told is what happened).
   */
  storedIntent(
    tableId: string,
    intentId: string,
    playerId: string | null,
  ): Promise<{ version: number; seat: number | null } | null> {
    return this.queries.storedIntent(tableId, intentId, playerId);
  }

  /** Whether table `tableId`'s host left text chat on (null: no such table). */
  chatEnabled(tableId: string): Promise<boolean | null> {
    return this.queries.chatEnabled(tableId);
  }

  /** Whether `connectionId` is on seat `seat` of `tableId`, held by `playerId`, as last stored (the chat's check). */
  seatHeld(tableId: string, seat: number, playerId: string, connectionId: string): Promise<boolean> {
    return this.queries.seatHeld(tableId, seat, playerId, connectionId);
  }

  /** How many databases the tables are split over (DATABASE_URLS; 1 unless split). */
  get databaseCount(): number {
    return this.databases.all.length;
  }

  /** Whether database `index` answers: 0 is the home database. */
  pingDatabase(index: number): Promise<boolean> {
    return this.queries.pingDatabase(index);
  }

  async close(): Promise<void> {
    await this.databases.disconnect().catch(() => undefined);
  }
}

import type { ShardDatabases } from '../shard-databases';
import { ChangeBatches, DEFAULT_CHANGE_BATCH_LIMITS, type ChangeBatchLimits } from './change-batches';
import { sum } from './merge';
import {
  countOpenTables,
  insertCountedTable,
  TableQueries,
  type ChangeOutcome,
  type NewTableRow,
  type OpenTableDeadline,
  type SqlClient,
  type StoredSnapshot,
  type TableChange,
  type TableSummaryRow,
} from './table-queries';

/** How long an opening may hold its host's lock in the home database (counting every database). */
const HOST_LOCK_MS = 10_000;

/**
 * TableQueries over Postgres split by shard (decision 0027): what is of one table runs on its shard's
 * database; what spans tables (a host's open tables, a set of shards' deadlines) runs on each database
 * that holds any. With one database every call is TableQueries' own, the same statement as before.
 */
export class ShardedTableQueries {
  /** TableQueries of each database, in the shard map's order. */
  readonly each: readonly TableQueries[];
  /** Each database's changes, grouped into statements (decision 0030). */
  private readonly writes: readonly ChangeBatches[];

  constructor(
    readonly databases: ShardDatabases,
    batchLimits: ChangeBatchLimits = DEFAULT_CHANGE_BATCH_LIMITS,
  ) {
    this.each = databases.all.map((prisma) => new TableQueries(prisma));
    this.writes = this.each.map((queries) => new ChangeBatches(queries, batchLimits));
  }

  /** The queries of table `tableId`'s database. */
  of(tableId: string): TableQueries {
    return this.each[this.databases.indexOfTable(tableId)]!;
  }

  snapshot(tableId: string, recentIntents: number): Promise<StoredSnapshot | null> {
    return this.of(tableId).snapshot(tableId, recentIntents);
  }

  /** Stores `change` in its table's database, with the other changes that arrive meanwhile. */
  append(change: TableChange): Promise<ChangeOutcome> {
    return this.writes[this.databases.indexOfTable(change.tableId)]!.append(change);
  }

  /**
   * Inserts `row` in its database unless its host has `maxOpen` open tables in all of them. One
   * database: TableQueries.insertTable's one statement under the host's lock. More: the host's lock is
   * taken in the home database (a transaction there), the host's open tables are counted in every
   * other database, and the table's database counts its own and inserts in one statement, with the
   * room the others leave; the lock is released after the insert is committed, so the next opening
   * of the host, on any replica, counts it. `open` is the host's count in all databases before it.
   */
  insertTable(row: NewTableRow, maxOpen: number): Promise<{ inserted: boolean; open: number }> {
    if (this.each.length === 1) return this.each[0]!.insertTable(row, maxOpen);
    const target = this.databases.indexOfTable(row.id);
    return this.each[0]!.withHostLock(
      row.hostPlayerId,
      async (home) => {
        // The home database's statements run on the transaction's connection, the one holding the lock.
        const client = (index: number): SqlClient => (index === 0 ? home : this.databases.all[index]!);
        const elsewhere = sum(
          await Promise.all(
            this.databases.all.map((_, index) =>
              index === target ? 0 : countOpenTables(client(index), row.hostPlayerId),
            ),
          ),
        );
        const outcome = await insertCountedTable(client(target), row, maxOpen - elsewhere);
        return { inserted: outcome.inserted, open: outcome.open + elsewhere };
      },
      HOST_LOCK_MS,
    );
  }

  /** How many tables `hostPlayerId` has open, in every database. */
  async openTablesOf(hostPlayerId: string): Promise<number> {
    return sum(await Promise.all(this.each.map((queries) => queries.openTablesOf(hostPlayerId))));
  }

  /** Finished or closed tables of database `database` not changed since `idleBefore`. */
  archivableTableIds(database: number, idleBefore: Date, limit: number): Promise<string[]> {
    return this.each[database]!.archivableTableIds(idleBefore, limit);
  }

  archiveTable(tableId: string, idleBefore: Date): Promise<boolean> {
    return this.of(tableId).archiveTable(tableId, idleBefore);
  }

  /** The open tables' deadlines of `shards`: one query in each database that holds any of them. */
  async openTableDeadlines(shards: readonly number[], total: number): Promise<OpenTableDeadline[]> {
    const byDatabase = new Map<number, number[]>();
    for (const shard of shards) {
      const index = this.databases.indexOfShard(shard);
      byDatabase.set(index, [...(byDatabase.get(index) ?? []), shard]);
    }
    const rows = await Promise.all(
      [...byDatabase].map(([index, owned]) => this.each[index]!.openTableDeadlines(owned, total)),
    );
    return rows.flat();
  }

  summary(tableId: string): Promise<TableSummaryRow | null> {
    return this.of(tableId).summary(tableId);
  }

  chatEnabled(tableId: string): Promise<boolean | null> {
    return this.of(tableId).chatEnabled(tableId);
  }

  seatHeld(tableId: string, seat: number, playerId: string, connectionId: string): Promise<boolean> {
    return this.of(tableId).seatHeld(tableId, seat, playerId, connectionId);
  }

  storedIntent(
    tableId: string,
    intentId: string,
    playerId: string | null,
  ): Promise<{ version: number; seat: number | null } | null> {
    return this.of(tableId).storedIntent(tableId, intentId, playerId);
  }

  /** Whether every database answers. */
  async ping(): Promise<boolean> {
    return (await Promise.all(this.each.map((queries) => queries.ping()))).every(Boolean);
  }

  /** Whether database `index` (of DATABASE_URLS) answers. */
  pingDatabase(index: number): Promise<boolean> {
    const queries = this.each[index];
    return queries ? queries.ping() : Promise.resolve(false);
  }
}

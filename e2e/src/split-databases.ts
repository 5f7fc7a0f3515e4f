import { Client } from 'pg';
import type { CreateTableRequest } from '@dominoes/protocol';
import type { TableOpener } from './players';
import type { TestSystem } from './system';

/**
 * Postgres split by shard (decision 0027) in the e2e suites: a table of the database a test wants
 * (table ids are the table-service's, random, so the test opens tables until one's shard is in that
 * database), and the check that a table's rows are in its shard's database and in no other.
 */

/**
 * A TableOpener for seatPlayers: the host opens tables until one lands in database `database` of the
 * system (on one database: its first table). The host is seated at each table it opens, so another
 * identity cannot open it for the players; a split TestSystem lets a host have many open tables
 * (MAX_OPEN_TABLES_PER_HOST). The tables that landed elsewhere stay waiting.
 */
export function tableInDatabase(system: TestSystem, database: number, attempts = 40): TableOpener {
  return async (host, request: CreateTableRequest) => {
    for (let attempt = 0; attempt < attempts; attempt++) {
      const { tableId } = await host.openTable(request);
      if (system.databaseOfTable(tableId) === database) return tableId;
    }
    throw new Error(
      `no table in database ${database} of ${system.databaseUrls.length} after ${attempts} tables`,
    );
  };
}

/** Every table's rows: the table, its seats, matches, rounds and log (hot and archived). */
const TABLE_ROWS = [
  ['game_tables', 'id'],
  ['table_seats', 'table_id'],
  ['matches', 'table_id'],
  ['rounds', 'table_id'],
  ['table_actions', 'table_id'],
] as const;

/** How many rows of table `tableId` each database of the system holds (in databaseUrls order). */
export async function rowsOfTableByDatabase(system: TestSystem, tableId: string): Promise<number[]> {
  return Promise.all(
    system.databaseUrls.map(async (url) => {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        let rows = 0;
        for (const schema of ['public', 'archive'])
          for (const [table, column] of TABLE_ROWS) {
            const { rows: counted } = await client.query<{ n: string }>(
              `select count(*) as n from ${schema}.${table} where ${column} = $1`,
              [tableId],
            );
            rows += Number(counted[0]!.n);
          }
        return rows;
      } finally {
        await client.end();
      }
    }),
  );
}

/** Throws unless table `tableId` has rows in its shard's database and none in any other. */
export async function expectRowsOnlyInItsShardsDatabase(system: TestSystem, tableId: string): Promise<void> {
  const rows = await rowsOfTableByDatabase(system, tableId);
  const home = system.databaseOfTable(tableId);
  const elsewhere = rows.flatMap((n, i) => (i !== home && n > 0 ? [`${n} in database ${i}`] : []));
  if (rows[home] === 0 || elsewhere.length > 0)
    throw new Error(
      `table ${tableId} (database ${home}): ${rows[home]} rows in its own database, ${elsewhere.join(', ') || 'none elsewhere'}`,
    );
}

import { createPrisma, ShardDatabases, type PrismaClient, type ShardMap } from '@dominoes/platform';

/**
 * A small pool of the gateway's own on Postgres whose sessions are read-only (the table-service is
 * the only writer), each statement and connection given up after 3 s: what the gateway's readers
 * (TableReader, LobbyReader) read through.
 */
export function readOnlyPool(databaseUrl: string): PrismaClient {
  return createPrisma(databaseUrl, 4, {
    readOnly: true,
    statementTimeoutMs: 3_000,
    connectionTimeoutMs: 3_000,
    idleTimeoutMs: 30_000,
  });
}

/** One read-only pool per database of the shard map (decision 0027: a table is read in its shard's). */
export function readOnlyDatabases(map: ShardMap): ShardDatabases {
  return new ShardDatabases(map, (url) => readOnlyPool(url));
}

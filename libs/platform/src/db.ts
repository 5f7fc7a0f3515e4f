import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';

export { PrismaClient };
export type { Prisma } from './generated/prisma/client';

/** How many distinct SQL texts a process prepares; past that, queries run unnamed (parsed each time). */
export const MAX_PREPARED_STATEMENTS = 256;

/**
 * Names each distinct SQL text, so that the pg driver prepares it once per connection and Postgres
 * stops parsing and planning it on every call (the table-service's one-statement write is long:
 * docs/performance.md). The number of names is bounded, because every name lives on every pooled
 * connection for its lifetime.
 */
export function statementNamer(limit = MAX_PREPARED_STATEMENTS): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return (query) => {
    const known = names.get(query.sql);
    if (known !== undefined) return known;
    // pg runs a query without a name as an unnamed statement: the old behaviour.
    if (names.size >= limit) return undefined as unknown as string;
    const name = `d_${createHash('sha1').update(query.sql).digest('hex').slice(0, 20)}`;
    names.set(query.sql, name);
    return name;
  };
}

/** How a pool's sessions run: read-only (a reader of another service's tables), with a time limit. */
export interface SessionOptions {
  readonly readOnly?: boolean;
  readonly statementTimeoutMs?: number;
  readonly connectionTimeoutMs?: number;
  readonly idleTimeoutMs?: number;
}

/**
 * A client's pg pool, for the statements run on every action without Prisma's query engine (decision
 * 0033): `query` runs `sql` as a prepared statement (named as the client names it) and resolves with
 * its rows; a Postgres error is pg's own DatabaseError (sql-errors reads both kinds).
 */
export interface DirectSql {
  query<Row>(sql: string, values: readonly unknown[]): Promise<Row[]>;
}

const directSqlOf = new WeakMap<object, DirectSql>();

/** The pg pool under a client made by createPrisma; undefined for any other client (a test's). */
export function directSql(prisma: object): DirectSql | undefined {
  return directSqlOf.get(prisma);
}

/** Prisma 7 talks to Postgres through the pg driver adapter, with prepared statements. */
export function createPrisma(databaseUrl: string, poolSize = 10, session: SessionOptions = {}): PrismaClient {
  const settings = [
    ...(session.readOnly ? ['-c default_transaction_read_only=on'] : []),
    ...(session.statementTimeoutMs !== undefined
      ? [`-c statement_timeout=${session.statementTimeoutMs}`]
      : []),
  ];
  const pool = new Pool({
    connectionString: databaseUrl,
    max: poolSize,
    ...(settings.length > 0 ? { options: settings.join(' ') } : {}),
    ...(session.connectionTimeoutMs !== undefined
      ? { connectionTimeoutMillis: session.connectionTimeoutMs }
      : {}),
    ...(session.idleTimeoutMs !== undefined ? { idleTimeoutMillis: session.idleTimeoutMs } : {}),
  });
  // An idle client that loses its server is dropped from the pool and crashes nothing (the adapter
  // adds its own listener only once Prisma connects: a direct statement may come first).
  pool.on('error', () => undefined);
  const nameOf = statementNamer();
  // One pool for both: Prisma's $disconnect ends it (disposeExternalPool).
  const adapter = new PrismaPg(pool, { statementNameGenerator: nameOf, disposeExternalPool: true });
  const prisma = new PrismaClient({ adapter });
  directSqlOf.set(prisma, {
    query: async <Row>(sql: string, values: readonly unknown[]) =>
      (await pool.query({ name: nameOf({ sql }), text: sql, values: [...values] })).rows as Row[],
  });
  return prisma;
}

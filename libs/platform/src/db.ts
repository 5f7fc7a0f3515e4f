import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
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

/** Prisma 7 talks to Postgres through the pg driver adapter, with prepared statements. */
export function createPrisma(databaseUrl: string, poolSize = 10, session: SessionOptions = {}): PrismaClient {
  const settings = [
    ...(session.readOnly ? ['-c default_transaction_read_only=on'] : []),
    ...(session.statementTimeoutMs !== undefined
      ? [`-c statement_timeout=${session.statementTimeoutMs}`]
      : []),
  ];
  const adapter = new PrismaPg(
    {
      connectionString: databaseUrl,
      max: poolSize,
      ...(settings.length > 0 ? { options: settings.join(' ') } : {}),
      ...(session.connectionTimeoutMs !== undefined
        ? { connectionTimeoutMillis: session.connectionTimeoutMs }
        : {}),
      ...(session.idleTimeoutMs !== undefined ? { idleTimeoutMillis: session.idleTimeoutMs } : {}),
    },
    // The adapter listens for the pool's 'error': an idle client that loses its server crashes nothing.
    { statementNameGenerator: statementNamer() },
  );
  return new PrismaClient({ adapter });
}

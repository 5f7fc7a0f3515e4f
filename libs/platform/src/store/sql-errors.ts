import { DatabaseError } from 'pg';

/** SQLSTATE unique_violation (Postgres appendix A). */
export const UNIQUE_VIOLATION = '23505';

/** A unique key of the schema: its constraint's name, and the columns it is on. */
export interface UniqueKey {
  readonly constraint: string;
  readonly columns: readonly string[];
}

/** What Prisma's pg driver adapter keeps of a Postgres error (`meta.driverAdapterError.cause`), and pg's. */
interface DriverErrorCause {
  readonly originalCode?: unknown;
  readonly constraint?: { readonly fields?: unknown; readonly index?: unknown };
}

/**
 * The SQLSTATE and constraint of a Postgres error: thrown through Prisma (the adapter's cause), or by
 * pg itself (a statement run on the pool directly: DirectSql).
 */
function driverCause(error: unknown): DriverErrorCause | null {
  if (error instanceof DatabaseError)
    return {
      originalCode: error.code,
      ...(error.constraint !== undefined ? { constraint: { index: error.constraint } } : {}),
    };
  if (typeof error !== 'object' || error === null) return null;
  const meta = (error as { meta?: { driverAdapterError?: { cause?: unknown } } }).meta;
  const cause = meta?.driverAdapterError?.cause;
  return typeof cause === 'object' && cause !== null ? (cause as DriverErrorCause) : null;
}

/**
 * Whether `error` is Postgres refusing a row because `key` already holds its values: SQLSTATE 23505
 * on that constraint. Read from the error's fields, never its message (messages follow lc_messages).
 * The adapter passes the constraint on as the key's columns (from the error's DETAIL), or as the
 * constraint's name: either identifies it.
 */
export function isUniqueViolation(error: unknown, key: UniqueKey): boolean {
  const cause = driverCause(error);
  if (cause?.originalCode !== UNIQUE_VIOLATION) return false;
  const { fields, index } = cause.constraint ?? {};
  if (index !== undefined) return index === key.constraint;
  return (
    Array.isArray(fields) &&
    fields.length === key.columns.length &&
    key.columns.every((column, i) => fields[i] === column)
  );
}

/**
 * Whether Postgres answered `error` to a statement it then rolled back, so that nothing of it was
 * written: an integrity violation (class 23), a data exception (22), a read-only transaction (25) or
 * a transaction rollback such as a deadlock (40). Any other failure (a lost connection, a server
 * shut down) may have come after the commit: its outcome is unknown.
 */
export function isRefusedStatement(error: unknown): boolean {
  const code = driverCause(error)?.originalCode;
  return typeof code === 'string' && ['22', '23', '25', '40'].includes(code.slice(0, 2));
}

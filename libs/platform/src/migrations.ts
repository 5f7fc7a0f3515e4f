import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { redact } from './preflight';

/**
 * Applies prisma/migrations/<name>/migration.sql in name order and records each in
 * `_prisma_migrations` exactly as Prisma does, so `prisma migrate status` agrees. The same runner
 * serves tests, docker compose and the Helm hook Job (docs/decisions/0002-migrations-runner.md).
 */

export const DEFAULT_MIGRATIONS_DIR = resolve(__dirname, '../../../prisma/migrations');

const CREATE_PRISMA_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** Any fixed number: only one runner at a time, whatever the number of pods starting. */
const LOCK_KEY = 72707369;

export interface Migration {
  readonly name: string;
  readonly sql: string;
  readonly checksum: string;
}

export interface MigrationReport {
  readonly applied: string[];
  readonly alreadyApplied: string[];
  readonly createdDatabase: boolean;
}

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

export function loadMigrations(dir = DEFAULT_MIGRATIONS_DIR): Migration[] {
  if (!existsSync(dir)) throw new MigrationError(`No migrations folder at ${dir}.`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** Creates the database named in the URL when the server lacks it (a laptop's first run). */
async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (name === '' || name === 'postgres') return false;
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return false;
    await admin.query(`create database "${name.replace(/"/g, '""')}"`);
    return true;
  } catch (error) {
    // Another runner created it at the same moment.
    if ((error as { code?: string }).code === '42P04') return false;
    throw error;
  } finally {
    await admin.end();
  }
}

interface Row {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

export async function runMigrations(
  databaseUrl: string,
  dir = DEFAULT_MIGRATIONS_DIR,
): Promise<MigrationReport> {
  const migrations = loadMigrations(dir);
  const createdDatabase = await ensureDatabase(databaseUrl);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  const alreadyApplied: string[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(CREATE_PRISMA_TABLE);
    const { rows } = await client.query<Row>(
      'select migration_name, checksum, finished_at, rolled_back_at from "_prisma_migrations" where rolled_back_at is null',
    );
    const known = new Map(rows.map((r) => [r.migration_name, r]));
    for (const migration of migrations) {
      const row = known.get(migration.name);
      if (row && row.finished_at === null) {
        throw new MigrationError(
          `Migration ${migration.name} started earlier and did not finish. Fix the database, then mark it rolled back.`,
        );
      }
      if (row) {
        if (row.checksum !== migration.checksum) {
          throw new MigrationError(
            `Migration ${migration.name} was changed after it was applied (checksum differs).`,
          );
        }
        alreadyApplied.push(migration.name);
        continue;
      }
      const id = randomUUID();
      await client.query('begin');
      try {
        await client.query(
          'insert into "_prisma_migrations" (id, checksum, migration_name, started_at) values ($1, $2, $3, now())',
          [id, migration.checksum, migration.name],
        );
        await client.query(migration.sql);
        await client.query(
          'update "_prisma_migrations" set finished_at = now(), applied_steps_count = 1 where id = $1',
          [id],
        );
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw new MigrationError(`Migration ${migration.name} failed: ${(error as Error).message}`);
      }
      applied.push(migration.name);
    }
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
  return { applied, alreadyApplied, createdDatabase };
}

/** What happened on one database of DATABASE_URLS: its report, or why it failed. */
export type DatabaseMigration =
  | { readonly index: number; readonly database: string; readonly report: MigrationReport }
  | { readonly index: number; readonly database: string; readonly error: string };

/**
 * Postgres split by shard (decision 0027): every migration on every database of `databaseUrls`,
 * all at once, each under its own advisory lock (the lock is per database) and each created when
 * missing. One database failing does not stop the others: each is reported, in DATABASE_URLS order,
 * by its redacted URL, so an operator sees which to fix; running again applies only what is missing.
 */
export async function runMigrationsOnEvery(
  databaseUrls: readonly string[],
  dir = DEFAULT_MIGRATIONS_DIR,
): Promise<DatabaseMigration[]> {
  if (databaseUrls.length === 0) throw new MigrationError('No database to migrate (DATABASE_URLS is empty).');
  // Read once, before any database is touched: a missing folder is one error, not N.
  loadMigrations(dir);
  const settled = await Promise.allSettled(databaseUrls.map((url) => runMigrations(url, dir)));
  return settled.map((outcome, index) => {
    const database = redact(databaseUrls[index]!);
    return outcome.status === 'fulfilled'
      ? { index, database, report: outcome.value }
      : { index, database, error: (outcome.reason as Error).message ?? String(outcome.reason) };
  });
}

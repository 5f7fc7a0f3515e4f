import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMigrations, runMigrations } from '@dominoes/platform';
import { databaseUrl, query } from './support/databases';

describe('the migrations runner', () => {
  const name = `dominoes_migrate_${process.pid}_${Date.now()}`;
  afterAll(async () => {
    await query(databaseUrl('postgres'), `drop database if exists "${name}" with (force)`);
  });

  it('creates the database, applies every migration once, and records them in _prisma_migrations as Prisma does', async () => {
    const first = await runMigrations(databaseUrl(name));
    expect(first.createdDatabase).toBe(true);
    expect(first.applied).toEqual(loadMigrations().map((m) => m.name));
    const second = await runMigrations(databaseUrl(name));
    expect(second.applied).toEqual([]);
    const rows = await query<{
      migration_name: string;
      checksum: string;
      applied_steps_count: number;
      finished_at: Date | null;
    }>(
      databaseUrl(name),
      'select migration_name, checksum, applied_steps_count, finished_at from _prisma_migrations',
    );
    expect(rows).toHaveLength(loadMigrations().length);
    expect(
      rows.every(
        (r) => r.finished_at !== null && r.applied_steps_count === 1 && /^[0-9a-f]{64}$/.test(r.checksum),
      ),
    ).toBe(true);
  });

  it('refuses a migration that was changed after it was applied, and rolls back a failing one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
    mkdirSync(join(dir, '001_a'));
    writeFileSync(join(dir, '001_a', 'migration.sql'), 'create table a_table (id int);');
    const db = `${name}_b`;
    try {
      await runMigrations(databaseUrl(db), dir);
      writeFileSync(join(dir, '001_a', 'migration.sql'), 'create table a_table (id bigint);');
      await expect(runMigrations(databaseUrl(db), dir)).rejects.toThrow(/changed after it was applied/);
      writeFileSync(join(dir, '001_a', 'migration.sql'), 'create table a_table (id int);');
      mkdirSync(join(dir, '002_b'));
      writeFileSync(
        join(dir, '002_b', 'migration.sql'),
        'create table b_table (id int); select no_such_function();',
      );
      await expect(runMigrations(databaseUrl(db), dir)).rejects.toThrow(/002_b failed/);
      const tables = await query<{ tablename: string }>(
        databaseUrl(db),
        "select tablename from pg_tables where tablename = 'b_table'",
      );
      expect(tables).toEqual([]);
    } finally {
      await query(databaseUrl('postgres'), `drop database if exists "${db}" with (force)`);
    }
  });
});

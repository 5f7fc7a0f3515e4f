import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadMigrations } from '@dominoes/platform';
import { databaseUrl, query } from './support/databases';

/**
 * Postgres split by shard (decision 0027): `node apps/migrate/dist/main.js` (the Helm hook Job, the
 * compose service and `npm start` run it) migrates every database of DATABASE_URLS, and names the
 * one that failed. Two real databases on the test server; the built runner as a process.
 */
const MAIN = resolve(__dirname, '../dist/main.js');
/** Database `name` on the test server, with a password that must never be printed. */
const urlOf = (name: string, password = 'not-printed') => databaseUrl(name, password || undefined);

function migrate(env: Record<string, string>) {
  const { DATABASE_URL: _unused, ...rest } = process.env;
  return spawnSync(process.execPath, [MAIN], {
    env: { ...rest, LOG_PRETTY: '0', LOG_LEVEL: 'info', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

const applied = (url: string) =>
  query<{ migration_name: string }>(
    url,
    'select migration_name from _prisma_migrations where finished_at is not null order by migration_name',
  ).then((rows) => rows.map((r) => r.migration_name));

describe('the migrations runner on every database of DATABASE_URLS', () => {
  const names = [0, 1, 2, 3].map((i) => `dominoes_migrate_every_${process.pid}_${Date.now()}_${i}`);
  afterAll(async () => {
    for (const name of names)
      await query(urlOf('postgres', ''), `drop database if exists "${name}" with (force)`);
  });

  it('creates both databases, applies every migration to each, and reports each; run again, applies nothing', async () => {
    const urls = [urlOf(names[0]!), urlOf(names[1]!)];
    const first = migrate({ DATABASE_URLS: urls.join(',') });
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const all = loadMigrations().map((m) => m.name);
    for (const url of urls) expect(await applied(url)).toEqual(all);
    const lines = first.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as { database: string; index: number; createdDatabase: boolean; applied: string[] },
      );
    expect(lines.map((l) => [l.index, l.createdDatabase, l.applied.length]).sort()).toEqual([
      [0, true, all.length],
      [1, true, all.length],
    ]);
    // Each database named by its URL with the password hidden.
    expect(lines.map((l) => l.database).sort()).toEqual(
      urls.map((u) => u.replace('not-printed', '***')).sort(),
    );
    expect(first.stdout).not.toContain('not-printed');

    const again = migrate({ DATABASE_URLS: urls.join(',') });
    expect(again.status).toBe(0);
    const msgs = again.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; applied: string[] });
    expect(msgs.map((m) => [m.msg, m.applied.length])).toEqual([
      ['database is up to date', 0],
      ['database is up to date', 0],
    ]);
  });

  it('exits 1 naming the database that failed (its URL redacted), and still migrates the other', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrations-every-'));
    mkdirSync(join(dir, '001_a'));
    writeFileSync(join(dir, '001_a', 'migration.sql'), 'create table a_table (id int);');
    const good = urlOf(names[2]!);
    // Database 1 already has the table the migration creates, so the migration fails there only.
    const bad = urlOf(names[0]!);
    await query(bad, 'create table a_table (id int)');
    const result = migrate({ DATABASE_URLS: `${good},${bad}`, MIGRATIONS_DIR: dir });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `database 1 (${bad.replace('not-printed', '***')}): Migration 001_a failed`,
    );
    expect(result.stderr).toContain('1 of 2 databases failed');
    expect(result.stderr + result.stdout).not.toContain('not-printed');
    expect(result.stderr).not.toContain(names[2]);
    expect(await applied(good)).toEqual(['001_a']);
    expect(await applied(bad)).not.toContain('001_a');
  });

  it('with one database (DATABASE_URL only, as npm start runs it) migrates it as before', async () => {
    const url = urlOf(names[3]!);
    const result = migrate({ DATABASE_URL: url });
    expect(result.status).toBe(0);
    expect(await applied(url)).toEqual(loadMigrations().map((m) => m.name));
  });
});

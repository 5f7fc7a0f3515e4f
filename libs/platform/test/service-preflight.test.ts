import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * A service that starts with a database of DATABASE_URLS unreachable (decision 0027) stops before it
 * starts, with one line naming that database: the built table-service (`npm test` builds it first).
 */
const TABLE_SERVICE = resolve(__dirname, '../../../apps/table-service/dist/main.js');

describe('the start-up check of a service on Postgres split by shard', () => {
  it('exits 1 naming the one database of DATABASE_URLS that does not answer, not the others', () => {
    const good = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
    const run = spawnSync(process.execPath, [TABLE_SERVICE], {
      env: {
        ...process.env,
        DATABASE_URLS: `${good},postgresql://postgres:secret@127.0.0.1:1/elsewhere`,
        TABLE_SHARDS: '4',
        PORT: '0',
        LOG_PRETTY: '0',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('Cannot reach Postgres'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('127.0.0.1:1/elsewhere');
    // The password is not printed.
    expect(run.stderr).not.toContain('secret');
  });
});

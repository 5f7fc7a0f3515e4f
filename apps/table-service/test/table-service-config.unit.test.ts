import { hostname } from 'node:os';
import { ConfigError } from '@dominoes/platform';
import { readConfig } from '../src/config';
import { DEFAULT_TABLE_LIMITS } from '../src/table/table-policy';

/** What every case sets: a database (the base config needs one) and nothing of the table-service's own. */
const BASE = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/postgres' };
const read = (env: Record<string, string> = {}) => readConfig({ ...BASE, ...env });
const DAY_MS = 24 * 3_600_000;

describe('table-service configuration (readConfig)', () => {
  it('without any of its variables: port 8081 and the documented defaults (decisions 0011, 0017)', () => {
    expect(read()).toMatchObject({
      port: 8081,
      overdueGraceMs: 2000,
      presenceSweepMs: 2000,
      gatewayGoneGraceMs: 10_000,
      databasePoolSize: 24,
      tableLimits: DEFAULT_TABLE_LIMITS,
      archive: { afterMs: 7 * DAY_MS, intervalMs: 600_000 },
    });
    expect(DEFAULT_TABLE_LIMITS).toEqual({
      maxOpenTablesPerHost: 5,
      waitingTableTtlMs: 15 * 60_000,
      abandonedTableMs: 2 * 60_000,
    });
  });

  it('without REPLICA_ID a replica is named after its host and 6 random hex digits, different for each reading', () => {
    const first = read().replicaId;
    const second = read().replicaId;
    expect(first).toMatch(new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-[0-9a-f]{6}$`));
    expect(second).not.toBe(first);
  });

  it('reads every variable of its own, each into its place', () => {
    expect(
      read({
        PORT: '9000',
        REPLICA_ID: 'replica-7',
        OVERDUE_GRACE_MS: '3000',
        PRESENCE_SWEEP_MS: '700',
        GATEWAY_GONE_GRACE_MS: '0',
        DATABASE_POOL_SIZE: '3',
        MAX_OPEN_TABLES_PER_HOST: '9',
        WAITING_TABLE_TTL_MS: '5000',
        ABANDONED_TABLE_MS: '6000',
        ARCHIVE_AFTER_MS: '0',
        ARCHIVE_INTERVAL_MS: '100',
      }),
    ).toMatchObject({
      port: 9000,
      replicaId: 'replica-7',
      overdueGraceMs: 3000,
      presenceSweepMs: 700,
      gatewayGoneGraceMs: 0,
      databasePoolSize: 3,
      tableLimits: { maxOpenTablesPerHost: 9, waitingTableTtlMs: 5000, abandonedTableMs: 6000 },
      archive: { afterMs: 0, intervalMs: 100 },
    });
  });

  it('an empty REPLICA_ID counts as unset', () => {
    expect(read({ REPLICA_ID: '' }).replicaId).toMatch(/-[0-9a-f]{6}$/);
  });

  it.each([
    ['PORT', 0, 65535],
    ['OVERDUE_GRACE_MS', 100, 600_000],
    ['PRESENCE_SWEEP_MS', 50, 600_000],
    ['GATEWAY_GONE_GRACE_MS', 0, 3_600_000],
    ['DATABASE_POOL_SIZE', 1, 500],
    ['MAX_OPEN_TABLES_PER_HOST', 1, 10_000],
    ['WAITING_TABLE_TTL_MS', 1000, 7 * DAY_MS],
    ['ABANDONED_TABLE_MS', 1000, 7 * DAY_MS],
    ['ARCHIVE_AFTER_MS', 0, 10 * 365 * DAY_MS],
    ['ARCHIVE_INTERVAL_MS', 100, DAY_MS],
  ])('%s takes whole numbers from %i to %i and refuses one outside, naming it', (name, min, max) => {
    expect(() => read({ [name]: String(min) })).not.toThrow();
    expect(() => read({ [name]: String(max) })).not.toThrow();
    for (const bad of [min - 1, max + 1])
      expect(() => read({ [name]: String(bad) })).toThrow(
        new ConfigError(`${name} must be a whole number from ${min} to ${max}; got "${bad}".`),
      );
  });
});

import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { intFromEnv, readBaseConfig, stringFromEnv, type BaseConfig } from '@dominoes/platform';
import { DEFAULT_TABLE_LIMITS, type TableLimits } from './table/table-policy';

export interface TableServiceConfig extends BaseConfig {
  readonly port: number;
  readonly replicaId: string;
  /** A deadline this late with no firing gets its job set again, due now (decision 0011). */
  readonly overdueGraceMs: number;
  /** How often the seats' connection ids are checked against the gateways' heartbeats. */
  readonly presenceSweepMs: number;
  /**
   * How long a gateway's heartbeat must be missing, without a break, before its connections count as
   * closed: longer than a gateway heartbeat interval, so that a restarted (empty) Redis drops no live socket.
   */
  readonly gatewayGoneGraceMs: number;
  /**
   * Postgres connections of this replica. Every intent that changes a table holds one for its one
   * write; with too few, intents queue for a connection (docs/performance.md: 10 capped a replica
   * at about 450 actions/s). Replicas × this must stay under Postgres's max_connections.
   */
  readonly databasePoolSize: number;
  /** MAX_OPEN_TABLES_PER_HOST (default 5) and WAITING_TABLE_TTL_MS (default 15 min). */
  readonly tableLimits: TableLimits;
  /**
   * Retention: a finished or closed table idle for ARCHIVE_AFTER_MS (7 days; 0: never) moves to the
   * `archive` schema, checked every ARCHIVE_INTERVAL_MS (10 min).
   */
  readonly archive: { readonly afterMs: number; readonly intervalMs: number };
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): TableServiceConfig {
  return {
    ...readBaseConfig(env),
    port: intFromEnv(env, 'PORT', 8081, 0, 65535),
    replicaId: stringFromEnv(env, 'REPLICA_ID', `${hostname()}-${randomBytes(3).toString('hex')}`),
    overdueGraceMs: intFromEnv(env, 'OVERDUE_GRACE_MS', 2000, 100, 600_000),
    presenceSweepMs: intFromEnv(env, 'PRESENCE_SWEEP_MS', 2000, 50, 600_000),
    gatewayGoneGraceMs: intFromEnv(env, 'GATEWAY_GONE_GRACE_MS', 10_000, 0, 3_600_000),
    databasePoolSize: intFromEnv(env, 'DATABASE_POOL_SIZE', 24, 1, 500),
    tableLimits: {
      maxOpenTablesPerHost: intFromEnv(
        env,
        'MAX_OPEN_TABLES_PER_HOST',
        DEFAULT_TABLE_LIMITS.maxOpenTablesPerHost,
        1,
        10_000,
      ),
      waitingTableTtlMs: intFromEnv(
        env,
        'WAITING_TABLE_TTL_MS',
        DEFAULT_TABLE_LIMITS.waitingTableTtlMs,
        1000,
        7 * 24 * 3_600_000,
      ),
    },
    archive: {
      afterMs: intFromEnv(env, 'ARCHIVE_AFTER_MS', 7 * 24 * 3_600_000, 0, 10 * 365 * 24 * 3_600_000),
      intervalMs: intFromEnv(env, 'ARCHIVE_INTERVAL_MS', 600_000, 100, 24 * 3_600_000),
    },
  };
}

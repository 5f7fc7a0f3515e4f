import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { envInt, envOptionalString, serviceConfig } from '@dominoes/platform';
import { DEFAULT_TABLE_LIMITS } from './table/table-policy';

const DAY_MS = 24 * 3_600_000;

export const readConfig = serviceConfig(
  {
    PORT: envInt(8081, 0, 65535),
    REPLICA_ID: envOptionalString(),
    OVERDUE_GRACE_MS: envInt(2000, 100, 600_000),
    PRESENCE_SWEEP_MS: envInt(2000, 50, 600_000),
    GATEWAY_GONE_GRACE_MS: envInt(10_000, 0, 3_600_000),
    DATABASE_POOL_SIZE: envInt(24, 1, 500),
    MAX_OPEN_TABLES_PER_HOST: envInt(DEFAULT_TABLE_LIMITS.maxOpenTablesPerHost, 1, 10_000),
    WAITING_TABLE_TTL_MS: envInt(DEFAULT_TABLE_LIMITS.waitingTableTtlMs, 1000, 7 * DAY_MS),
    ABANDONED_TABLE_MS: envInt(DEFAULT_TABLE_LIMITS.abandonedTableMs, 1000, 7 * DAY_MS),
    ARCHIVE_AFTER_MS: envInt(7 * DAY_MS, 0, 10 * 365 * DAY_MS),
    ARCHIVE_INTERVAL_MS: envInt(600_000, 100, DAY_MS),
  },
  (env) => ({
    port: env.PORT,
    replicaId: env.REPLICA_ID ?? `${hostname()}-${randomBytes(3).toString('hex')}`,
    /** A deadline this late with no firing gets its job set again, due now (decision 0011). */
    overdueGraceMs: env.OVERDUE_GRACE_MS,
    /** How often the seats' connection ids are checked against the gateways' heartbeats. */
    presenceSweepMs: env.PRESENCE_SWEEP_MS,
    /**
     * How long a gateway's heartbeat must be missing, without a break, before its connections count as
     * closed: longer than a gateway heartbeat interval, so that a restarted (empty) Redis drops no live socket.
     */
    gatewayGoneGraceMs: env.GATEWAY_GONE_GRACE_MS,
    /**
     * Postgres connections of this replica. Every intent that changes a table holds one for its one
     * write; with too few, intents queue for a connection (docs/performance.md: 10 capped a replica
     * at about 450 actions/s). Replicas × this must stay under Postgres's max_connections.
     */
    databasePoolSize: env.DATABASE_POOL_SIZE,
    /**
     * MAX_OPEN_TABLES_PER_HOST (default 5), WAITING_TABLE_TTL_MS (default 15 min) and ABANDONED_TABLE_MS
     * (default 2 min: a playing table with no seat connected that long ends as abandoned; decision 0017).
     */
    tableLimits: {
      maxOpenTablesPerHost: env.MAX_OPEN_TABLES_PER_HOST,
      waitingTableTtlMs: env.WAITING_TABLE_TTL_MS,
      abandonedTableMs: env.ABANDONED_TABLE_MS,
    },
    /**
     * Retention: a finished or closed table idle for ARCHIVE_AFTER_MS (7 days; 0: never) moves to the
     * `archive` schema, checked every ARCHIVE_INTERVAL_MS (10 min).
     */
    archive: { afterMs: env.ARCHIVE_AFTER_MS, intervalMs: env.ARCHIVE_INTERVAL_MS },
  }),
);

export type TableServiceConfig = ReturnType<typeof readConfig>;

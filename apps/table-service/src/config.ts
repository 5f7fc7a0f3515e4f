import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { intFromEnv, readBaseConfig, stringFromEnv, type BaseConfig } from '@dominoes/platform';

export interface TableServiceConfig extends BaseConfig {
  readonly port: number;
  readonly replicaId: string;
  /** A deadline this late with no firing is fired by the table-service itself. */
  readonly overdueGraceMs: number;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): TableServiceConfig {
  return {
    ...readBaseConfig(env),
    port: intFromEnv(env, 'PORT', 8081, 0, 65535),
    replicaId: stringFromEnv(env, 'REPLICA_ID', `${hostname()}-${randomBytes(3).toString('hex')}`),
    overdueGraceMs: intFromEnv(env, 'OVERDUE_GRACE_MS', 2000, 100, 600_000),
  };
}

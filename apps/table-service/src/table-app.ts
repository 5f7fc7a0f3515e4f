import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { startService, type RunningService, type ServiceOptions } from '@dominoes/platform';
import type { TableServiceConfig } from './config';
import { TableServiceMetrics } from './metrics';
import { TableServiceModule } from './table-service.module';
import { ShardedStreamsServer } from './transport/sharded-streams.server';

export interface TableServiceApp extends RunningService {
  readonly app: INestApplication;
  readonly metrics: TableServiceMetrics;
}

/** Builds and starts the table-service: its HTTP port (health, metrics) and the shard transport. */
export async function startTableService(
  config: TableServiceConfig,
  options: ServiceOptions = {},
): Promise<TableServiceApp> {
  const { app, port, logger, metrics } = await startService('table-service', config, options, {
    metrics: TableServiceMetrics,
    module: (deps) => TableServiceModule.forRoot({ config, ...deps }),
    transport: (nest: INestApplication) => nest.get(ShardedStreamsServer),
  });
  logger.info(
    {
      port: config.port,
      replicaId: config.replicaId,
      shards: config.tableShards,
      durations: config.durations,
      presenceSweepMs: config.presenceSweepMs,
      gatewayGoneGraceMs: config.gatewayGoneGraceMs,
      tableLimits: config.tableLimits,
    },
    'table-service ready',
  );
  let closing: Promise<void> | null = null;
  return { app, port, metrics, shutdown: () => (closing ??= app.close()) };
}

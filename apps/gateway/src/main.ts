import './tracing'; // first: starts OpenTelemetry before anything it traces is loaded
import 'reflect-metadata';
import {
  checkRedis,
  ConfigError,
  createLogger,
  exitGracefullyOnSignals,
  telemetryStatus,
} from '@dominoes/platform';
import { readGatewayConfig, type GatewayConfig } from './config';
import { startGateway } from './gateway-app';

async function main(): Promise<void> {
  let config: GatewayConfig;
  try {
    config = readGatewayConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`gateway: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger('gateway', config.logLevel);
  if (telemetryStatus().mode !== 'off') logger.info({ tracing: telemetryStatus() }, 'tracing on');
  // The gateway only needs Redis to start; Postgres is read for table summaries and readiness.
  const problem = await checkRedis(config.redisUrl);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
  const gateway = await startGateway(config, { logger });

  exitGracefullyOnSignals({
    name: 'gateway',
    logger,
    graceMs: config.shutdownGraceMs,
    starting: {
      message: 'gateway stopping: telling sockets to reconnect',
      fields: () => ({ sockets: gateway.hub.size }),
    },
    shutdown: () => gateway.shutdown(),
  });
}

main().catch((error: unknown) => {
  console.error('gateway failed to start:', error);
  process.exit(1);
});

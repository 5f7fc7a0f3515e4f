import './tracing'; // first: starts OpenTelemetry before anything it traces is loaded
import 'reflect-metadata';
import { runService } from '@dominoes/platform';
import { readGatewayConfig } from './config';
import { startGateway } from './gateway-app';

runService({
  name: 'gateway',
  readConfig: () => readGatewayConfig(),
  // The gateway only needs Redis to start; Postgres is read for table summaries and readiness.
  needs: ['redis'],
  start: (config, logger) => startGateway(config, { logger }),
  stopping: {
    message: 'gateway stopping: telling sockets to reconnect',
    fields: (gateway) => ({ sockets: gateway.hub.size }),
  },
});

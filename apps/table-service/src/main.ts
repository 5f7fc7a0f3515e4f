import './tracing'; // first: starts OpenTelemetry before anything it traces is loaded
import 'reflect-metadata';
import { runService } from '@dominoes/platform';
import { readConfig } from './config';
import { startTableService } from './table-app';

runService({
  name: 'table-service',
  readConfig: () => readConfig(),
  needs: ['postgres', 'redis'],
  start: (config, logger) => startTableService(config, { logger }),
  stopping: { message: 'table-service stopping: finishing the intents in hand, giving shards back' },
});

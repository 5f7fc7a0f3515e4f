import './tracing'; // first: starts OpenTelemetry before anything it traces is loaded
import 'reflect-metadata';
import { runService } from '@dominoes/platform';
import { readTimerConfig } from './config';
import { startTimerService } from './timer-app';

runService({
  name: 'timer-service',
  readConfig: () => readTimerConfig(),
  needs: ['redis'],
  start: (config, logger) => startTimerService(config, { logger }),
  stopping: { message: 'timer-service stopping: finishing the jobs in hand' },
});

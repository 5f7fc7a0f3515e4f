/*
 * Loaded first by main.ts (`import './tracing';` before any other import), so that OpenTelemetry's
 * instrumentations are in place before http, pg, ioredis and Nest are loaded: a module that was
 * loaded before the SDK started is not traced. Off (and free) unless OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_TEST_SPANS_FILE is set; see docs/operations.md, "Tracing".
 *
 * It loads the telemetry module by its file: '@dominoes/platform' itself would load pg and ioredis.
 */
import type * as Platform from '@dominoes/platform';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const telemetry = require('@dominoes/platform/dist/telemetry') as Pick<typeof Platform, 'startTelemetry'>;
telemetry.startTelemetry('timer-service');

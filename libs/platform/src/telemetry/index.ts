/*
 * Tracing (OpenTelemetry). This module and its imports load only @opentelemetry/api and node:fs, so
 * an app can require it before pg, ioredis and Nest; the SDK itself is loaded by startTelemetry()
 * only when tracing is on. See docs/operations.md, "Tracing".
 */
export * from './spans';
export * from './start';
export type { SpanRecord } from './span-file-exporter';

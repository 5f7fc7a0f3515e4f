/* eslint-disable @typescript-eslint/no-require-imports -- the SDK is loaded only when tracing is on */
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { setTelemetryEnabled, telemetryEnabled } from './spans';

/**
 * How a process traces:
 * - `off`: no OTLP endpoint and no test span file. The SDK is not even loaded; the span helpers
 *   run their function and nothing else.
 * - `otlp`: OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. Spans go
 *   there in batches, as every standard OTEL_* variable says (protocol, headers, sampler, BSP sizes).
 * - `file`: OTEL_TEST_SPANS_FILE is set (tests only): every span is appended at once, as a JSON
 *   line, to `<OTEL_TEST_SPANS_FILE>.<service>.jsonl`.
 * - `custom`: a test passed its own span processors.
 */
export type TelemetryMode = 'off' | 'otlp' | 'file' | 'custom';

export interface TelemetryStatus {
  readonly mode: TelemetryMode;
  readonly service: string;
  /** Where the spans go: the OTLP endpoint or the span file. */
  readonly target?: string;
}

export interface TelemetryOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Tests: send spans to these processors (turns tracing on whatever the environment says). */
  readonly spanProcessors?: SpanProcessor[];
  /** Patch http, pg and ioredis (default true). */
  readonly instrument?: boolean;
}

/** The instrumentations this system needs, unless OTEL_NODE_ENABLED_INSTRUMENTATIONS names others. */
export const DEFAULT_INSTRUMENTATIONS = ['http', 'pg', 'ioredis'] as const;

/** Paths never traced: probes and scrapes come every few seconds and say nothing about play. */
const UNTRACED_PATHS = /^\/(health\/|metrics(\?|$))/;

let sdk: NodeSDK | null = null;
let status: TelemetryStatus = { mode: 'off', service: '' };

const nonEmpty = (value: string | undefined): string | undefined =>
  value !== undefined && value.trim() !== '' ? value.trim() : undefined;

/** What startTelemetry would do with this environment (exported for tests and the docs). */
export function telemetryModeOf(env: NodeJS.ProcessEnv): { mode: TelemetryMode; target?: string } {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { mode: 'off' };
  const file = nonEmpty(env.OTEL_TEST_SPANS_FILE);
  if (file) return { mode: 'file', target: file };
  if (env.OTEL_TRACES_EXPORTER?.split(',').map((s) => s.trim())[0] === 'none') return { mode: 'off' };
  const endpoint =
    nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  // The target is only logged: a user:password in the URL is not.
  return endpoint ? { mode: 'otlp', target: endpoint.replace(/\/\/[^@/]*@/, '//***@') } : { mode: 'off' };
}

/** The span file of one service: the services of a test share the variable, each writes its own file. */
export function spanFileOf(base: string, service: string): string {
  return `${base}.${service}.jsonl`;
}

/** SDK warnings and errors (an unreachable collector, ...) as JSON lines on stderr, like the logs. */
function jsonDiagLogger(service: string): DiagLogger {
  const write = (level: number, message: string, args: unknown[]) =>
    process.stderr.write(
      `${JSON.stringify({
        level,
        time: new Date().toISOString(),
        service,
        msg: `opentelemetry: ${message}`,
        ...(args.length > 0
          ? { details: args.map((a) => (a instanceof Error ? a.message : String(a))) }
          : {}),
      })}\n`,
    );
  const ignore = () => undefined;
  return {
    error: (message, ...args) => write(50, message, args),
    warn: (message, ...args) => write(40, message, args),
    info: ignore,
    debug: ignore,
    verbose: ignore,
  };
}

/**
 * Starts tracing for this process, or does nothing when it is off (see TelemetryMode).
 *
 * Call it FIRST, before anything loads http, pg, ioredis or Nest: the instrumentations patch a
 * module when it is required, and cannot patch one that was loaded before. Each app's main.ts
 * therefore begins with `import './tracing';`, and apps/<app>/src/tracing.ts loads this module by
 * its file (`@dominoes/platform/dist/telemetry`), because the package index loads pg and ioredis.
 */
export function startTelemetry(service: string, options: TelemetryOptions = {}): TelemetryStatus {
  if (telemetryEnabled()) return status;
  const env = options.env ?? process.env;
  const chosen = options.spanProcessors ? { mode: 'custom' as const } : telemetryModeOf(env);
  status = { service, ...chosen };
  if (chosen.mode === 'off') return status;

  if (!nonEmpty(env.OTEL_LOG_LEVEL)) diag.setLogger(jsonDiagLogger(service), DiagLogLevel.WARN);
  const { NodeSDK: Sdk } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');

  let spanProcessors = options.spanProcessors;
  if (chosen.mode === 'file') {
    const { SimpleSpanProcessor } =
      require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
    const { SpanFileExporter } = require('./span-file-exporter') as typeof import('./span-file-exporter');
    spanProcessors = [
      new SimpleSpanProcessor(new SpanFileExporter(spanFileOf(chosen.target!, service), service)),
    ];
  }

  sdk = new Sdk({
    serviceName: nonEmpty(env.OTEL_SERVICE_NAME) ?? service,
    // Traces only: metrics are prom-client's /metrics, logs are pino's lines on stdout.
    metricReaders: [],
    logRecordProcessors: [],
    // Undefined: the OTLP exporter and batch processor the OTEL_* variables describe.
    ...(spanProcessors ? { spanProcessors } : {}),
    instrumentations: options.instrument === false ? [] : instrumentations(env),
  });
  sdk.start();
  setTelemetryEnabled(true);
  return status;
}

function instrumentations(env: NodeJS.ProcessEnv) {
  const { getNodeAutoInstrumentations } =
    require('@opentelemetry/auto-instrumentations-node') as typeof import('@opentelemetry/auto-instrumentations-node');
  // OTEL_NODE_ENABLED_INSTRUMENTATIONS (e.g. "http,pg,ioredis,express,nestjs-core") chooses others;
  // by default only the three on an intent's path. fs, dns and net would add a span to every
  // syscall-sized step and are never on.
  const chosen = nonEmpty(env.OTEL_NODE_ENABLED_INSTRUMENTATIONS) ?? DEFAULT_INSTRUMENTATIONS.join(',');
  const saved = process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS;
  process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS = chosen;
  try {
    return getNodeAutoInstrumentations({
      '@opentelemetry/instrumentation-fs': { enabled: false },
      '@opentelemetry/instrumentation-dns': { enabled: false },
      '@opentelemetry/instrumentation-net': { enabled: false },
      '@opentelemetry/instrumentation-http': {
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.test(request.url ?? ''),
      },
      // Only inside a trace: the lease renewals, stream polls and BullMQ's own commands would each
      // start a trace of their own several times a second.
      '@opentelemetry/instrumentation-pg': { requireParentSpan: true },
      '@opentelemetry/instrumentation-ioredis': {
        requireParentSpan: true,
        // The command and its key only: a PUBLISH carries a seat's hidden hand.
        dbStatementSerializer: (command, args) =>
          args.length > 0 ? `${command} ${String(args[0])}` : command,
      },
    });
  } finally {
    if (saved === undefined) delete process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS;
    else process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS = saved;
  }
}

/** How this process traces. */
export function telemetryStatus(): TelemetryStatus {
  return status;
}

/** Exports what is still buffered and stops tracing; waits at most `timeoutMs`. Safe to call when off. */
export async function shutdownTelemetry(timeoutMs = 2000): Promise<void> {
  const running = sdk;
  if (!running) return;
  sdk = null;
  setTelemetryEnabled(false);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    running.shutdown().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}

import { appendFileSync } from 'node:fs';
import type { HrTime } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** One finished span as the test span file holds it (one JSON object per line). */
export interface SpanRecord {
  readonly service: string;
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  /** The instrumentation that made it: `dominoes` for ours, `@opentelemetry/instrumentation-pg`, ... */
  readonly scope: string;
  readonly startMs: number;
  readonly durationMs: number;
  readonly status: number;
  readonly attributes: Record<string, unknown>;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
}

const ms = ([s, ns]: HrTime): number => s * 1000 + ns / 1e6;

export function toSpanRecord(service: string, span: ReadableSpan): SpanRecord {
  const ctx = span.spanContext();
  return {
    service,
    name: span.name,
    kind: span.kind,
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentSpanId: span.parentSpanContext?.spanId ?? null,
    scope: span.instrumentationScope.name,
    startMs: ms(span.startTime),
    durationMs: ms(span.duration),
    status: span.status.code,
    attributes: { ...span.attributes },
    links: span.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
  };
}

/**
 * The test hook behind OTEL_TEST_SPANS_FILE: appends every exported span as a JSON line to `path`,
 * synchronously, so a test in another process can read the spans as soon as they ended (with a
 * SimpleSpanProcessor, that is right away). Never used in production.
 */
export class SpanFileExporter implements SpanExporter {
  constructor(
    private readonly path: string,
    private readonly service: string,
  ) {}

  export(spans: ReadableSpan[], resultCallback: Parameters<SpanExporter['export']>[1]): void {
    try {
      const lines = spans.map((span) => JSON.stringify(toSpanRecord(this.service, span))).join('\n');
      if (lines) appendFileSync(this.path, `${lines}\n`);
      resultCallback({ code: 0 });
    } catch (error) {
      resultCallback({ code: 1, error: error as Error });
    }
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';

/*
 * The tracing helpers the services call on their hot paths. Every one of them checks one flag first:
 * when startTelemetry() did not start the SDK (no OTLP endpoint, no test span file) they run `fn`
 * and return, without touching the OpenTelemetry API at all.
 */

/** Shared through globalThis so that two copies of this module (src and dist) agree. */
const STATE = Symbol.for('dominoes.telemetry.state');
interface TelemetryState {
  enabled: boolean;
}
const state: TelemetryState =
  ((globalThis as Record<symbol, unknown>)[STATE] as TelemetryState | undefined) ??
  ((globalThis as Record<symbol, unknown>)[STATE] = { enabled: false });

/** True once startTelemetry() has started the SDK in this process. */
export function telemetryEnabled(): boolean {
  return state.enabled;
}

/** @internal startTelemetry / shutdownTelemetry only. */
export function setTelemetryEnabled(enabled: boolean): void {
  state.enabled = enabled;
}

export { SpanKind };
export type { Span, Attributes };

export interface SpanOptions {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
}

const TRACER_NAME = 'dominoes';
const tracer = () => trace.getTracer(TRACER_NAME);

/** Ends `span` when `result` settles (or now, for a plain value); errors mark the span and go on. */
function finish<T>(span: Span, run: () => T): T {
  let result: T;
  try {
    result = run();
  } catch (error) {
    fail(span, error);
    span.end();
    throw error;
  }
  if (result instanceof Promise) {
    return result.then(
      (value: unknown) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        fail(span, error);
        span.end();
        throw error;
      },
    ) as T;
  }
  span.end();
  return result;
}

function fail(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

function run<T>(
  parent: Context,
  name: string,
  fn: (span: Span | null) => T,
  options: SpanOptions,
  links?: Link[],
): T {
  const span = tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links },
    parent,
  );
  return context.with(trace.setSpan(parent, span), () => finish(span, () => fn(span)));
}

/**
 * Runs `fn` in a new span, a child of the active one. `fn` gets the span (null when tracing is off)
 * to add attributes. A returned promise ends the span when it settles; a throw or rejection marks
 * it as an error and is passed on unchanged.
 */
export function withSpan<T>(name: string, fn: (span: Span | null) => T, options: SpanOptions = {}): T {
  if (!state.enabled) return fn(null);
  return run(context.active(), name, fn, options);
}

function extract(traceparent: string): Context {
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/**
 * Runs `fn` in a new span whose parent is the W3C `traceparent` a message carried (an intent
 * envelope, a seat event), so the trace goes on across Redis. Without a traceparent the span starts
 * a trace of its own.
 */
export function withRemoteParent<T>(
  traceparent: string | undefined,
  name: string,
  fn: (span: Span | null) => T,
  options: SpanOptions = {},
): T {
  if (!state.enabled) return fn(null);
  return run(traceparent ? extract(traceparent) : ROOT_CONTEXT, name, fn, options);
}

/**
 * Runs `fn` in the root span of a NEW trace that links to the span a message carried. For work
 * that happens long after the message was made (a deadline job fires 45 s after the turn that set
 * it), so that the turn's trace is not stretched over minutes and the two stay one click apart.
 */
export function withLinkTo<T>(
  traceparent: string | undefined,
  name: string,
  fn: (span: Span | null) => T,
  options: SpanOptions = {},
): T {
  if (!state.enabled) return fn(null);
  const linked = traceparent ? trace.getSpanContext(extract(traceparent)) : undefined;
  const links = linked && trace.isSpanContextValid(linked) ? [{ context: linked }] : undefined;
  return run(ROOT_CONTEXT, name, fn, options, links);
}

/** The W3C traceparent of the active span, to put into a message; undefined when there is none. */
export function injectTraceparent(): string | undefined {
  if (!state.enabled) return undefined;
  const carrier: { traceparent?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The ids of the active span, for log lines (see createLogger); empty outside any span. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  if (!state.enabled) return {};
  const span = trace.getActiveSpan();
  if (!span) return {};
  const ctx = span.spanContext();
  if (!trace.isSpanContextValid(ctx)) return {};
  return { trace_id: ctx.traceId, span_id: ctx.spanId };
}

/** Adds attributes to the active span (an outcome, a table id); nothing when tracing is off. */
export function setSpanAttributes(attributes: Attributes): void {
  if (!state.enabled) return;
  trace.getActiveSpan()?.setAttributes(attributes);
}

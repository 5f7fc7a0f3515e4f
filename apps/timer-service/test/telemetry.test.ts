import { trace } from '@opentelemetry/api';
import pino from 'pino';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { IntentEnvelope } from '@dominoes/protocol';
import {
  createLogger,
  shutdownTelemetry,
  startTelemetry,
  traceLogFields,
  withLinkTo,
  withSpan,
  type DeadlineQueues,
  type ShardedStreamsClient,
} from '@dominoes/platform';
import { readTimerConfig } from '../src/config';
import { DeadlineWorker } from '../src/deadline-worker';
import { TimerMetrics } from '../src/metrics';

/** The change that set the deadline (the table-service's table.intent span), as the job carries it. */
const SETTER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SETTER_SPAN = '00f067aa0ba902b7';
const SETTER = `00-${SETTER_TRACE}-${SETTER_SPAN}-01`;

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor(exporter);
/** The finished spans, once the processor has handed them all to the exporter. */
const finished = async () => (await processor.forceFlush(), exporter.getFinishedSpans());

beforeAll(() => {
  startTelemetry('timer-service', { spanProcessors: [processor], instrument: false });
});
afterAll(() => shutdownTelemetry());
beforeEach(() => exporter.reset());

describe('timer-service tracing', () => {
  it('a fired deadline is a new trace linked to the change that set it, and its intent carries that trace on', async () => {
    const sent: IntentEnvelope[] = [];
    const client = { dispatch: async (envelope: IntentEnvelope) => void sent.push(envelope) };
    const worker = new DeadlineWorker(
      readTimerConfig({}),
      client as unknown as ShardedStreamsClient,
      {} as DeadlineQueues,
      { now: () => 1_000_500 },
      new TimerMetrics(false),
      createLogger('timer-test', 'silent'),
    );
    await worker.process({
      id: 'j1',
      data: { tableId: 'T1', key: 'T1:turn:7', dueAt: 1_000_000, traceparent: SETTER },
    });

    const [fire] = await finished();
    expect(fire!.name).toBe('deadline.fire');
    expect(fire!.parentSpanContext).toBeUndefined();
    expect(fire!.spanContext().traceId).not.toBe(SETTER_TRACE);
    expect(fire!.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([
      [SETTER_TRACE, SETTER_SPAN],
    ]);
    expect(fire!.attributes).toMatchObject({ 'dominoes.table': 'T1', 'dominoes.deadline.key': 'T1:turn:7' });
    const { traceId, spanId } = fire!.spanContext();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    expect(sent[0]!.intent).toEqual({ kind: 'deadline', key: 'T1:turn:7', dueAt: 1_000_000 });
  });

  it('a job without a traceparent (rebuilt from Postgres) still gets a trace, with no link', async () => {
    const sent: IntentEnvelope[] = [];
    const client = { dispatch: async (envelope: IntentEnvelope) => void sent.push(envelope) };
    const worker = new DeadlineWorker(
      readTimerConfig({}),
      client as unknown as ShardedStreamsClient,
      {} as DeadlineQueues,
      { now: () => 5 },
      new TimerMetrics(false),
      createLogger('timer-test', 'silent'),
    );
    await worker.process({ id: 'j2', data: { tableId: 'T2', key: 'T2:turn:1', dueAt: 5 } });
    const [fire] = await finished();
    expect(fire!.links).toEqual([]);
    expect(sent[0]!.traceparent).toMatch(new RegExp(`^00-${fire!.spanContext().traceId}-`));
  });

  it('span helpers: errors mark the span and pass through; log fields name the active span', async () => {
    const error = new Error('lost');
    await expect(withSpan('failing', () => Promise.reject(error))).rejects.toBe(error);
    const [failing] = await finished();
    expect(failing!.status.code).toBe(2);
    expect(failing!.events.map((e) => e.name)).toEqual(['exception']);

    // Loggers made once tracing is on add the active span's ids to every line.
    const logger = createLogger('timer-test', 'silent') as unknown as Record<symbol, () => object>;
    const mixin = logger[pino.symbols.mixinSym]!;
    expect(mixin()).toEqual({});
    expect(traceLogFields()).toEqual({});
    withLinkTo(undefined, 'outer', () => {
      const ctx = trace.getActiveSpan()!.spanContext();
      expect(traceLogFields()).toEqual({ trace_id: ctx.traceId, span_id: ctx.spanId });
      expect(mixin()).toEqual({ trace_id: ctx.traceId, span_id: ctx.spanId });
    });
  });
});

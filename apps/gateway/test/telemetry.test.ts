import pino from 'pino';
import {
  createLogger,
  injectTraceparent,
  startTelemetry,
  telemetryEnabled,
  telemetryModeOf,
  telemetryStatus,
  traceLogFields,
  withLinkTo,
  withRemoteParent,
  withSpan,
} from '@dominoes/platform';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('telemetry when no endpoint is set (the default)', () => {
  it('chooses the mode from the standard OTEL_* variables', () => {
    expect(telemetryModeOf({})).toEqual({ mode: 'off' });
    expect(telemetryModeOf({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toEqual({ mode: 'off' });
    expect(telemetryModeOf({ OTEL_SERVICE_NAME: 'gateway' })).toEqual({ mode: 'off' });
    expect(telemetryModeOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      mode: 'otlp',
      target: 'http://collector:4318',
    });
    expect(telemetryModeOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toEqual({
      mode: 'otlp',
      target: 'http://c:4318/v1/traces',
    });
    expect(
      telemetryModeOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toEqual({ mode: 'off' });
    expect(
      telemetryModeOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toEqual({ mode: 'off' });
    expect(telemetryModeOf({ OTEL_TEST_SPANS_FILE: '/tmp/spans' })).toEqual({
      mode: 'file',
      target: '/tmp/spans',
    });
  });

  it('does not start the SDK, and the span helpers only run their function', async () => {
    expect(startTelemetry('gateway', { env: {} })).toEqual({ mode: 'off', service: 'gateway' });
    expect(telemetryEnabled()).toBe(false);
    expect(telemetryStatus().mode).toBe('off');

    const seen: unknown[] = [];
    expect(withSpan('a', (span) => (seen.push(span), 1))).toBe(1);
    await expect(withRemoteParent(TRACEPARENT, 'b', async (span) => (seen.push(span), 2))).resolves.toBe(2);
    expect(withLinkTo(TRACEPARENT, 'c', (span) => (seen.push(span), 3))).toBe(3);
    expect(seen).toEqual([null, null, null]);
    const error = new Error('boom');
    await expect(withSpan('d', () => Promise.reject(error))).rejects.toBe(error);
    expect(() =>
      withSpan('e', () => {
        throw error;
      }),
    ).toThrow(error);

    withSpan('f', () => {
      expect(injectTraceparent()).toBeUndefined();
      expect(traceLogFields()).toEqual({});
    });
    // A logger made while tracing is off has no mixin at all.
    const logger = createLogger('telemetry-test', 'silent') as unknown as Record<symbol, unknown>;
    expect(logger[pino.symbols.mixinSym]).toBeUndefined();
  });
});

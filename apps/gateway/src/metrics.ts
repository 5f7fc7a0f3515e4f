import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The gateway's Prometheus metrics, in a registry of its own (tests run several gateways in one process). */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly openSockets = new Gauge({
    name: 'dominoes_open_sockets',
    help: 'WebSockets open on this gateway',
    registers: [this.registry],
  });
  readonly intents = new Counter({
    name: 'dominoes_intents_total',
    help: 'Intents forwarded to the table-service, by type and outcome (ok, an error code, timeout)',
    labelNames: ['type', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly actionToView = new Histogram({
    name: 'dominoes_action_to_view_seconds',
    help: 'From the intent leaving the gateway (SeatEvent.cause.sentAt) to its view frame being sent',
    buckets: [0.002, 0.005, 0.01, 0.02, 0.035, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly framesRefused = new Counter({
    name: 'dominoes_ws_frames_refused_total',
    help: 'WebSocket frames answered with an error frame by the gateway itself, by code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  readonly httpLimits = new Counter({
    name: 'dominoes_http_rate_limit_total',
    help: 'HTTP API requests refused by a per-address limit (outcome "limited"), or let through unchecked because Redis did not answer ("unchecked"), by action',
    labelNames: ['action', 'outcome'] as const,
    registers: [this.registry],
  });

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }
}

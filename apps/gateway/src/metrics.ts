import { ServiceMetrics } from '@dominoes/platform';

/** The gateway's Prometheus metrics (served on METRICS_PORT only). */
export class GatewayMetrics extends ServiceMetrics {
  readonly openSockets = this.gauge('dominoes_open_sockets', 'WebSockets open on this gateway');
  readonly intents = this.counter(
    'dominoes_intents_total',
    'Intents forwarded to the table-service, by type and outcome (ok, an error code, timeout)',
    ['type', 'outcome'],
  );
  readonly actionToView = this.histogram(
    'dominoes_action_to_view_seconds',
    'From the intent leaving the gateway (SeatEvent.cause.sentAt) to its view frame being sent',
    [0.002, 0.005, 0.01, 0.02, 0.035, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );
  readonly viewsBehind = this.counter(
    'dominoes_views_behind_total',
    "Changes of a seat's view not sent to a socket that did not hold their base (it missed a view or was just bound); its whole view is asked for instead",
  );
  readonly framesRefused = this.counter(
    'dominoes_ws_frames_refused_total',
    'WebSocket frames answered with an error frame by the gateway itself, by code',
    ['code'],
  );
  readonly httpLimits = this.counter(
    'dominoes_http_rate_limit_total',
    'HTTP API requests refused by a per-address limit (outcome "limited"), or let through unchecked because Redis did not answer ("unchecked"), by action',
    ['action', 'outcome'],
  );
}

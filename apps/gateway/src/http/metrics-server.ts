import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@dominoes/platform';
import type { GatewayMetrics } from '../metrics';

export interface MetricsServer {
  /** The port it listens on (useful with METRICS_PORT=0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * `/metrics` on a port of its own (METRICS_PORT), never on the players' port: what the gateway
 * counts is for Prometheus, not for the internet. Everything but `GET /metrics` is 404.
 */
export async function startMetricsServer(
  metrics: GatewayMetrics,
  port: number,
  host: string,
  logger: Logger,
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.statusCode = 404;
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end('Only GET /metrics is served on this port.\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.statusCode = 200;
        res.setHeader('content-type', metrics.registry.contentType);
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'metrics could not be collected');
        res.statusCode = 500;
        res.end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

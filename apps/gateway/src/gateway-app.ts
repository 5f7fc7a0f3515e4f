import 'reflect-metadata';
import { existsSync } from 'node:fs';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { startService, type RunningService, type ServiceOptions } from '@dominoes/platform';
import type { GatewayConfig } from './config';
import { GatewayModule } from './gateway.module';
import { ApiErrorFilter } from './http/errors';
import { apiOrigin } from './http/api-origin';
import { jsonBody } from './http/json-body';
import { startMetricsServer, type MetricsServer } from './http/metrics-server';
import { securityHeaders } from './http/security-headers';
import { webAssets } from './http/web-assets';
import { GatewayMetrics } from './metrics';
import { GatewayHeartbeat } from './ws/gateway-heartbeat';
import { ProtocolWsAdapter } from './ws/protocol-ws.adapter';
import { SocketHub } from './ws/socket-hub';

export interface GatewayApp extends RunningService {
  readonly app: NestExpressApplication;
  /** The port of /metrics (METRICS_PORT; not the players' port). */
  readonly metricsPort: number;
  readonly metrics: GatewayMetrics;
  readonly hub: SocketHub;
  /** This gateway's heartbeat key in Redis (names.gatewayAlive). */
  readonly heartbeat: GatewayHeartbeat;
}

export type GatewayOptions = ServiceOptions;

/** Builds and starts the gateway; main.ts and the tests start it the same way. */
export async function startGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<GatewayApp> {
  const webBuilt = existsSync(config.webDist);
  const { app, port, logger, metrics } = await startService('gateway', config, options, {
    metrics: GatewayMetrics,
    module: (deps) => GatewayModule.forRoot({ config, ...deps }),
    nest: { bodyParser: false },
    configure: (nest: NestExpressApplication, { logger }) => {
      if (config.devTokenSecret) {
        logger.warn(
          'TOKEN_SECRET is not set: using the public development secret, so listening on loopback only. Anyone can forge its tokens; never run like this in production.',
        );
      }
      nest.useWebSocketAdapter(new ProtocolWsAdapter(nest, logger, config.allowedOrigins));
      // Every response (page, assets, API, errors) carries the security headers; the API answers allowed origins only.
      nest.use(securityHeaders(config.allowedOrigins));
      nest.use(apiOrigin(config.allowedOrigins));
      nest.use(jsonBody());
      // /assets/* compressed and cached for good; *.map never served.
      nest.use(webAssets(config.webDist));
      if (webBuilt) {
        // Hashed assets may be cached; index.html must not be, or a deploy leaves browsers on old asset names.
        nest.useStaticAssets(config.webDist, {
          index: 'index.html',
          maxAge: '1h',
          setHeaders: (res, path) => {
            if (path.endsWith('.html')) res.setHeader('Cache-Control', 'no-cache');
          },
        });
      }
      nest.useGlobalFilters(new ApiErrorFilter(logger));
      nest.disable('x-powered-by');
    },
  });
  let metricsServer: MetricsServer;
  try {
    metricsServer = await startMetricsServer(metrics, config.metricsPort, config.host, logger);
  } catch (error) {
    await app.close();
    throw error;
  }
  logger.info(
    {
      port,
      metricsPort: metricsServer.port,
      url: config.publicUrl,
      gatewayId: config.gatewayId,
      shards: config.tableShards,
      webClient: webBuilt ? config.webDist : null,
    },
    `gateway listening on :${port} (${config.publicUrl})`,
  );
  const hub = app.get(SocketHub);
  let closing: Promise<void> | null = null;
  return {
    app,
    port,
    metricsPort: metricsServer.port,
    metrics,
    hub,
    heartbeat: app.get(GatewayHeartbeat),
    // The module's lifecycle drains the sockets and deletes the heartbeat, then HTTP, Redis and Postgres close.
    shutdown: () => (closing ??= app.close().then(() => metricsServer.close())),
  };
}

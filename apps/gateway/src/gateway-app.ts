import 'reflect-metadata';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import {
  createLogger,
  createRedis,
  PinoNestLogger,
  systemClock,
  type Clock,
  type Logger,
} from '@dominoes/platform';
import { redisNames } from '@dominoes/protocol';
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

export interface GatewayApp {
  readonly app: NestExpressApplication;
  /** The port it listens on (useful with PORT=0). */
  readonly port: number;
  /** The port of /metrics (METRICS_PORT; not the players' port). */
  readonly metricsPort: number;
  readonly metrics: GatewayMetrics;
  readonly hub: SocketHub;
  /** This gateway's heartbeat key in Redis (names.gatewayAlive). */
  readonly heartbeat: GatewayHeartbeat;
  /** Drains the sockets (reconnect + 1012), deletes the heartbeat, then closes HTTP, Redis and Postgres. */
  shutdown(): Promise<void>;
}

export interface GatewayOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** prom-client default metrics (off in tests that start several gateways). */
  readonly defaultMetrics?: boolean;
}

/** Builds and starts the gateway; main.ts and the tests start it the same way. */
export async function startGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<GatewayApp> {
  const logger = options.logger ?? createLogger('gateway', config.logLevel);
  const clock = options.clock ?? systemClock;
  const metrics = new GatewayMetrics(options.defaultMetrics ?? true);
  if (config.devTokenSecret) {
    logger.warn(
      'TOKEN_SECRET is not set: using the public development secret, so listening on loopback only. Anyone can forge its tokens; never run like this in production.',
    );
  }
  const app = await NestFactory.create<NestExpressApplication>(
    GatewayModule.forRoot({ config, clock, logger, metrics }),
    {
      bodyParser: false,
      logger: new PinoNestLogger(logger),
      forceCloseConnections: true,
    },
  );
  app.useWebSocketAdapter(new ProtocolWsAdapter(app, logger, config.allowedOrigins));
  // Every response (page, assets, API, errors) carries the security headers; the API answers allowed origins only.
  app.use(securityHeaders(config.allowedOrigins));
  app.use(apiOrigin(config.allowedOrigins));
  app.use(jsonBody());
  const webBuilt = existsSync(config.webDist);
  // /assets/* compressed and cached for good; *.map never served.
  app.use(webAssets(config.webDist));
  if (webBuilt) {
    // Hashed assets may be cached; index.html must not be, or a deploy leaves browsers on old asset names.
    app.useStaticAssets(config.webDist, {
      index: 'index.html',
      maxAge: '1h',
      setHeaders: (res, path) => {
        if (path.endsWith('.html')) res.setHeader('Cache-Control', 'no-cache');
      },
    });
  }
  app.useGlobalFilters(new ApiErrorFilter(logger));
  app.disable('x-powered-by');
  const hub = app.get(SocketHub);
  // Alive before the first socket: the table-services judge this gateway's connection ids by it.
  const heartbeat = new GatewayHeartbeat({
    redis: createRedis(config.redisUrl, `gateway:${config.gatewayId}:heartbeat`, { maxRetriesPerRequest: 1 }),
    key: redisNames(config.redisPrefix).gatewayAlive(config.gatewayId),
    epoch: hub.epoch,
    intervalMs: config.heartbeatMs,
    ttlMs: config.heartbeatTtlMs,
    logger,
  });
  await heartbeat.start();
  try {
    await app.listen(config.port, config.host);
  } catch (error) {
    await heartbeat.stop();
    throw error;
  }
  const port = (app.getHttpServer().address() as AddressInfo).port;
  let metricsServer: MetricsServer;
  try {
    metricsServer = await startMetricsServer(metrics, config.metricsPort, config.host, logger);
  } catch (error) {
    await heartbeat.stop();
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
  let closing: Promise<void> | null = null;
  return {
    app,
    port,
    metricsPort: metricsServer.port,
    metrics,
    hub,
    heartbeat,
    shutdown: () => {
      closing ??= (async () => {
        await hub.drain();
        // The presence notes of the closed sockets are flushed: nothing is left for a sweep to do.
        await heartbeat.stop();
        await app.close();
        await metricsServer.close();
      })();
      return closing;
    },
  };
}

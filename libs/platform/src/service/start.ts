import type { AddressInfo } from 'node:net';
import type { DynamicModule, INestApplication, NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { CustomTransportStrategy } from '@nestjs/microservices';
import { systemClock, type Clock } from '../clock';
import { ConfigError, type BaseConfig } from '../config';
import { createLogger, type Logger } from '../logger';
import { PinoNestLogger } from '../nest-logger';
import { checkPostgres, checkRedis } from '../preflight';
import { exitGracefullyOnSignals } from '../shutdown';
import { telemetryStatus } from '../telemetry';
import type { ServiceMetrics } from './metrics';

/** What the tests pass when they start a service in-process (main.ts passes only the logger). */
export interface ServiceOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** prom-client's default metrics (off in tests that start several services in one process). */
  readonly defaultMetrics?: boolean;
}

/** A started service. */
export interface RunningService {
  /** The port it listens on (useful with PORT=0). */
  readonly port: number;
  /** Stops it in its shutdown order; once, however often it is called. */
  shutdown(): Promise<void>;
}

/** What a service's module is built from: made by startService, or passed in by a test. */
export interface ServiceDeps<M extends ServiceMetrics> {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics: M;
}

/** A service's port: PORT, on HOST where the service reads one (else every address). */
export type ServiceConfig = BaseConfig & { readonly port: number; readonly host?: string };

/** What a service's module is built from: ServiceDeps and the service's configuration. */
export type ModuleDeps<C, M extends ServiceMetrics> = ServiceDeps<M> & { readonly config: C };

export interface ServiceSpec<A extends INestApplication, M extends ServiceMetrics> {
  /** Its metrics class (the argument: prom-client's default metrics or not). */
  readonly metrics: new (defaults: boolean) => M;
  readonly module: (deps: ServiceDeps<M>) => DynamicModule;
  /** Nest's options beyond the kit's (e.g. the gateway's `bodyParser: false`). */
  readonly nest?: NestApplicationOptions;
  /** Before the port opens: middleware, adapters, filters. */
  readonly configure?: (app: A, deps: ServiceDeps<M>) => void;
  /** A transport of the module's (the table-service's shard streams), started before the port opens. */
  readonly transport?: (app: A) => CustomTransportStrategy;
}

/**
 * Starts a service, the same way for every one: its module (a Nest application), Nest's log lines
 * through the service's pino logger, connections closed at once on shutdown (a keep-alive socket
 * must not hold it up), and the module's ServiceLifecycle run by `listen` and by `close`. A start
 * that fails closes what it opened.
 */
export async function startService<A extends INestApplication, M extends ServiceMetrics>(
  /** As in the logs: `gateway`, `table-service`, `timer-service`. */
  name: string,
  config: ServiceConfig,
  options: ServiceOptions,
  spec: ServiceSpec<A, M>,
): Promise<ServiceDeps<M> & { readonly app: A; readonly port: number }> {
  const deps: ServiceDeps<M> = {
    logger: options.logger ?? createLogger(name, config.logLevel),
    clock: options.clock ?? systemClock,
    metrics: new spec.metrics(options.defaultMetrics ?? true),
  };
  const app = await NestFactory.create<A>(spec.module(deps), {
    logger: new PinoNestLogger(deps.logger),
    forceCloseConnections: true,
    ...spec.nest,
  });
  try {
    spec.configure?.(app, deps);
    if (spec.transport) {
      app.connectMicroservice({ strategy: spec.transport(app) });
      await app.startAllMicroservices();
    }
    await app.listen(config.port, config.host ?? '0.0.0.0');
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return { ...deps, app, port: (app.getHttpServer().address() as AddressInfo).port };
}

export interface ServiceMain<C extends BaseConfig, S extends RunningService> {
  /** As in the logs: `gateway`, `table-service`, `timer-service`. */
  readonly name: string;
  readonly readConfig: () => C;
  /** The stores that must answer before it starts (else it says plainly what is missing, and exits 1). */
  readonly needs: readonly ('postgres' | 'redis')[];
  readonly start: (config: C, logger: Logger) => Promise<S>;
  /** The line logged when a signal starts the shutdown (the signal is added). */
  readonly stopping: { readonly message: string; readonly fields?: (service: S) => Record<string, unknown> };
}

/**
 * A service's main.ts: read the configuration (a bad value: its message, exit 1), log, check the
 * stores, start, and on SIGTERM or SIGINT shut down within SHUTDOWN_GRACE_MS (exitGracefullyOnSignals).
 */
export function runService<C extends BaseConfig, S extends RunningService>(main: ServiceMain<C, S>): void {
  const { name } = main;
  const run = async (): Promise<void> => {
    let config: C;
    try {
      config = main.readConfig();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(`${name}: ${error.message}`);
      process.exit(1);
    }
    const logger = createLogger(name, config.logLevel);
    if (telemetryStatus().mode !== 'off') logger.info({ tracing: telemetryStatus() }, 'tracing on');
    const checks = {
      // Every database of the shard map (decision 0027): one message per database that does not answer.
      postgres: async () =>
        (await Promise.all(config.shardMap.databaseUrls.map((url) => checkPostgres(url))))
          .filter(Boolean)
          .join('\n') || null,
      redis: () => checkRedis(config),
    };
    const problems = (await Promise.all(main.needs.map((store) => checks[store]()))).filter(Boolean);
    if (problems.length > 0) {
      for (const problem of problems) console.error(problem);
      process.exit(1);
    }
    const service = await main.start(config, logger);
    exitGracefullyOnSignals({
      name,
      logger,
      graceMs: config.shutdownGraceMs,
      starting: { message: main.stopping.message, fields: () => main.stopping.fields?.(service) ?? {} },
      shutdown: () => service.shutdown(),
    });
  };
  run().catch((error: unknown) => {
    console.error(`${name} failed to start:`, error);
    process.exit(1);
  });
}

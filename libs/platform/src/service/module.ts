import type { DynamicModule, FactoryProvider, InjectionToken, Provider, Type } from '@nestjs/common';
import { HealthController, READINESS, type ReadinessCheck } from './health';
import { ServiceLifecycle, type LifecycleSteps } from './lifecycle';
import { MetricsController, ServiceMetrics } from './metrics';

/** A factory provider without its token: what `readiness` and `lifecycle` are made from. */
export interface Factory<T> {
  readonly inject: InjectionToken[];
  readonly useFactory: (...deps: unknown[]) => T;
}

export interface ServiceModuleSpec {
  readonly imports?: DynamicModule[];
  readonly controllers?: Type[];
  readonly providers: Provider[];
  /** The checks of /health/ready, from the providers named in `inject`, in the order its body names them. */
  readonly readiness: Factory<ReadinessCheck[]>;
  /** The service's steps around its ports (ServiceLifecycle), from the providers named in `inject`. */
  readonly lifecycle: Factory<LifecycleSteps>;
  /** Its metrics, served as GET /metrics on its port (the gateway serves them on METRICS_PORT itself). */
  readonly metrics?: ServiceMetrics;
}

/** Declares a factory with typed arguments (`inject` names the providers, in order). */
export function factory<T, A extends unknown[]>(
  inject: InjectionToken[],
  useFactory: (...deps: A) => T,
): Factory<T> {
  // Nest passes the providers `inject` names, in its order: the types `useFactory` declares.
  return { inject, useFactory: useFactory as unknown as (...deps: unknown[]) => T };
}

/**
 * A service's root module: its own controllers and providers, plus what every service has:
 * /health/live and /health/ready (HealthController with the service's checks), /metrics when its
 * metrics are served on its port, and its ServiceLifecycle.
 */
export function serviceModule(module: Type, spec: ServiceModuleSpec): DynamicModule {
  const metrics = spec.metrics;
  const own: Provider[] = [
    { provide: READINESS, ...spec.readiness } as FactoryProvider,
    {
      provide: ServiceLifecycle,
      inject: spec.lifecycle.inject,
      useFactory: (...deps: unknown[]) => new ServiceLifecycle(spec.lifecycle.useFactory(...deps)),
    },
  ];
  return {
    module,
    imports: spec.imports ?? [],
    controllers: [...(spec.controllers ?? []), HealthController, ...(metrics ? [MetricsController] : [])],
    providers: [
      ...spec.providers,
      ...own,
      ...(metrics ? [{ provide: ServiceMetrics, useValue: metrics }] : []),
    ],
  };
}

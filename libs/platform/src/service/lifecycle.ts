import type {
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleDestroy,
  OnModuleInit,
} from '@nestjs/common';

type Step = () => unknown;

/**
 * What a service does around its ports, each list in order (a step that runs several things at once
 * returns their Promise.all). On start: `connect`, `start`, then the ports open. On close: `stop`,
 * then the ports close (HTTP, then a transport), then `close`.
 */
export interface LifecycleSteps {
  /** Connections that must be up before anything is served (a reply channel subscribed). */
  readonly connect?: readonly Step[];
  /** Work that runs while the service is up (workers, sweeps, heartbeats). */
  readonly start?: readonly Step[];
  /** The first thing a shutdown does: stop taking work, drain what is in hand. */
  readonly stop?: readonly Step[];
  /** The last: close the connections to the stores. */
  readonly close?: readonly Step[];
}

async function run(steps: readonly Step[] = []): Promise<void> {
  for (const step of steps) await step();
}

/** Nest's lifecycle hooks, in one place per service, so that the order of its steps is the order written. */
export class ServiceLifecycle
  implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown
{
  constructor(private readonly steps: LifecycleSteps) {}

  onModuleInit(): Promise<void> {
    return run(this.steps.connect);
  }
  onApplicationBootstrap(): Promise<void> {
    return run(this.steps.start);
  }
  onModuleDestroy(): Promise<void> {
    return run(this.steps.stop);
  }
  onApplicationShutdown(): Promise<void> {
    return run(this.steps.close);
  }
}

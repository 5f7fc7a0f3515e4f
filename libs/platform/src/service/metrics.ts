import type { ServerResponse } from 'node:http';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * A service's Prometheus metrics, in a registry of its own (tests run several services in one
 * process), with prom-client's default metrics unless `defaults` is false. A service's metrics class
 * extends it and declares each metric with `counter`, `gauge` or `histogram`.
 */
export class ServiceMetrics {
  readonly registry = new Registry();

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }

  protected counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) {
    return new Counter<L>({ name, help, labelNames, registers: [this.registry] });
  }

  /** `collect` sets the gauge's value when it is scraped. */
  protected gauge<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    collect?: (gauge: Gauge<L>) => void,
  ) {
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      ...(collect
        ? {
            collect: function (this: Gauge<L>) {
              collect(this);
            },
          }
        : {}),
    });
  }

  protected histogram(name: string, help: string, buckets: number[]) {
    return new Histogram({ name, help, buckets, registers: [this.registry] });
  }
}

/** `GET /metrics` in Prometheus text, on the service's own port (the table-service, the timer-service). */
@Controller()
export class MetricsController {
  constructor(@Inject(ServiceMetrics) private readonly metrics: ServiceMetrics) {}

  @Get('metrics')
  async scrape(@Res() res: ServerResponse): Promise<void> {
    const text = await this.metrics.registry.metrics();
    res.statusCode = 200;
    res.setHeader('content-type', this.metrics.registry.contentType);
    res.end(text);
  }
}

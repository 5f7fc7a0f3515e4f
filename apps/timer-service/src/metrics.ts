import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export class TimerMetrics {
  readonly registry = new Registry();
  readonly lateness = new Histogram({
    name: 'dominoes_deadline_lateness_seconds',
    help: 'How late a deadline was dispatched: dispatch time minus the job\u2019s dueAt',
    buckets: [0.005, 0.01, 0.02, 0.035, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly fired = new Counter({
    name: 'dominoes_deadlines_fired_total',
    help: 'Deadline intents dispatched to the table shards',
    registers: [this.registry],
  });
  readonly invalid = new Counter({
    name: 'dominoes_deadline_jobs_invalid_total',
    help: 'Deadline jobs whose data failed DeadlineJobSchema (completed without dispatch)',
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'dominoes_queue_depth',
    help: 'Jobs in a BullMQ queue by state',
    labelNames: ['queue', 'state'] as const,
    registers: [this.registry],
  });

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }
}

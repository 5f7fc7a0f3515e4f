import { ServiceMetrics } from '@dominoes/platform';

export class TimerMetrics extends ServiceMetrics {
  readonly lateness = this.histogram(
    'dominoes_deadline_lateness_seconds',
    'How late a deadline was dispatched: dispatch time minus the job\u2019s dueAt',
    [0.005, 0.01, 0.02, 0.035, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  );
  readonly enqueuedLate = this.histogram(
    'dominoes_deadline_enqueued_late_seconds',
    'How much later than its dueAt BullMQ was told to make a job due (enqueued at + delay - dueAt); above 0 when the job was stored while the table\u2019s previous one was active and enqueued once that one finished (keepLastIfActive)',
    [0.001, 0.005, 0.01, 0.02, 0.035, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  );
  readonly fired = this.counter(
    'dominoes_deadlines_fired_total',
    'Deadline intents dispatched to the table shards',
  );
  readonly invalid = this.counter(
    'dominoes_deadline_jobs_invalid_total',
    'Deadline jobs whose data failed DeadlineJobSchema (completed without dispatch)',
  );
  readonly workerRestarts = this.counter(
    'dominoes_deadline_worker_restarts_total',
    'Deadline workers started again because they took no job while one was due (StuckWorkerWatchdog)',
    ['group'],
  );
  readonly queueDepth = this.gauge('dominoes_queue_depth', 'Jobs in a BullMQ queue by state', [
    'queue',
    'state',
  ]);
}

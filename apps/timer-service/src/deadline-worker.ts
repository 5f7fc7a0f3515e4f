import { Worker, type Job } from 'bullmq';
import {
  DEADLINE_QUEUE,
  DeadlineJobSchema,
  intentIds,
  redisNames,
  type DeadlineJob,
  type IntentEnvelope,
} from '@dominoes/protocol';
import {
  createRedis,
  DEADLINE_LEAD_MS,
  injectTraceparent,
  waitForDue,
  SpanKind,
  withLinkTo,
  type Clock,
  type DeadlineQueues,
  type Logger,
  type RedisClient,
  type ShardedStreamsClient,
} from '@dominoes/platform';
import type { TimerConfig } from './config';
import type { TimerMetrics } from './metrics';
import { oldestDueAt, StuckWorkerWatchdog } from './stuck-worker-watchdog';

const DEPTH_STATES = ['wait', 'delayed', 'active', 'prioritized', 'failed'] as const;

/** The intent a due deadline job becomes: no player, no reply; `deadline:<key>` makes it idempotent. */
export function deadlineEnvelope(
  job: DeadlineJob,
  now: number,
  traceparent: string | undefined = job.traceparent,
): IntentEnvelope {
  return {
    intentId: intentIds.deadline(job.key),
    tableId: job.tableId,
    player: null,
    connectionId: null,
    replyTo: null,
    sentAt: now,
    ...(traceparent ? { traceparent } : {}),
    intent: { kind: 'deadline', key: job.key, dueAt: job.dueAt },
  };
}

/**
 * When BullMQ was told to make a job due: the moment it was enqueued plus its delay, or null when the
 * job does not say. A job stored while the table's previous one was active is enqueued only once that
 * one finishes, with its whole delay counted from then (keepLastIfActive), so this is later than its
 * dueAt by how long the previous one stayed active after the table-service set the next one.
 */
export function enqueuedDueAt(job: EnqueuedJob): number | null {
  // `opts.delay`, not `delay`: BullMQ sets a job's `delay` to 0 when it promotes it from the delayed set.
  const delay = job.opts?.delay;
  return typeof job.timestamp === 'number' && typeof delay === 'number' ? job.timestamp + delay : null;
}

/** What of a BullMQ job says when it was enqueued, and with which delay. */
export type EnqueuedJob = Partial<Pick<Job, 'timestamp'>> & { readonly opts?: { readonly delay?: number } };

/**
 * The BullMQ workers of the "deadlines" queues, one worker per shard group's queue (DEADLINE_GROUPS),
 * each on a connection of its own. A due job becomes a `deadline` intent on its table's shard
 * stream (the table-service decides whether it is still current); nothing else happens here.
 */
export class DeadlineWorker {
  /** Each shard group's worker and its connection, by group. */
  private workers: Worker<DeadlineJob>[] = [];
  private connections: RedisClient[] = [];
  /** When each group's worker last took a job (or was started). */
  private lastTakenAt: number[] = [];
  private depthTimer: NodeJS.Timeout | null = null;
  private watchdog: StuckWorkerWatchdog | null = null;
  private closing = false;

  constructor(
    private readonly config: TimerConfig,
    private readonly client: ShardedStreamsClient,
    private readonly queues: DeadlineQueues,
    private readonly clock: Clock,
    private readonly metrics: TimerMetrics,
    private readonly logger: Logger,
  ) {}

  /** Handles one job. Exported for tests; BullMQ calls it through the worker. */
  async process(job: Pick<Job<unknown>, 'id' | 'data'> & EnqueuedJob): Promise<void> {
    const parsed = DeadlineJobSchema.safeParse(job.data);
    if (!parsed.success) {
      // Retrying cannot fix bad data: log it and let the job complete.
      this.metrics.invalid.inc();
      this.logger.error(
        { jobId: job.id, issues: parsed.error.issues.slice(0, 3) },
        'invalid deadline job dropped',
      );
      return;
    }
    const data = parsed.data;
    const enqueuedDue = enqueuedDueAt(job);
    // Enqueued to be due DEADLINE_LEAD_MS before the deadline.
    if (enqueuedDue !== null)
      this.metrics.enqueuedLate.observe(Math.max(0, enqueuedDue + DEADLINE_LEAD_MS - data.dueAt) / 1000);
    // A trace of its own, linked to the change that set the deadline (the job's traceparent); the
    // deadline intent carries this span on to the table-service.
    await withLinkTo(data.traceparent, 'deadline.fire', () => this.fire(data), {
      kind: SpanKind.CONSUMER,
      attributes: { 'dominoes.table': data.tableId, 'dominoes.deadline.key': data.key },
    });
  }

  private async fire(data: DeadlineJob): Promise<void> {
    await waitForDue(data.dueAt, this.clock);
    const now = this.clock.now();
    const envelope = deadlineEnvelope(data, now, injectTraceparent() ?? data.traceparent);
    await this.client.dispatch(envelope);
    const lateMs = now - data.dueAt;
    this.metrics.lateness.observe(Math.max(0, lateMs) / 1000);
    this.metrics.fired.inc();
    this.logger.debug({ tableId: data.tableId, key: data.key, lateMs }, 'deadline fired');
  }

  start(): void {
    this.closing = false;
    const names = redisNames(this.config.redisPrefix, this.config.tableShards);
    this.queues.all.forEach((_, group) => this.startWorker(group, names.bullPrefix(group)));
    this.watchdog = new StuckWorkerWatchdog(
      {
        groups: this.queues.all.length,
        lastTakenAt: (group) => this.lastTakenAt[group] ?? 0,
        oldestDueAt: (group) => oldestDueAt(this.queues.all[group]!, this.clock.now()),
        restart: (group) => this.restartWorker(group),
      },
      this.clock,
      this.logger,
      this.config.workerStuckMs,
      (group) => this.metrics.workerRestarts.inc({ group: String(group) }),
    );
    this.watchdog.start();
    void this.refreshDepth();
    this.depthTimer = setInterval(() => void this.refreshDepth(), this.config.queueDepthIntervalMs);
    this.depthTimer.unref();
  }

  private startWorker(group: number, prefix: string): void {
    // Waits out a Redis restart: BullMQ's blocking reads resume on the new connection by themselves.
    const connection = createRedis(this.config, `timer-worker:${group}`, {}, this.logger);
    const take = (job: Job<DeadlineJob>) => {
      this.lastTakenAt[group] = this.clock.now();
      return this.process(job);
    };
    const worker = new Worker<DeadlineJob>(DEADLINE_QUEUE, take, {
      connection,
      prefix,
      concurrency: this.config.concurrency,
      // A job takes a millisecond: a crashed worker's job is taken over by a live one within about
      // 3-5 s (the lock's 3 s, then the next stalled check), not 30 s. BullMQ is the one way a
      // deadline fires (decision 0011), so this is how late a killed worker makes its jobs.
      lockDuration: 3_000,
      stalledInterval: 1_000,
      autorun: false,
    });
    this.connections[group] = connection;
    this.workers[group] = worker;
    this.lastTakenAt[group] = this.clock.now();
    worker.on('failed', (job, error) =>
      this.logger.warn(
        {
          group,
          jobId: job?.id,
          tableId: job?.data.tableId,
          attempts: job?.attemptsMade,
          err: error.message,
        },
        'deadline job failed',
      ),
    );
    // While Redis is away every reconnect attempt of both the worker's connections is an error: one
    // line per distinct message every 10 s is enough (the connection says when Redis is back).
    let last = { message: '', at: 0, repeated: 0 };
    worker.on('error', (error) => {
      const now = Date.now();
      if (error.message === last.message && now - last.at < 10_000) {
        last.repeated++;
        return;
      }
      const repeated = error.message === last.message ? last.repeated : 0;
      last = { message: error.message, at: now, repeated: 0 };
      this.logger.error(
        { group, err: error.message, ...(repeated ? { repeated } : {}) },
        'deadline worker error',
      );
    });
    void worker
      .run()
      .catch((error: unknown) => this.logger.error({ group, err: error }, 'deadline worker stopped'));
  }

  /**
   * A group's worker again, on a connection of its own (StuckWorkerWatchdog). A wedged worker's close
   * may never end: it is given 2 s, then its connection is dropped.
   */
  private async restartWorker(group: number): Promise<void> {
    await stopWorker(this.workers[group], this.connections[group], { force: true, graceMs: 2000 });
    if (this.closing) return;
    const names = redisNames(this.config.redisPrefix, this.config.tableShards);
    this.startWorker(group, names.bullPrefix(group));
  }

  /** The BullMQ worker of a shard group. For tests. */
  workerOf(group: number): Worker<DeadlineJob> | undefined {
    return this.workers[group];
  }

  /** Every group's worker runs. */
  get running(): boolean {
    return this.workers.length > 0 && this.workers.every((worker) => worker.isRunning());
  }

  /** The jobs of every group's queue, summed by state. */
  async refreshDepth(): Promise<void> {
    try {
      const all = await Promise.all(this.queues.all.map((queue) => queue.getJobCounts(...DEPTH_STATES)));
      for (const state of DEPTH_STATES)
        this.metrics.queueDepth.set(
          { queue: DEADLINE_QUEUE, state },
          all.reduce((sum, counts) => sum + (counts[state] ?? 0), 0),
        );
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'queue depth not read');
    }
  }

  /**
   * Finishes the jobs in hand (for at most CLOSE_GRACE_MS: a worker wedged on a blocking read that
   * never answers would otherwise hold the shutdown until the pod is killed), then closes the
   * workers' connections, the queues and the intent client.
   */
  async close(): Promise<void> {
    if (this.depthTimer) clearInterval(this.depthTimer);
    this.depthTimer = null;
    this.closing = true;
    this.watchdog?.stop();
    this.watchdog = null;
    await Promise.all(
      this.workers.map((worker, group) =>
        stopWorker(worker, this.connections[group], { force: false, graceMs: CLOSE_GRACE_MS }),
      ),
    );
    await this.queues.close();
    await this.client.close();
    this.workers = [];
    this.connections = [];
  }
}

/** How long a closing worker may take to finish its jobs in hand before its connection is dropped. */
const CLOSE_GRACE_MS = 5000;

/**
 * Closes a group's worker: its jobs in hand finished (`force`: given up) within `graceMs`, else its
 * blocking connection dropped; then its own connection quit (`force`: dropped at once). Each step
 * has a bound, so that a worker whose connection never answers cannot hold its caller.
 */
async function stopWorker(
  worker: Worker<DeadlineJob> | undefined,
  connection: RedisClient | undefined,
  { force, graceMs }: { force: boolean; graceMs: number },
): Promise<void> {
  const cut = (ms: number) => new Promise<'cut'>((resolve) => setTimeout(() => resolve('cut'), ms).unref());
  if (worker) {
    const closed = await Promise.race([worker.close(force).catch(() => undefined), cut(graceMs)]);
    if (closed === 'cut') await Promise.race([worker.disconnect().catch(() => undefined), cut(1000)]);
  }
  if (!connection) return;
  const quit = force ? 'cut' : await Promise.race([connection.quit().catch(() => undefined), cut(1000)]);
  if (quit === 'cut') connection.disconnect();
}

import type { Clock, DeadlineQueue, Logger } from '@dominoes/platform';

/**
 * What the watchdog reads of one shard group's worker: when it last took a job, and when the
 * oldest job a worker could take now (waiting, or delayed and due) became due.
 */
export interface GroupWorkerProbe {
  readonly groups: number;
  lastTakenAt(group: number): number;
  oldestDueAt(group: number): Promise<number | null>;
  restart(group: number): Promise<void>;
}

/**
 * A BullMQ worker can stay "running" and take no job again: after a Redis Cluster failover its
 * blocking connection (a duplicate of the cluster client) may never be ready again, and nothing is
 * thrown (taskforcesh/bullmq#4138 and #3088; seen here in the redis-failover e2e suite: seven due
 * jobs waiting on the promoted replica for minutes, both timer-services' blocking clients idle).
 * BullMQ leaves reconnection to ioredis, so the way out is a new worker. Every `intervalMs` this
 * looks at each group: a group whose worker has taken nothing for `stuckMs` while a job has been due
 * for `stuckMs` gets its worker closed and started again. A busy worker (a backlog, jobs late but
 * being taken) is never restarted: it keeps taking jobs.
 *
 * The look itself reads the queue, over a connection the same failover may have left hanging. A read
 * that does not answer within `probeTimeoutMs` is given up: the group counts as stuck (its worker is
 * idle and nothing says it can take jobs), so its worker is started again, and the next look is not
 * held up behind the hung one (a read that never answered once kept every later look from starting).
 */
export class StuckWorkerWatchdog {
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(
    private readonly probe: GroupWorkerProbe,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly stuckMs: number,
    private readonly onRestart: (group: number) => void = () => undefined,
    private readonly probeTimeoutMs = 3000,
  ) {}

  start(intervalMs = Math.min(2000, Math.max(100, Math.floor(this.stuckMs / 2)))): void {
    this.timer = setInterval(() => {
      if (this.checking) return;
      this.checking = true;
      void this.check().finally(() => (this.checking = false));
    }, intervalMs);
    this.timer.unref();
  }

  /** One look at every group; the groups found stuck are restarted. */
  async check(): Promise<number[]> {
    const restarted: number[] = [];
    for (let group = 0; group < this.probe.groups; group++) {
      const now = this.clock.now();
      const idleMs = now - this.probe.lastTakenAt(group);
      if (idleMs < this.stuckMs) continue;
      let dueAt: number | null | 'no answer';
      try {
        dueAt = await this.oldestDueWithin(group);
      } catch {
        // Redis is away: the worker cannot take jobs either, and a new one would not help.
        continue;
      }
      if (dueAt === 'no answer') {
        this.logger.warn(
          { group, idleMs, probeTimeoutMs: this.probeTimeoutMs },
          'deadline queue read did not answer while the worker is idle: starting it again',
        );
      } else {
        if (dueAt === null || now - dueAt < this.stuckMs) continue;
        this.logger.warn(
          { group, idleMs, dueForMs: now - dueAt },
          'deadline worker takes no job while one is due: starting it again',
        );
      }
      this.onRestart(group);
      try {
        await this.probe.restart(group);
        restarted.push(group);
      } catch (error) {
        this.logger.error({ group, err: error }, 'deadline worker could not be started again');
      }
    }
    return restarted;
  }

  private oldestDueWithin(group: number): Promise<number | null | 'no answer'> {
    let timer: NodeJS.Timeout | undefined;
    const cut = new Promise<'no answer'>((resolve) => {
      timer = setTimeout(() => resolve('no answer'), this.probeTimeoutMs);
      timer.unref();
    });
    return Promise.race([this.probe.oldestDueAt(group), cut]).finally(() => clearTimeout(timer));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/**
 * When the oldest job a worker could take now became due: the oldest waiting job, or the delayed
 * job due first if its time has come (a wedged worker promotes no delayed job either). Reads one
 * queue, so one hash tag: a single cluster slot.
 */
export async function oldestDueAt(queue: DeadlineQueue, now: number): Promise<number | null> {
  const [waiting, delayed] = await Promise.all([
    queue.getJobs(['wait'], 0, 0, true),
    queue.getJobs(['delayed'], 0, 0, true),
  ]);
  const dues = [...waiting, ...delayed]
    .map((job) => job.timestamp + (job.opts.delay ?? 0))
    .filter((due) => due <= now);
  return dues.length > 0 ? Math.min(...dues) : null;
}

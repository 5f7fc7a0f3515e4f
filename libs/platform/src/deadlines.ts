import { randomUUID } from 'node:crypto';
import { Queue, type JobsOptions } from 'bullmq';
import { DEADLINE_QUEUE, deadlineGroupOf, redisNames, shardOf, type DeadlineJob } from '@dominoes/protocol';
import { createRedis, type RedisTarget } from './redis';

/** The name every deadline job carries (BullMQ job names are free text). */
export const DEADLINE_JOB_NAME = 'deadline';

export type DeadlineQueue = Queue<DeadlineJob, void, string>;

/**
 * The "deadlines" queue under REDIS_PREFIX (BullMQ keys under `names.bullPrefix`). The producer's
 * connection fails a command after a few retries instead of holding the caller forever: a lost
 * timer is rebuilt from the stored state, a stuck table-service is not. While Redis is away,
 * `upsertDeadline` rejects after a few reconnect attempts; once it is back the table-service sets the
 * deadlines of its shards again from Postgres (DeadlineKeeper).
 * `queue.close()` also closes the connection made here.
 */
export function createDeadlineQueue(redis: RedisTarget, prefix: string, group = 0): DeadlineQueue {
  const connection = createRedis(redis, `deadline-queue:${group}`, { maxRetriesPerRequest: 3 });
  const queue = new Queue<DeadlineJob, void, string>(DEADLINE_QUEUE, {
    connection,
    prefix: redisNames(prefix).bullPrefix(group),
  });
  // The connection reports losing Redis (createRedis); without a listener BullMQ would print every
  // failed reconnect attempt with its stack. A command that fails still rejects to its caller.
  queue.on('error', () => undefined);
  const close = queue.close.bind(queue);
  queue.close = async () => {
    await close();
    await connection.quit().catch(() => undefined);
  };
  return queue;
}

/**
 * The deadline queues of every shard group (DEADLINE_GROUPS): a table's deadlines go to the queue
 * of its shard's group, each queue's keys under one hash tag (one cluster slot, so BullMQ's
 * multi-key scripts stay on one node), and every timer-service works all of them.
 */
export class DeadlineQueues {
  constructor(
    readonly all: readonly DeadlineQueue[],
    private readonly shards: number,
  ) {}

  /** The queue of a table's deadlines. */
  of(tableId: string): DeadlineQueue {
    const queue = this.all[deadlineGroupOf(shardOf(tableId, this.shards), this.all.length)];
    if (!queue) throw new Error('No deadline queue.');
    return queue;
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((queue) => queue.close()));
  }
}

/** One queue per group, each on a connection of its own (a queue's prefix names its group). */
export function createDeadlineQueues(
  config: Exclude<RedisTarget, string> & {
    readonly redisPrefix: string;
    readonly tableShards: number;
    readonly deadlineGroups: number;
  },
): DeadlineQueues {
  const groups = Array.from({ length: config.deadlineGroups }, (_, group) =>
    createDeadlineQueue(config, config.redisPrefix, group),
  );
  return new DeadlineQueues(groups, config.tableShards);
}

/**
 * The options of one deadline job. Deduplication by table id makes the queue hold at most one
 * job per table (plus one stored "next" while a job of that table is being processed):
 * - `replace: true`: adding while the table's job is delayed removes that job and adds this one
 *   (new data, new delay): only the last one fires, at its own time.
 * - `keepLastIfActive: true`: adding while the table's job is ACTIVE (the timer-service is
 *   dispatching it) stores this one and BullMQ adds it, with its delay counted from then, the moment
 *   the active one finishes. Without it the add would be dropped.
 * - `extend` only matters with a `ttl`; with `keepLastIfActive` the key has no ttl, so it is left out.
 * - 8 attempts, 0.2 s doubling (about 25 s in all): BullMQ is the one way a deadline fires (decision
 *   0011), so a firing that cannot reach the stream is tried again for as long as a Redis restart takes.
 * The job id is ours (a UUID) so the caller can tell "added" from "deduplicated into job X".
 */
/**
 * How long before its deadline a deadline job becomes due. BullMQ hands a delayed job over only as
 * finely as Redis wakes a blocked reader (every 10 ms at `hz 100`, 100 ms at the default 10), and then
 * moves it through its lists: 20-35 ms late at the p99 on two cores (docs/performance.md). The timer
 * takes the job this much early and waits the rest on its own clock (`waitForDue`), to the
 * millisecond; it never fires before the deadline.
 */
export const DEADLINE_LEAD_MS = 40;

export function deadlineJobOptions(tableId: string, delayMs: number, jobId: string): JobsOptions {
  return {
    jobId,
    delay: Math.max(0, Math.round(delayMs - DEADLINE_LEAD_MS)),
    deduplication: { id: tableId, replace: true, keepLastIfActive: true },
    removeOnComplete: true,
    removeOnFail: { count: 1000 },
    attempts: 8,
    backoff: { type: 'exponential', delay: 200 },
  };
}

export type UpsertOutcome =
  /** A new delayed (or, for delay 0, waiting) job; any delayed job of the table was replaced. */
  | 'added'
  /** The table's job is being processed; this one is stored and added when it finishes. */
  | 'after-active';

export interface UpsertResult {
  readonly jobId: string;
  readonly outcome: UpsertOutcome;
}

const MAX_UPSERT_ATTEMPTS = 5;

/**
 * Sets THE deadline of a table: the one delayed job of `job.tableId` becomes this one, due in
 * `delayMs`. Call it after every stored change that moves the table's deadline (turn, break).
 *
 * BullMQ's `replace` covers a delayed job and `keepLastIfActive` an active one, but an add that meets
 * the table's job in the WAITING list (due, not yet picked up: a busy or stopped timer-service) is
 * dropped: the old job would fire with the old key and the new deadline never. So when the add comes
 * back deduplicated into a job that is neither active nor delayed, that job is removed and the add
 * retried (deadline-upsert.test.ts proves all three cases).
 */
export async function upsertDeadline(
  queue: DeadlineQueue,
  job: DeadlineJob,
  delayMs: number,
): Promise<UpsertResult> {
  for (let attempt = 0; attempt < MAX_UPSERT_ATTEMPTS; attempt++) {
    const jobId = randomUUID();
    const added = await queue.add(DEADLINE_JOB_NAME, job, deadlineJobOptions(job.tableId, delayMs, jobId));
    if (added.id === jobId) return { jobId, outcome: 'added' };
    const existing = added.id;
    if (existing === undefined) continue;
    const state = await queue.getJobState(existing);
    if (state === 'active') return { jobId, outcome: 'after-active' };
    // Waiting (or anything else that is not ours): take it out and try again. A job that turned
    // active meanwhile is locked and stays; the next add then lands as its "next".
    if (state !== 'unknown' && state !== 'completed' && state !== 'failed') {
      await queue.remove(existing).catch(() => 0);
    }
  }
  throw new Error(
    `Could not set the deadline of table ${job.tableId} after ${MAX_UPSERT_ATTEMPTS} attempts.`,
  );
}

/**
 * Waits until `dueAt` on `clock` when the job came early (DEADLINE_LEAD_MS), never longer than the
 * lead: a job whose deadline is further off (another machine's clock far ahead) fires after the lead,
 * and the table-service, which owns the deadline, decides whether it is due.
 */
export async function waitForDue(dueAt: number, clock: { now(): number }): Promise<void> {
  const until = Math.min(dueAt, clock.now() + DEADLINE_LEAD_MS);
  // A timer may end a millisecond before the wall clock says it should (it runs on another clock):
  // waited again until the clock has reached it.
  for (let wait = until - clock.now(); wait > 0; wait = until - clock.now())
    await new Promise((resolve) => setTimeout(resolve, wait));
}

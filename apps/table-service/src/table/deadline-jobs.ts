import type { Clock, Logger } from '@dominoes/platform';
import type { Deadline } from './table-state';

/**
 * Whether the job set, due at `wake`, already wakes the table for `deadline`: not yet due, due no later
 * than the deadline, and not about to come due before it. A wake-up due within the last third of the
 * time from `now` to a later deadline (15 s of a 45 s turn clock) would fire only to set that deadline's
 * job: moving the job now costs one Redis script, where a firing costs the timer-service a job's whole
 * round (about 3 ms of CPU here, issue 14, decision 0039). A table that moves faster than that moves its
 * job once every two thirds of its clock; one that waits longer gets the out-of-date firing.
 */
function wakesInTime(wake: number, deadline: Deadline, now: number): boolean {
  if (wake <= now || wake > deadline.at) return false;
  return wake === deadline.at || (wake - now) * 3 > deadline.at - now;
}

/** Sets the one delayed deadline job of a table (timer-service fires it). */
export interface DeadlineScheduler {
  schedule(tableId: string, deadline: Deadline, traceparent?: string): Promise<void>;
}

/**
 * The one BullMQ job of each table, as this replica set it (decision 0032): a wake-up of the table,
 * due at or before its deadline, never after it.
 *
 * - A deadline that comes no later than the job already set, and not yet due, sets nothing: that job
 *   wakes the table first. Its firing names a key that is no longer the table's, changes nothing
 *   (stale-deadline fencing), and sets the job of the deadline current then (`fired`, then `ensure`).
 *   At human pace a turn moves every few seconds against a 45 s clock, so one job in many is set.
 * - An earlier deadline (a disconnected seat's 5 s, the break, a first turn) replaces the job, as
 *   before (`upsertDeadline`: deduplication by table, `replace`). So does a later one when the job
 *   set is about to come due (`wakesInTime`): replacing it is cheaper than its firing.
 * - What this replica does not know (a table loaded from Postgres, a shard taken over, an intent that
 *   failed on the store) is set on the table's next change, as every change's job used to be.
 *
 * A table's jobs are set one after the other, in the order asked (decision 0024), so the job set last
 * is the one asked for last; the reply never waits for them.
 */
export class DeadlineJobs {
  /** When each table's job is due, for the tables this replica set one for and has not seen fire. */
  private readonly wakeAt = new Map<string, number>();
  /**
   * Per table, the trace of the change that made a deadline whose job was not set then: the job set
   * for that deadline later (after an out-of-date firing) still links to the change that made it.
   */
  private readonly madeBy = new Map<string, { readonly key: string; readonly traceparent?: string }>();
  /** Per table, the job being set, if any. */
  private readonly tails = new Map<string, Promise<void>>();

  constructor(
    private readonly scheduler: DeadlineScheduler,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Sets the job of `deadline`, unless the table's job is due no later and has not come due yet, and
   * is not about to: a wake-up due within the last third of the time to `deadline` is moved to it now.
   */
  ensure(tableId: string, deadline: Deadline, traceparent?: string): void {
    const made = this.madeBy.get(tableId);
    const wake = this.wakeAt.get(tableId);
    if (wake !== undefined && wakesInTime(wake, deadline, this.clock.now())) {
      if (made?.key !== deadline.key) this.madeBy.set(tableId, { key: deadline.key, traceparent });
      return;
    }
    this.madeBy.delete(tableId);
    this.wakeAt.set(tableId, deadline.at);
    const trace = made?.key === deadline.key ? made.traceparent : traceparent;
    const set = () => this.set(tableId, deadline, trace);
    const previous = this.tails.get(tableId);
    // Started at once when nothing of this table is pending (the common case).
    const next = previous ? previous.then(set) : set();
    this.tails.set(tableId, next);
    void next.then(() => {
      if (this.tails.get(tableId) === next) this.tails.delete(tableId);
    });
  }

  /** The table's job due at `dueAt` fired: it wakes the table no more (a newer, later one stays). */
  fired(tableId: string, dueAt: number): void {
    const wake = this.wakeAt.get(tableId);
    if (wake !== undefined && wake <= dueAt) this.wakeAt.delete(tableId);
  }

  /** What this replica knew of the table's job is no longer sure (it left the cache, a write failed). */
  forget(tableId: string): void {
    this.wakeAt.delete(tableId);
    this.madeBy.delete(tableId);
  }

  /** Resolves once every job asked for so far is set (or failed and was logged). */
  async settled(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }

  private async set(tableId: string, deadline: Deadline, traceparent?: string): Promise<void> {
    try {
      await this.scheduler.schedule(tableId, deadline, traceparent);
    } catch (error) {
      // The change is stored; if the job never made it, the deadline keeper's safety net sets it
      // again once the deadline is overdue (decision 0011), and a replica that takes the shard sets
      // every deadline of it again from Postgres. Not known to be set: the next change sets it.
      if (this.wakeAt.get(tableId) === deadline.at) this.wakeAt.delete(tableId);
      this.logger.error({ tableId, err: error }, 'could not schedule the deadline');
    }
  }
}

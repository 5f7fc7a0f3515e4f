import { upsertDeadline, type Clock, type DeadlineQueues, type Logger } from '@dominoes/platform';
import type { DeadlineScheduler, TableEngine } from '../table/table-engine';
import type { TableStore } from '../table/table-store';
import type { Deadline } from '../table/table-state';

/**
 * Sets every table's one BullMQ deadline job; the timer-service fires it, and nothing here ever fires
 * a deadline itself (decision 0011). Timers are derived from the stored state, and a job is set:
 * - after every stored change that moves the deadline (`schedule`, called by the engine);
 * - when this replica takes shards (Redis may have lost their jobs): one query for the deadlines of
 *   their open tables (`shardAcquired`);
 * - by a safety net, once a second, for a job BullMQ cannot have (`sweep`): a deadline of this
 *   replica's tables overdue by the grace (its job was refused by a Redis that was away, failed, or
 *   was used up by a firing whose write failed) gets its job set again, due now. The tables an intent
 *   failed on while a store was down have left the engine's memory: the safety net loads them again
 *   first, or nothing would ever move them (issue 11).
 */
export class DeadlineKeeper implements DeadlineScheduler {
  private sweepTimer: NodeJS.Timeout | null = null;
  private rebuildTimer: NodeJS.Timeout | null = null;
  private readonly shardsToRebuild = new Set<number>();
  /** The key each table's job was last set again for by the safety net, and when. */
  private readonly repaired = new Map<string, { key: string; at: number }>();
  private stopped = false;
  private sweeping = false;

  constructor(
    /** The deadline queue of each shard group (a table's is `queues.of(tableId)`). */
    private readonly queues: DeadlineQueues,
    private readonly shards: number,
    private readonly store: TableStore,
    private readonly engine: TableEngine,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** How late a deadline must be before the safety net sets its job again (OVERDUE_GRACE_MS). */
    private readonly overdueGraceMs: number,
    /** Whether this replica holds the table's shard now; without it, only cached tables are swept. */
    private readonly owns?: (tableId: string) => boolean,
  ) {}

  async schedule(tableId: string, deadline: Deadline, traceparent?: string): Promise<void> {
    const job = { tableId, key: deadline.key, dueAt: deadline.at, ...(traceparent ? { traceparent } : {}) };
    await upsertDeadline(this.queues.of(tableId), job, deadline.at - this.clock.now());
  }

  /** Shards taken at about the same time are rebuilt with one query. */
  shardAcquired(shard: number): void {
    if (this.stopped) return;
    this.shardsToRebuild.add(shard);
    if (this.rebuildTimer) return;
    this.rebuildTimer = setTimeout(() => {
      this.rebuildTimer = null;
      void this.rebuild();
    }, 200);
  }

  private async rebuild(): Promise<void> {
    const shards = [...this.shardsToRebuild];
    this.shardsToRebuild.clear();
    // Split by shard (decision 0027): one query per database, each on its own, so a database that is
    // down holds back only its own shards' deadlines (retried), not the others'.
    const byDatabase = new Map<number, number[]>();
    for (const shard of shards) {
      const database = this.store.databaseOfShard(shard);
      byDatabase.set(database, [...(byDatabase.get(database) ?? []), shard]);
    }
    await Promise.all([...byDatabase.values()].map((group) => this.rebuildShards(group)));
  }

  private async rebuildShards(shards: readonly number[]): Promise<void> {
    try {
      // One query: the deadline of every open table of these shards, not one read per table.
      const stored = await this.store.openTableDeadlines(shards, this.shards);
      let count = 0;
      for (const { id, deadline } of stored) {
        // The engine's copy, when it has one, is the newest (it is set as a change is stored).
        const copy = this.engine.cachedTable(id);
        if (await this.reschedule(id, copy ? copy.deadline : deadline)) count++;
      }
      this.logger.info({ shards, deadlines: count }, 'deadlines rebuilt from Postgres');
    } catch (error) {
      if (this.stopped) return;
      this.logger.error({ err: error, shards }, 'deadline rebuild failed; retrying');
      for (const shard of shards) this.shardAcquired(shard);
    }
  }

  /**
   * Sets the job of a table's current deadline. An intent may move the deadline, and set its own
   * job, while this one is being set; the job set last must be the current deadline's, so the
   * engine's copy (an intent that moved it left the table there) is checked again afterwards.
   */
  private async reschedule(tableId: string, current: Deadline | null): Promise<boolean> {
    let scheduled: string | null = null;
    let deadline = current;
    for (let attempt = 0; attempt < 5; attempt++) {
      if (!deadline || deadline.key === scheduled) return scheduled !== null;
      await this.schedule(tableId, deadline);
      scheduled = deadline.key;
      const copy = this.engine.cachedTable(tableId);
      if (copy) deadline = copy.deadline;
    }
    return true;
  }

  startSweep(intervalMs = 1000): void {
    this.sweepTimer = setInterval(() => {
      // A Postgres that hangs must not stack sweeps up.
      if (this.sweeping) return;
      this.sweeping = true;
      void this.sweep().finally(() => (this.sweeping = false));
    }, intervalMs);
  }

  /**
   * The safety net: sets again, due now, the job of every deadline of this replica's tables that is
   * overdue by the grace. The timer-service then fires it; a firing that arrives twice is applied once
   * (its intent id is `deadline:<key>`).
   */
  async sweep(): Promise<void> {
    await this.reloadFailedTables();
    const now = this.clock.now();
    for (const table of this.engine.cachedTables()) {
      const d = table.deadline;
      if (!d || d.at > now - this.overdueGraceMs) {
        this.repaired.delete(table.id);
        continue;
      }
      // Set a key's job once, and again only if it is still overdue long after (that one was lost too).
      const last = this.repaired.get(table.id);
      if (last && last.key === d.key && now - last.at < 10 * this.overdueGraceMs) continue;
      this.logger.warn(
        { tableId: table.id, key: d.key, lateMs: now - d.at },
        'deadline overdue with no firing: setting its job again',
      );
      try {
        await this.schedule(table.id, d);
      } catch (error) {
        // Redis is away: every other table's job would fail the same way. The next sweep tries again.
        this.logger.error({ err: error }, 'overdue sweep could not set a deadline job');
        return;
      }
      this.repaired.set(table.id, { key: d.key, at: now });
    }
  }

  /**
   * Loads again the tables of this replica's shards that an intent failed on (the store was down),
   * so the sweep sees their deadlines: a deadline whose firing failed has no job any more.
   */
  private async reloadFailedTables(): Promise<void> {
    const owns = this.owns;
    if (!owns) return;
    for (const id of this.engine.tablesToReload()) {
      if (this.stopped) return;
      if (!owns(id)) continue;
      try {
        await this.engine.reload(id);
      } catch (error) {
        this.logger.warn(
          { tableId: id, err: error },
          'overdue sweep: the store does not answer yet; trying again',
        );
        return;
      }
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.rebuildTimer) clearTimeout(this.rebuildTimer);
  }
}

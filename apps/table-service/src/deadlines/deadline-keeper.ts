import { upsertDeadline, type DeadlineQueue, type Logger, type Redis, type Clock } from '@dominoes/platform';
import { shardOf, type IntentEnvelope, type RedisNames } from '@dominoes/protocol';
import type { DeadlineScheduler, TableEngine } from '../table/table-engine';
import type { TableStore } from '../table/table-store';
import type { Deadline } from '../table/table-state';

/**
 * Keeps every table's deadline alive. Timers are derived from the stored state: when this replica
 * takes a shard it sets the deadline job of each of its tables again (Redis may have lost them),
 * and a sweep fires, through the shard's own stream, any deadline that is overdue with no firing.
 * The sweep also loads again the tables an intent failed on while a store was down: such a table
 * has left the engine's cache, and if the intent was its deadline's firing, the job is used up, so
 * nothing else would ever move it (issue 11).
 */
export class DeadlineKeeper implements DeadlineScheduler {
  private sweepTimer: NodeJS.Timeout | null = null;
  private rebuildTimer: NodeJS.Timeout | null = null;
  private readonly shardsToRebuild = new Set<number>();
  /** The key each table's deadline was last fired for by the sweep, and when. */
  private readonly swept = new Map<string, { key: string; at: number }>();
  private stopped = false;
  private sweeping = false;

  constructor(
    private readonly queue: DeadlineQueue,
    private readonly redis: Redis,
    private readonly names: RedisNames,
    private readonly shards: number,
    private readonly store: TableStore,
    private readonly engine: TableEngine,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly overdueGraceMs: number,
    /** Whether this replica holds the table's shard now; without it, only cached tables are swept. */
    private readonly owns?: (tableId: string) => boolean,
  ) {}

  async schedule(tableId: string, deadline: Deadline, traceparent?: string): Promise<void> {
    const job = { tableId, key: deadline.key, dueAt: deadline.at, ...(traceparent ? { traceparent } : {}) };
    await upsertDeadline(this.queue, job, deadline.at - this.clock.now());
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
    const shards = new Set(this.shardsToRebuild);
    this.shardsToRebuild.clear();
    try {
      // Only these shards' open tables: their ids, from one index (not every shard's snapshots).
      const ids = await this.store.openTableIds([...shards], this.shards);
      let count = 0;
      for (const id of ids) {
        if (await this.reschedule(id)) count++;
      }
      this.logger.info({ shards: [...shards], deadlines: count }, 'deadlines rebuilt from Postgres');
    } catch (error) {
      if (this.stopped) return;
      this.logger.error({ err: error }, 'deadline rebuild failed; retrying');
      for (const shard of shards) this.shardAcquired(shard);
    }
  }

  /**
   * Sets the job of one table's current deadline: the engine's copy (loaded from Postgres when it
   * has none). An intent may move the deadline, and set its own job, while this one is being set;
   * the job set last must be the current deadline's, so it is checked again afterwards.
   */
  private async reschedule(tableId: string): Promise<boolean> {
    let scheduled: string | null = null;
    for (let attempt = 0; attempt < 5; attempt++) {
      const deadline = (await this.engine.load(tableId))?.deadline ?? null;
      if (!deadline || deadline.key === scheduled) return scheduled !== null;
      await this.schedule(tableId, deadline);
      scheduled = deadline.key;
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

  /** Fires every deadline of this replica's tables that is overdue by the grace. */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    await this.reloadFailedTables();
    for (const table of this.engine.cachedTables()) {
      const d = table.deadline;
      if (!d || d.at > now - this.overdueGraceMs) continue;
      // Fire a key once, and again only if it is still overdue long after (that firing was lost too).
      const last = this.swept.get(table.id);
      if (last && last.key === d.key && now - last.at < 10 * this.overdueGraceMs) continue;
      const envelope: IntentEnvelope = {
        intentId: `deadline:${d.key}`,
        tableId: table.id,
        player: null,
        connectionId: null,
        replyTo: null,
        sentAt: now,
        intent: { kind: 'deadline', key: d.key, dueAt: d.at },
      };
      this.logger.warn(
        { tableId: table.id, key: d.key, lateMs: now - d.at },
        'deadline overdue: firing it from the sweep',
      );
      const sent = await this.redis
        .xadd(
          this.names.intentStream(shardOf(table.id, this.shards)),
          'MAXLEN',
          '~',
          100000,
          '*',
          'm',
          JSON.stringify(envelope),
        )
        .then(
          () => true,
          (error: unknown) => {
            this.logger.error({ err: error }, 'sweep could not send');
            return false;
          },
        );
      // Only a firing that reached the stream counts: one lost to a Redis outage is sent again next sweep.
      if (sent) this.swept.set(table.id, { key: d.key, at: now });
    }
  }

  /**
   * Loads again the tables of this replica's shards that an intent failed on (the store was down),
   * so the sweep below sees their deadlines: a deadline whose firing failed has no job any more.
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

import { upsertDeadline, type DeadlineQueue, type Logger, type Redis, type Clock } from '@dominoes/platform';
import { shardOf, type IntentEnvelope, type RedisNames } from '@dominoes/protocol';
import type { DeadlineScheduler, TableEngine } from '../table/table-engine';
import type { TableStore } from '../table/table-store';
import type { Deadline } from '../table/table-state';

/**
 * Keeps every table's deadline alive. Timers are derived from the stored state: when this replica
 * takes a shard it sets the deadline job of each of its tables again (Redis may have lost them),
 * and a sweep fires, through the shard's own stream, any deadline that is overdue with no firing.
 * The sweep asks Postgres too, not only this replica's memory: a table whose write failed during a
 * Postgres outage has left the engine's cache, and its deadline's job was used up by the failed
 * intent, so nothing else would ever move it (issue 11).
 */
export class DeadlineKeeper implements DeadlineScheduler {
  private sweepTimer: NodeJS.Timeout | null = null;
  private rebuildTimer: NodeJS.Timeout | null = null;
  private readonly shardsToRebuild = new Set<number>();
  /** The key each table's deadline was last fired for by the sweep, and when. */
  private readonly swept = new Map<string, { key: string; at: number }>();
  private stopped = false;
  private sweeping = false;
  /** Overdue tables read from Postgres per sweep, oldest first. */
  static readonly STORE_SWEEP_LIMIT = 500;

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
      // Only these shards' tables: their ids, from the deadline index (not every shard's snapshots).
      const ids = await this.store.tableIdsWithDeadlines([...shards], this.shards);
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
    await this.loadOverdueFromStore(now);
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

  /** Brings the overdue tables of this replica's shards into memory, so the sweep below sees them. */
  private async loadOverdueFromStore(now: number): Promise<void> {
    const owns = this.owns;
    if (!owns) return;
    let ids: string[];
    try {
      ids = await this.store.overdueTableIds(now - this.overdueGraceMs, DeadlineKeeper.STORE_SWEEP_LIMIT);
    } catch (error) {
      this.logger.warn({ err: error }, 'overdue sweep: Postgres did not answer; trying again next sweep');
      return;
    }
    for (const id of ids) {
      if (this.stopped || !owns(id)) continue;
      // load() keeps a cached copy (it is never older than Postgres) and caches a stored one.
      await this.engine.load(id).catch((error: unknown) => {
        this.logger.warn({ tableId: id, err: error }, 'overdue sweep: could not load the table');
      });
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.rebuildTimer) clearTimeout(this.rebuildTimer);
  }
}

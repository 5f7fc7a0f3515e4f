import type { Clock, Logger } from '@dominoes/platform';
import type { TableStore } from '../table/table-store';

export interface ArchiverOptions {
  readonly store: Pick<TableStore, 'databases' | 'archivableTableIds' | 'archiveTable'>;
  /** Drops archived tables from the engine's memory. */
  readonly forget: (tableIds: ReadonlySet<string>) => void;
  readonly clock: Clock;
  readonly logger: Logger;
  /** A finished or closed table idle this long is archived; 0: never. */
  readonly afterMs: number;
  readonly intervalMs: number;
  /** Tables moved per run and database at most (each in its own short transaction). */
  readonly batch?: number;
}

/**
 * Retention: every interval, moves the finished and closed tables that nobody touched for `afterMs`
 * out of the hot tables into the `archive` schema (their logs stay replayable there). Any replica may
 * run it at the same time as another: each table moves in one transaction that locks its row first,
 * and a table moved by one is simply not found by the other.
 */
export class Archiver {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = false;

  constructor(private readonly options: ArchiverOptions) {}

  start(): void {
    if (this.options.afterMs <= 0) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.runOnce()
        .catch((error: unknown) => {
          if (!this.stopped)
            this.options.logger.warn({ err: error }, 'archive run failed; trying again later');
          return 0;
        })
        .finally(() => (this.running = null));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /**
   * One pass over each database in turn (split by shard, decision 0027: a table is archived in its own
   * database); a database that fails is logged and the next still runs. Returns how many tables moved.
   */
  async runOnce(): Promise<number> {
    const { store, clock, afterMs, logger } = this.options;
    const idleBefore = clock.now() - afterMs;
    const moved = new Set<string>();
    let failure: unknown = null;
    for (let database = 0; database < store.databases && !this.stopped; database++) {
      try {
        const ids = await store.archivableTableIds(database, idleBefore, this.options.batch ?? 200);
        for (const id of ids) {
          if (this.stopped) break;
          if (await store.archiveTable(id, idleBefore)) moved.add(id);
        }
      } catch (error) {
        failure = error;
        if (store.databases > 1) logger.warn({ err: error, database }, 'archive run of one database failed');
      }
    }
    if (moved.size > 0) {
      this.options.forget(moved);
      logger.info({ archived: moved.size }, 'finished and closed tables moved to the archive');
    }
    // The timer's caller logs it and tries again later (what one database always did).
    if (failure !== null) throw failure;
    return moved.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}

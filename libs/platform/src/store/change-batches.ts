import { isRefusedStatement } from './sql-errors';
import type { ChangeOutcome, TableChange, TableQueries } from './table-queries';

/** How one database's changes are grouped into statements (decision 0030). */
export interface ChangeBatchLimits {
  /** Changes in one statement, at most. */
  readonly maxBatch: number;
  /** Statements under way at once; what arrives meanwhile waits and goes in the next one. */
  readonly maxInFlight: number;
}

export const DEFAULT_CHANGE_BATCH_LIMITS: ChangeBatchLimits = { maxBatch: 64, maxInFlight: 4 };

interface Waiting {
  readonly change: TableChange;
  readonly resolve: (outcome: ChangeOutcome) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for one database: the tables' changes that arrive while its statements are under way
 * (or in the same turn of the event loop) are stored together, in one statement and one commit
 * (TableQueries.appendBatch), each still fenced on its own version and expiry, each answered with its
 * own outcome only once that statement is committed. One change alone runs as it always did
 * (TableQueries.append). A statement Postgres refuses wrote nothing: its changes are stored again one
 * by one, so that the one an intent id was stored for before is told 'duplicate' and the others are
 * stored. An error that may have come after the commit (a lost connection) is every change's error.
 */
export class ChangeBatches {
  private readonly queue: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly queries: TableQueries,
    private readonly limits: ChangeBatchLimits = DEFAULT_CHANGE_BATCH_LIMITS,
  ) {}

  append(change: TableChange): Promise<ChangeOutcome> {
    return new Promise<ChangeOutcome>((resolve, reject) => {
      this.queue.push({ change, resolve, reject });
      this.schedule();
    });
  }

  /** Changes waiting for a statement (none once every statement is out). */
  get waiting(): number {
    return this.queue.length;
  }

  /** After the current turn of the event loop: the intents read with this one reach it meanwhile. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.limits.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    while (this.inFlight < this.limits.maxInFlight && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight += 1;
      void this.store(batch).finally(() => {
        this.inFlight -= 1;
        this.schedule();
      });
    }
  }

  /** The oldest waiting changes, at most one per table (a table's next change waits for this one). */
  private take(): Waiting[] {
    const batch: Waiting[] = [];
    const tables = new Set<string>();
    for (let i = 0; i < this.queue.length && batch.length < this.limits.maxBatch;) {
      const waiting = this.queue[i]!;
      if (tables.has(waiting.change.tableId)) {
        i += 1;
        continue;
      }
      tables.add(waiting.change.tableId);
      batch.push(waiting);
      this.queue.splice(i, 1);
    }
    return batch;
  }

  private async store(batch: readonly Waiting[]): Promise<void> {
    if (batch.length === 1) return this.storeAlone(batch[0]!);
    let stored: Set<string>;
    try {
      // Sorted by table: two replicas' statements (a shard changing hands) lock rows in one order.
      const changes = batch.map((w) => w.change).sort((a, b) => (a.tableId < b.tableId ? -1 : 1));
      stored = await this.queries.appendBatch(changes);
    } catch (error) {
      if (isRefusedStatement(error)) {
        await Promise.all(batch.map((w) => this.storeAlone(w)));
        return;
      }
      for (const w of batch) w.reject(error);
      return;
    }
    for (const w of batch) w.resolve(stored.has(w.change.tableId) ? 'stored' : 'not-written');
  }

  private async storeAlone(waiting: Waiting): Promise<void> {
    try {
      waiting.resolve(await this.queries.append(waiting.change));
    } catch (error) {
      waiting.reject(error);
    }
  }
}

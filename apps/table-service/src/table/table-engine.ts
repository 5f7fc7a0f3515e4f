import { injectTraceparent, setSpanAttributes, type Clock, type Logger } from '@dominoes/platform';
import type { Durations } from '@dominoes/rules';
import { intentName, type IntentEnvelope, type IntentReply, type SeatEvent } from '@dominoes/protocol';
import { decide, DEFAULT_TABLE_LIMITS, openTable, type TableLimits } from './table-policy';
import {
  DuplicateIntentError,
  IntentExpiredError,
  StaleWriteError,
  StoreUnavailableError,
  TooManyTablesError,
  WriteOutcomeUnknownError,
  type SeatPublisher,
  type TableRepository,
} from './table-ports';
import { isConnected, seatOfPlayer, type Deadline, type TableState } from './table-state';
import { occupiedSeats, seatMessages, tableView } from './table-views';
import { dealSource } from './deal-source';
import { DeadlineJobs, type DeadlineScheduler } from './deadline-jobs';
import { lobbyUpdateOf, type LobbyPublisher } from './lobby-feed';
import type { SpectatorHook } from '../spectators/table-spectators';

export type { DeadlineScheduler };

export interface EngineMetrics {
  intent(kind: string, outcome: string): void;
}

export interface EngineDeps {
  /** Postgres in the service (TableStore); in memory in the engine's own tests. */
  readonly store: TableRepository;
  /** The seats' Redis channels in the service (RedisSeatPublisher); in memory in tests. */
  readonly publisher: SeatPublisher;
  readonly clock: Clock;
  readonly durations: Durations;
  readonly deadlines: DeadlineScheduler;
  readonly logger: Logger;
  readonly metrics?: EngineMetrics;
  /** MAX_OPEN_TABLES_PER_HOST, WAITING_TABLE_TTL_MS and ABANDONED_TABLE_MS; the defaults when left out. */
  readonly limits?: TableLimits;
  /** The lobby channel (lobby-feed.ts): a public table's seats or status changed. None in tests that leave it out. */
  readonly lobby?: LobbyPublisher;
  /** The watchers of the tables (decision 0018): their count in the views, the public view after a change. */
  readonly spectators?: SpectatorHook;
}

/**
 * Applies intents to tables: decide (pure) → store in Postgres (fenced) → publish each seat's own
 * view → set the next deadline → reply. Intents of one table run one at a time, in arrival order.
 */
export class TableEngine {
  private readonly cache = new Map<string, TableState>();
  private readonly tails = new Map<string, Promise<unknown>>();
  /** Each table's one deadline job, as this replica set it (decision 0032). */
  private readonly jobs: DeadlineJobs;
  /**
   * Tables an intent failed on with an error of the store (Postgres or Redis down): not in memory
   * now, or not sure to be, while whatever that intent was (a deadline's firing, used up) is lost.
   * The deadline keeper's safety net loads them again once the store answers (issue 11).
   */
  private readonly failed = new Set<string>();
  /**
   * For each table in memory, the version whose views this replica last published (issued): a
   * change's views go out as changes (decision 0036) only on top of those, else whole (the first
   * change after a load, after a failed publish, a create's first join).
   */
  private readonly viewsOut = new Map<string, number>();
  private readonly limits: TableLimits;

  constructor(private readonly deps: EngineDeps) {
    this.limits = deps.limits ?? DEFAULT_TABLE_LIMITS;
    this.jobs = new DeadlineJobs(deps.deadlines, deps.clock, deps.logger);
  }

  /**
   * A closed table takes no more changes, and a finished one with no deadline and no seat connected
   * waits for nobody (its players left; a new match needs one of them back): neither is kept in
   * memory, and a later intent reads it from Postgres (issue 14: abandoned tables held the RSS).
   */
  private remember(table: TableState): void {
    if (table.status === 'closed' || isLeftFinished(table)) this.drop(table.id);
    else this.cache.set(table.id, table);
  }

  /** Forgets this replica's copy of a table, and what it knew of its deadline job. */
  private drop(tableId: string): void {
    this.cache.delete(tableId);
    this.viewsOut.delete(tableId);
    this.jobs.forget(tableId);
  }

  /** Runs `work` after every earlier intent of the same table. */
  private serial<T>(tableId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(tableId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => undefined);
    this.tails.set(tableId, tail);
    void tail.then(() => {
      if (this.tails.get(tableId) === tail) this.tails.delete(tableId);
    });
    return next;
  }

  handle(envelope: IntentEnvelope): Promise<IntentReply> {
    return this.serial(envelope.tableId, () => this.apply(envelope)).catch((error: unknown) => {
      // The transport answers UNAVAILABLE or INTERNAL; count it with the other outcomes.
      const code = error instanceof StoreUnavailableError ? 'UNAVAILABLE' : 'INTERNAL';
      this.deps.metrics?.intent(intentName(envelope.intent), code);
      this.drop(envelope.tableId);
      this.failed.add(envelope.tableId);
      throw error;
    });
  }

  /** The tables intents failed on since they were last loaded again (see `failed`). */
  tablesToReload(): string[] {
    return [...this.failed];
  }

  /** Loads a table an intent failed on again; true once it is in memory (or is gone). */
  async reload(tableId: string): Promise<boolean> {
    await this.load(tableId);
    this.failed.delete(tableId);
    return true;
  }

  /** Drops what this replica knows of tables it no longer owns. */
  forget(predicate: (tableId: string) => boolean): void {
    for (const id of [...this.cache.keys()]) if (predicate(id)) this.drop(id);
  }

  cachedTables(): Iterable<TableState> {
    return this.cache.values();
  }

  /** This replica's copy of a table, if it has one (no read from Postgres). */
  cachedTable(tableId: string): TableState | undefined {
    return this.cache.get(tableId);
  }

  async load(tableId: string): Promise<TableState | null> {
    const cached = this.cache.get(tableId);
    if (cached) return cached;
    const stored = await this.deps.store.load(tableId);
    // An intent may have stored a newer state while this read was under way: never go back.
    const meanwhile = this.cache.get(tableId);
    if (meanwhile) return meanwhile;
    if (stored) this.remember(stored);
    return stored;
  }

  /**
   * A fenced write means this copy of the table was out of date (another replica wrote it, or this
   * one had an old copy): reload it from Postgres and apply the intent once more against the truth.
   * Safe: every write is version-checked, and an intent id is stored at most once.
   */
  private async apply(envelope: IntentEnvelope): Promise<IntentReply> {
    try {
      return await this.applyOnce(envelope);
    } catch (error) {
      if (!(error instanceof StaleWriteError)) throw error;
      this.deps.logger.warn(
        { tableId: envelope.tableId, intentId: envelope.intentId },
        'stale copy of the table; reloading and retrying',
      );
      try {
        return await this.applyOnce(envelope);
      } catch (again) {
        if (!(again instanceof StaleWriteError)) throw again;
        return {
          ok: false,
          intentId: envelope.intentId,
          code: 'UNAVAILABLE',
          message: 'The table is moving to another server; try again.',
        };
      }
    }
  }

  private async applyOnce(envelope: IntentEnvelope): Promise<IntentReply> {
    const { intentId, tableId, intent } = envelope;
    const reply = (outcome: IntentReply): IntentReply => {
      this.deps.metrics?.intent(intentName(intent), outcome.ok ? 'applied' : outcome.code);
      setSpanAttributes({ 'dominoes.intent.outcome': outcome.ok ? 'applied' : outcome.code });
      return outcome;
    };
    // The views and the deadline this intent causes carry its trace (table.intent's span).
    const traceparent = injectTraceparent() ?? envelope.traceparent;
    if (intent.kind === 'create') {
      if (this.expired(envelope)) return reply(expiredReply(intentId));
      return reply(await this.create(envelope, traceparent));
    }
    const table = await this.read(tableId, () => this.load(tableId));
    if (!table)
      return reply({
        ok: false,
        intentId,
        code: 'TABLE_NOT_FOUND',
        message: `There is no table ${tableId}.`,
      });
    // A firing uses its job up, whatever its key: the table has no job until one is set again.
    if (intent.kind === 'deadline') this.jobs.fired(tableId, intent.dueAt);
    const seatOf = (t: TableState) => (envelope.player ? seatOfPlayer(t, envelope.player.id) : -1);
    if (table.recentIntents.includes(intentId)) {
      // Applied before (a client retry, or a redelivery after a crash): at most once.
      const seat = seatOf(table);
      return reply({ ok: true, intentId, version: table.version, seat: seat >= 0 ? seat : null });
    }
    // Its sender has been (or is about to be) told it was not applied: it never is.
    if (this.expired(envelope)) return reply(expiredReply(intentId));
    if (
      intent.kind === 'newMatch' &&
      table.status === 'finished' &&
      envelope.player?.id === table.hostPlayerId
    ) {
      // A new match opens a finished table again: it counts toward its host's open tables.
      const host = envelope.player.id;
      const open = await this.read(tableId, () => this.deps.store.openTablesOf(host));
      if (open >= this.limits.maxOpenTablesPerHost) {
        const { message } = new TooManyTablesError(open, this.limits.maxOpenTablesPerHost);
        return reply({ ok: false, intentId, code: 'TOO_MANY_TABLES', message });
      }
    }
    const decision = decide(table, envelope, {
      now: this.deps.clock.now(),
      rng: dealSource,
      durations: this.deps.durations,
      abandonedTableMs: this.limits.abandonedTableMs,
    });
    if (!decision.ok) return reply({ ok: false, intentId, code: decision.code, message: decision.message });
    const cause = { intentId, sentAt: envelope.sentAt };
    if (decision.events.length === 0) {
      // A wake-up set for an earlier deadline (decision 0032): now the job of the current one.
      if (intent.kind === 'deadline' && table.deadline)
        this.jobs.ensure(tableId, table.deadline, traceparent);
      // Nothing changed (a sync, an out-of-date deadline): the asker gets the whole view again, in
      // the reply, for the asking socket alone. (On the seat channel it went to every socket of the
      // seat: 60 sockets syncing sent 57 times the views.) Without a reply channel nobody asked.
      const seat = decision.seat;
      if (seat === null || envelope.replyTo === null)
        return reply({ ok: true, intentId, version: table.version, seat });
      const view = JSON.stringify(tableView(table, seat, this.watchers(tableId)));
      return reply({ ok: true, intentId, version: table.version, seat, view });
    }
    let stored: TableState;
    try {
      await this.deps.store.append(table, decision.table, decision.events, intentId, envelope.expiresAt);
      stored = { ...decision.table, version: table.version + decision.events.length };
    } catch (error) {
      // Nothing was written: the cached copy is still the stored one.
      if (error instanceof IntentExpiredError) return reply(expiredReply(intentId));
      this.drop(tableId);
      if (error instanceof DuplicateIntentError) {
        const fresh = await this.load(tableId);
        return reply({ ok: true, intentId, version: fresh?.version ?? null, seat: decision.seat });
      }
      if (error instanceof StaleWriteError) throw error;
      // Anything else: the write may or may not have been committed, so nothing is answered.
      throw new WriteOutcomeUnknownError(tableId, error);
    }
    this.remember(stored);
    // From here on the change is stored: nothing below may turn into an error reply (a player told
    // "not applied" of a move that was: the chaos test's refusedButStored). The views' PUBLISHes are
    // issued now and not waited for: the reply, issued after them on the same connection, reaches
    // Redis after them, and goes out with them in one write (issue 14). A failed one is tried again.
    void this.publishStored(stored, cause, traceparent, table);
    await this.publishLobby(table, stored);
    await this.publishToSpectators(stored, traceparent);
    this.scheduleDeadline(table.deadline, stored, traceparent);
    return reply({ ok: true, intentId, version: stored.version, seat: decision.seat });
  }

  /** A read before any write: its failure means nothing was written (StoreUnavailableError). */
  private async read<T>(tableId: string, query: () => Promise<T>): Promise<T> {
    try {
      return await query();
    } catch (error) {
      throw new StoreUnavailableError(tableId, error);
    }
  }

  private watchers(tableId: string): number {
    return this.deps.spectators?.watchers(tableId) ?? 0;
  }

  private expired(envelope: IntentEnvelope): boolean {
    return envelope.expiresAt !== undefined && this.deps.clock.now() >= envelope.expiresAt;
  }

  private async create(envelope: IntentEnvelope, traceparent?: string): Promise<IntentReply> {
    const { intentId, tableId, intent } = envelope;
    if (intent.kind !== 'create' || envelope.player === null) {
      return { ok: false, intentId, code: 'UNAUTHENTICATED', message: 'Opening a table needs a player.' };
    }
    const opened = openTable(tableId, envelope.player, intent.config, envelope.connectionId, {
      now: this.deps.clock.now(),
      waitingTableTtlMs: this.limits.waitingTableTtlMs,
    });
    if (!opened.ok) return { ok: false, intentId, code: opened.code, message: opened.message };
    let stored: TableState | null;
    try {
      stored = await this.deps.store.create(opened.table, opened.events, intentId, this.limits);
    } catch (error) {
      if (error instanceof TooManyTablesError)
        return { ok: false, intentId, code: 'TOO_MANY_TABLES', message: error.message };
      // As for a change: the table may have been stored (Postgres killed after the commit).
      throw new WriteOutcomeUnknownError(tableId, error);
    }
    if (!stored) {
      // The code is taken, perhaps by this very intent read again (a crash, or an unknown outcome,
      // after its commit): at most once, it is answered as the create it was.
      const existing = await this.read(tableId, () => this.load(tableId));
      if (existing?.recentIntents.includes(intentId))
        return { ok: true, intentId, version: existing.version, seat: 0 };
      return { ok: false, intentId, code: 'TABLE_CODE_TAKEN', message: 'table code taken' };
    }
    this.remember(stored);
    await this.publishLobby(null, stored);
    this.scheduleDeadline(null, stored, traceparent);
    return { ok: true, intentId, version: stored.version, seat: 0 };
  }

  private async publish(
    table: TableState,
    seats: readonly number[],
    cause: SeatEvent['cause'],
    traceparent: string | undefined,
    before: TableState | null,
  ): Promise<void> {
    if (seats.length === 0) return;
    const chained = before !== null && this.viewsOut.get(table.id) === before.version;
    const messages = seatMessages(
      table,
      seats,
      this.watchers(table.id),
      cause,
      traceparent,
      chained ? before : null,
    );
    if (this.cache.has(table.id)) this.viewsOut.set(table.id, table.version);
    try {
      await this.deps.publisher.publish(messages);
    } catch (error) {
      if (this.viewsOut.get(table.id) === table.version) this.viewsOut.delete(table.id);
      throw error;
    }
  }

  /**
   * The seats' views of a stored change. A publish that fails (Redis away or restarting) is tried
   * again with backoff, off the reply's path, for as long as this version is still the table's newest
   * here (a newer change publishes its own views); a gateway drops a version it has sent already, so
   * a view that did go out the first time is not shown twice. The first try sends each seat what
   * changed since `before`, the change before (decision 0036); a later one sends whole views, as a
   * gateway whose sockets missed the first has nothing to apply a change to.
   */
  private async publishStored(
    table: TableState,
    cause: SeatEvent['cause'],
    traceparent: string | undefined,
    before: TableState | null,
    attempt = 0,
  ): Promise<void> {
    try {
      await this.publish(table, occupiedSeats(table), cause, traceparent, before);
    } catch (error) {
      const fields = { tableId: table.id, version: table.version, attempt, err: error };
      if (attempt >= VIEW_REPUBLISH_ATTEMPTS) {
        this.deps.logger.error(fields, 'views of a stored change not published; the next change shows it');
        return;
      }
      this.deps.logger.warn(fields, 'views of a stored change not published; trying again');
      const retry = setTimeout(
        () => {
          const current = this.cache.get(table.id);
          if (current?.version === table.version)
            void this.publishStored(current, cause, traceparent, null, attempt + 1);
        },
        VIEW_REPUBLISH_FIRST_MS * 2 ** attempt,
      );
      retry.unref();
    }
  }

  /** The spectators' view of a stored change; one that fails is shown at the table's next change. */
  private async publishToSpectators(table: TableState, traceparent?: string): Promise<void> {
    try {
      await this.deps.spectators?.published(table, traceparent);
    } catch (error) {
      this.deps.logger.warn({ tableId: table.id, err: error }, "could not publish the spectators' view");
    }
  }

  /** After the store: the lobby's update, when a public table's seats or status changed (never per move). */
  private async publishLobby(before: TableState | null, after: TableState): Promise<void> {
    const update = this.deps.lobby ? lobbyUpdateOf(before, after) : null;
    if (!update) return;
    try {
      await this.deps.lobby!.publish(update);
    } catch (error) {
      // The change is stored; the lobby shows it at its next change or to the next subscriber.
      this.deps.logger.warn({ tableId: after.id, err: error }, 'could not publish the lobby update');
    }
  }

  /**
   * Sets the table's deadline job after a stored change that moved its deadline, off the reply's
   * path (decision 0024), and only when no job due no later is set already (decision 0032).
   */
  private scheduleDeadline(before: Deadline | null, after: TableState, traceparent?: string): void {
    const deadline = after.deadline;
    if (!deadline || deadline.key === before?.key) return;
    this.jobs.ensure(after.id, deadline, traceparent);
  }

  /** Resolves once every deadline job asked for so far is set (or failed and was logged). */
  deadlinesSet(): Promise<void> {
    return this.jobs.settled();
  }
}

/** A stored change's views that could not be published are tried again this often (250 ms … 8 s, ~16 s in all). */
const VIEW_REPUBLISH_ATTEMPTS = 6;
const VIEW_REPUBLISH_FIRST_MS = 250;

/** A finished table that nobody is at and nothing will move (remember). */
const isLeftFinished = (table: TableState): boolean =>
  table.status === 'finished' && table.deadline === null && !table.seats.some(isConnected);

function expiredReply(intentId: string): IntentReply {
  return {
    ok: false,
    intentId,
    code: 'INTENT_EXPIRED',
    message: 'This arrived too late to be applied, and was not; try again.',
  };
}

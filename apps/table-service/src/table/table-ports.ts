import type { SeatMessage } from '@dominoes/protocol';
import type { TableEvent } from './table-events';
import type { TableState } from './table-state';

/*
 * What the engine needs of the world, as interfaces (ports): where tables are stored, and where the
 * seats' views go. The table-service wires Postgres (table-store.ts) and Redis (seat-publisher.ts);
 * the engine's own tests use in-memory ones (test/support/in-memory-*.ts).
 */

/**
 * Where tables are stored. Every change is fenced on the version it was decided on, and an intent id
 * is stored at most once per table: a change that breaks either is not stored at all.
 */
export interface TableRepository {
  /** The stored table, or null when there is none. */
  load(tableId: string): Promise<TableState | null>;
  /**
   * Stores a new table with its events; null when the code is taken. Throws TooManyTablesError when
   * its host already has `maxOpenTablesPerHost` open tables (on any replica).
   */
  create(
    table: TableState,
    events: readonly TableEvent[],
    intentId: string | null,
    limits: { readonly maxOpenTablesPerHost: number },
  ): Promise<TableState | null>;
  /**
   * Stores the change of `before` into `after`, with its events, only while `before.version` is the
   * stored one (else StaleWriteError) and, with `expiresAt`, the store's clock is before it (else
   * IntentExpiredError). DuplicateIntentError when `intentId` is stored already.
   */
  append(
    before: TableState,
    after: TableState,
    events: readonly TableEvent[],
    intentId: string | null,
    expiresAt?: number,
  ): Promise<void>;
  /** How many tables `hostPlayerId` has open (not finished, not closed). */
  openTablesOf(hostPlayerId: string): Promise<number>;
}

/** Where each seat's own view of a stored change goes (its table's views channel), in one batch. */
export interface SeatPublisher {
  publish(messages: readonly SeatMessage[]): Promise<void>;
}

/** Another writer stored a newer version: this replica lost the table and must not write (fencing). */
export class StaleWriteError extends Error {
  constructor(tableId: string, expected: number) {
    super(`Table ${tableId} is no longer at version ${expected}: another replica wrote it.`);
    this.name = 'StaleWriteError';
  }
}

/**
 * The store's write failed without saying whether it was written: the connection died during the
 * statement, and a commit may have reached the disk first (Postgres killed after the commit, before
 * its answer). No answer may be given for the intent: "not applied" could be false. The transport
 * leaves it unanswered and unacknowledged on its stream; it is read again (after the table is
 * loaded again) and the stored log decides, at most once. The gateway, whose reply times out
 * meanwhile, asks Postgres what was stored.
 */
export class WriteOutcomeUnknownError extends Error {
  constructor(
    tableId: string,
    override readonly cause: unknown,
  ) {
    super(
      `The store did not say whether the change of table ${tableId} was written: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.name = 'WriteOutcomeUnknownError';
  }
}

/**
 * A read the engine makes before it writes anything failed (Postgres away): nothing was written, so
 * the intent can be refused as not applied, and tried again (UNAVAILABLE), not INTERNAL.
 */
export class StoreUnavailableError extends Error {
  constructor(
    tableId: string,
    override readonly cause: unknown,
  ) {
    super(
      `The store did not answer a read of table ${tableId}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.name = 'StoreUnavailableError';
  }
}

/** The host has as many open tables as MAX_OPEN_TABLES_PER_HOST allows: the new one is not stored. */
export class TooManyTablesError extends Error {
  constructor(
    readonly open: number,
    readonly limit: number,
  ) {
    super(
      `You have ${open} open tables, the most one host may have (${limit}): finish one or let it close first.`,
    );
    this.name = 'TooManyTablesError';
  }
}

/** The intent's expiry passed before it could be stored: nothing was written. */
export class IntentExpiredError extends Error {
  constructor(readonly intentId: string) {
    super(`Intent ${intentId} expired before it was stored.`);
    this.name = 'IntentExpiredError';
  }
}

export class DuplicateIntentError extends Error {
  constructor(intentId: string) {
    super(`Intent ${intentId} was stored already.`);
    this.name = 'DuplicateIntentError';
  }
}

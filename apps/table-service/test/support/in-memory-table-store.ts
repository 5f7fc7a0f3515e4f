import { OPEN_STATUSES } from '@dominoes/platform';
import type { TableEvent } from '../../src/table/table-events';
import {
  DuplicateIntentError,
  IntentExpiredError,
  StaleWriteError,
  TooManyTablesError,
  type TableRepository,
} from '../../src/table/table-ports';
import type { TableState } from '../../src/table/table-state';

/** One change offered to the store: what the engine asked to write, before the store decides. */
export interface OfferedChange {
  readonly tableId: string;
  readonly fromVersion: number;
  readonly after: TableState;
  readonly events: readonly TableEvent[];
  readonly intentId: string | null;
}

/**
 * An in-memory TableRepository, for the engine's own tests only (the service stores in Postgres:
 * table-store.ts, tested on a real Postgres in table-store.test.ts). It keeps the contract the engine
 * relies on: a change is fenced on its version and on its expiry, an intent id is stored at most once
 * per table, and a refused change stores nothing. `beforeWrite` lets a test step in before each
 * change is decided on: delay it, fail it (a store that is down), or write first (another replica).
 */
export class InMemoryTableStore implements TableRepository {
  private readonly tables = new Map<string, TableState>();
  private readonly intents = new Map<string, Set<string>>();
  /** Every change offered, in the order the engine offered them (refused ones included). */
  readonly offered: OfferedChange[] = [];
  /** The changes stored, in order. */
  readonly stored: OfferedChange[] = [];
  beforeWrite: (change: OfferedChange) => Promise<void> | void = () => undefined;

  constructor(private readonly now: () => number = Date.now) {}

  async load(tableId: string): Promise<TableState | null> {
    return this.tables.get(tableId) ?? null;
  }

  readonly create: TableRepository['create'] = async (table, events, intentId, limits) => {
    if (this.tables.has(table.id)) return null;
    const open = table.hostPlayerId === null ? 0 : await this.openTablesOf(table.hostPlayerId);
    if (open >= limits.maxOpenTablesPerHost) throw new TooManyTablesError(open, limits.maxOpenTablesPerHost);
    const empty: TableState = { ...table, version: 0, recentIntents: [] };
    this.tables.set(table.id, empty);
    const after: TableState = { ...table, recentIntents: intentId ? [intentId] : [] };
    await this.append(empty, after, events, intentId);
    return { ...after, version: events.length };
  };

  readonly append: TableRepository['append'] = async (before, after, events, intentId, expiresAt) => {
    const change: OfferedChange = { tableId: after.id, fromVersion: before.version, after, events, intentId };
    this.offered.push(change);
    await this.beforeWrite(change);
    const current = this.tables.get(after.id);
    if (expiresAt !== undefined && this.now() >= expiresAt) throw new IntentExpiredError(intentId ?? '');
    if (!current || current.version !== before.version) throw new StaleWriteError(after.id, before.version);
    const seen = this.intents.get(after.id) ?? new Set<string>();
    if (intentId !== null && seen.has(intentId)) throw new DuplicateIntentError(intentId);
    if (intentId !== null) seen.add(intentId);
    this.intents.set(after.id, seen);
    this.tables.set(after.id, { ...after, version: before.version + events.length });
    this.stored.push(change);
  };

  async openTablesOf(hostPlayerId: string): Promise<number> {
    const open: readonly string[] = OPEN_STATUSES;
    return [...this.tables.values()].filter((t) => t.hostPlayerId === hostPlayerId && open.includes(t.status))
      .length;
  }
}

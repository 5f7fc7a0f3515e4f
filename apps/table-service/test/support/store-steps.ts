import { createSeededRng, RULE_DURATIONS } from '@dominoes/rules';
import type { IntentEnvelope } from '@dominoes/protocol';
import { decide, openTable } from '../../src/table/table-policy';
import { TooManyTablesError } from '../../src/table/table-ports';
import type { TableStore } from '../../src/table/table-store';
import type { TableState } from '../../src/table/table-state';

/*
 * The store suites' steps, as the engine takes them but without it: open a table through the store,
 * and decide one intent on the stored table and store its change.
 */

/** Opens table `id` for `host` (a 2-seat, one-round draw game, a 60 s wait) through `store`. */
export function openDrawFor(store: TableStore, host: string, id: string, maxOpen: number) {
  const opened = openTable(id, { id: host, name: 'h' }, { variant: 'draw', seats: 2, oneRound: true }, null, {
    now: 0,
    waitingTableTtlMs: 60_000,
  });
  if (!opened.ok) throw new Error(opened.message);
  return store.create(opened.table, opened.events, `${id}:create`, { maxOpenTablesPerHost: maxOpen });
}

/** Decides one intent on the stored table `id` at `now` and stores the change; the table read back. */
export async function applyStored(
  store: TableStore,
  id: string,
  envelope: Omit<IntentEnvelope, 'tableId'>,
  now = 0,
): Promise<TableState> {
  const table = (await store.load(id)) as TableState;
  const decision = decide(
    table,
    { ...envelope, tableId: id },
    { now, rng: createSeededRng(1), durations: RULE_DURATIONS },
  );
  if (!decision.ok) throw new Error(decision.message);
  await store.append(table, decision.table, decision.events, envelope.intentId);
  return (await store.load(id)) as TableState;
}

/** The firing of table `t`'s deadline (the `n`-th of a test, for a distinct intent id). */
export const deadlineOf = (t: TableState, n: number): Omit<IntentEnvelope, 'tableId'> => ({
  intentId: `deadline:${t.deadline!.key}:${n}`,
  player: null,
  connectionId: null,
  replyTo: null,
  sentAt: 0,
  intent: { kind: 'deadline', key: t.deadline!.key, dueAt: t.deadline!.at },
});

/**
 * Opens every table of `ids` for `host` at once, the i-th through `stores[i % stores.length]` (as
 * replicas would); each outcome is 'stored', 'refused' (TooManyTablesError) or the error's text.
 */
export function openAtOnce(
  stores: readonly TableStore[],
  host: string,
  ids: readonly string[],
  maxOpen: number,
): Promise<string[]> {
  return Promise.all(
    ids.map((id, i) =>
      openDrawFor(stores[i % stores.length]!, host, id, maxOpen).then(
        () => 'stored',
        (error: unknown) => (error instanceof TooManyTablesError ? 'refused' : String(error)),
      ),
    ),
  );
}

import type { StoredStateChange } from '@dominoes/platform';
import { applyViewChange, viewChangeOf, type ViewChange } from '@dominoes/protocol';
import type { TableState } from './table-state';

/*
 * How a change's state is stored (issue 14, decision 0040). Rewriting the whole snapshot (~6 KB of
 * JSON) on every move cost a JSON.stringify in the table-service and, in Postgres, the snapshot's
 * check, compression and a new ~2 KB row version. A move of a playing table now stores only its state
 * change, on its last log row: the operations (libs/protocol's change operations, as for views) that
 * turn the state before it into the state after it. Loading applies the changes stored since the
 * snapshot, in order. The snapshot is written whole again once every SNAPSHOT_EVERY versions, and on
 * every change that touches the seats (the chat's seat check reads them from it), that leaves or
 * enters play (the archive keeps finished and closed tables' snapshots), or that has no event to carry
 * the change.
 */

/** The snapshot is written whole at least once in every this many versions. */
export const SNAPSHOT_EVERY = 32;

/** What a change stores of the state: the whole snapshot (JSON text), or its state change. */
export type StoredState =
  | { readonly whole: string; readonly change: null }
  | { readonly whole: null; readonly change: StoredStateChange };

/** The state's keys kept outside the snapshot: the row's version, and the log's intent ids (decision 0022). */
const OUTSIDE_SNAPSHOT = new Set(['version', 'recentIntents']);

const pathOf = (op: ViewChange[number]): readonly string[] =>
  'set' in op ? op.set : 'push' in op ? op.push : op.unset;

const wholeSnapshot = (after: TableState, version: number): StoredState => ({
  // JSON.stringify leaves out a key whose value is undefined.
  whole: JSON.stringify({ ...after, version, recentIntents: undefined }),
  change: null,
});

/** What the change from `before` to `after` (stored at `version`, with `events` log rows) stores. */
export function storedState(
  before: TableState,
  after: TableState,
  version: number,
  events: number,
): StoredState {
  if (
    events === 0 ||
    before.status !== 'playing' ||
    after.status !== 'playing' ||
    Math.floor(version / SNAPSHOT_EVERY) !== Math.floor(before.version / SNAPSHOT_EVERY)
  )
    return wholeSnapshot(after, version);
  const ops: ViewChange = [];
  for (const op of viewChangeOf(before, after)) {
    const key = pathOf(op)[0];
    if (key === 'seats') return wholeSnapshot(after, version);
    if (!OUTSIDE_SNAPSHOT.has(key!)) ops.push(op);
  }
  return { whole: null, change: { from: before.version, to: version, ops } };
}

/** The stored state changes do not lead from the snapshot to the table's version. */
export class StoredStateGapError extends Error {
  constructor(tableId: string, at: number, expected: number) {
    super(`Table ${tableId}: its stored state changes stop at version ${at}, not ${expected}.`);
    this.name = 'StoredStateGapError';
  }
}

/**
 * The table's state at `version`: the snapshot at `snapshotVersion` with `changes` applied in order
 * (each must start where the one before it ended). Throws StoredStateGapError when they do not reach
 * `version` (never stored so: a change and its log rows are one statement).
 */
export function restoredState(
  tableId: string,
  snapshot: unknown,
  snapshotVersion: number,
  version: number,
  changes: readonly StoredStateChange[],
): unknown {
  let state = snapshot;
  let at = snapshotVersion;
  for (const change of changes) {
    if (Number(change.from) !== at) throw new StoredStateGapError(tableId, at, version);
    state = applyViewChange(state, change.ops as ViewChange);
    at = Number(change.to);
  }
  if (at !== version) throw new StoredStateGapError(tableId, at, version);
  return state;
}

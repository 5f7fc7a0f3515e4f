import fc from 'fast-check';
import { createSeededRng } from '@dominoes/rules';
import type { StoredStateChange } from '@dominoes/platform';
import {
  restoredState,
  SNAPSHOT_EVERY,
  StoredStateGapError,
  storedState,
  type StoredState,
} from '../src/table/stored-state';
import type { TableState } from '../src/table/table-state';
import { playByDeadlines } from './support/policy-play';

/*
 * Decision 0040: a move of a playing table stores its state change, not the whole snapshot, and load
 * applies the changes since the snapshot. What load rebuilds must be, key for key, what was decided.
 */

/** A state as the snapshot holds it, through JSON (the version is the row's, the intent ids the log's). */
const asStored = (t: TableState): unknown =>
  JSON.parse(JSON.stringify({ ...t, version: 0, recentIntents: undefined }));

/** Through JSON, as the change goes to Postgres and comes back. */
const throughJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const variants = [
  { variant: 'partnership' as const, players: ['a', 'b', 'c'] },
  { variant: 'draw' as const, seats: 2, players: ['a'] },
  { variant: 'five-tile' as const, seats: 2, players: ['a'] },
];

/** Every stored step of a table played by its deadlines: the state before, after, and what is stored. */
function storedSteps(seed: number, which: number, steps: number) {
  const { players, ...config } = variants[which]!;
  const played = playByDeadlines(
    { ...config, target: 100 },
    players,
    (t) => t.status === 'finished',
    createSeededRng(seed),
  );
  const states = played.states.slice(0, steps);
  return states.slice(1).map((after, i) => {
    const before = states[i]!;
    return {
      before,
      after,
      stored: storedState(before, after, after.version, after.version - before.version),
    };
  });
}

describe('stored state: a snapshot, then changes (decision 0040)', () => {
  it('any table played to its end loads, after every change, as it was decided: the last whole snapshot with the changes since applied in order (all three rule sets)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 2 }), (seed, which) => {
        let snapshot: unknown = null;
        let snapshotVersion = -1;
        let changes: StoredStateChange[] = [];
        for (const { after, stored } of storedSteps(seed, which, 400)) {
          if (stored.whole !== null) {
            snapshot = { ...(JSON.parse(stored.whole) as object), version: 0 };
            snapshotVersion = after.version;
            changes = [];
          } else {
            changes.push(throughJson(stored.change));
          }
          if (snapshotVersion < 0) continue;
          const restored = restoredState('T', snapshot, snapshotVersion, after.version, changes);
          expect(restored).toEqual(asStored(after));
        }
      }),
      { numRuns: 25 },
    );
  });

  it(`the whole snapshot is written at least once every ${SNAPSHOT_EVERY} versions, and on every change of the seats, of the status, or out of play; moves in between store only their change`, () => {
    const steps = storedSteps(7, 0, 2000);
    let moves = 0;
    let changesOnly = 0;
    let changeBytes = 0;
    let sparedBytes = 0;
    let lastWhole = 0;
    for (const { before, after, stored } of steps) {
      const whole = stored.whole !== null;
      if (whole) lastWhole = after.version;
      expect(after.version - lastWhole).toBeLessThan(SNAPSHOT_EVERY);
      if (JSON.stringify(before.seats) !== JSON.stringify(after.seats)) expect(whole).toBe(true);
      if (before.status !== 'playing' || after.status !== 'playing') expect(whole).toBe(true);
      if (before.status === 'playing' && after.status === 'playing') moves += 1;
      if (!whole) {
        changesOnly += 1;
        expect(stored.change).toMatchObject({ from: before.version, to: after.version });
        changeBytes += JSON.stringify(stored.change).length;
        sparedBytes += JSON.stringify({ ...after, recentIntents: undefined }).length;
      }
    }
    expect(moves).toBeGreaterThan(50);
    expect(changesOnly / moves).toBeGreaterThan(0.8);
    // The changes written instead of snapshots are a fraction of what the snapshots would have been.
    expect(changeBytes).toBeLessThan(sparedBytes / 2);
  });

  it('changes that do not lead from the snapshot to the version are refused (StoredStateGapError), never applied over a gap', () => {
    const [first, second] = storedSteps(3, 0, 400)
      .filter((s) => s.stored.whole === null)
      .map((s) => (s.stored as Extract<StoredState, { whole: null }>).change);
    const snapshot = { any: 'thing' };
    // The first change does not start at the snapshot's version.
    expect(() => restoredState('T', snapshot, first!.from - 1, first!.to, [first!])).toThrow(
      StoredStateGapError,
    );
    // The changes stop short of the table's version.
    expect(() => restoredState('T', snapshot, 10, 12, [])).toThrow(StoredStateGapError);
    // A change missing in the middle.
    if (second && second.from !== first!.to)
      expect(() => restoredState('T', snapshot, first!.from, second.to, [second])).toThrow(
        StoredStateGapError,
      );
    // No changes, the snapshot at the version: the snapshot itself.
    expect(restoredState('T', snapshot, 12, 12, [])).toBe(snapshot);
  });
});

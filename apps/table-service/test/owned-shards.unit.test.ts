import { shardOf } from '@dominoes/protocol';
import { OwnedShards } from '../src/shards/owned-shards';

const SHARDS = 4;
/** The first table code (T0000, T0001, ...) of each shard of SHARDS, in shard order. */
const tableOfEachShard = (): string[] => {
  const ids: string[] = [];
  for (let n = 0; ids.filter(Boolean).length < SHARDS; n++) {
    const id = `T${String(n).padStart(4, '0')}`;
    ids[shardOf(id, SHARDS)] ??= id;
  }
  return ids;
};

/** The shards this replica holds, as the deadline, presence and metrics code asks about them. */
describe('OwnedShards', () => {
  const tables = tableOfEachShard();

  it('owns a table only while its shard is acquired and not lost since; counts the shards held', () => {
    const owned = new OwnedShards(SHARDS);
    expect(owned.size).toBe(0);
    expect(tables.map((id) => owned.owns(id))).toEqual([false, false, false, false]);
    owned.acquired(1);
    owned.acquired(3);
    owned.acquired(3);
    expect(owned.size).toBe(2);
    expect(tables.map((id) => owned.owns(id))).toEqual([false, true, false, true]);
    owned.lost(3);
    owned.lost(2);
    expect(owned.size).toBe(1);
    expect(tables.map((id) => owned.owns(id))).toEqual([false, true, false, false]);
  });

  it("reads a table's shard with its own shard count", () => {
    const id = tables.find((t) => shardOf(t, 2) !== shardOf(t, SHARDS))!;
    const owned = new OwnedShards(SHARDS);
    owned.acquired(shardOf(id, SHARDS));
    expect(owned.owns(id)).toBe(true);
    const halves = new OwnedShards(2);
    halves.acquired(shardOf(id, SHARDS));
    expect(halves.owns(id)).toBe(false);
  });

  it("tablesOf(shard) picks exactly that shard's tables (to forget them when it is lost)", () => {
    const ofTwo = OwnedShards.tablesOf(2, SHARDS);
    expect(tables.map(ofTwo)).toEqual([false, false, true, false]);
  });
});

import { shardOf } from '@dominoes/protocol';

/**
 * The shards this replica holds the lease of, as the shard transport reports them (acquired, lost).
 * What asks "is this table mine?" (the deadline sweep, the presence sweep, the metrics) reads this,
 * not the transport, so that none of them needs the transport to exist first.
 */
export class OwnedShards {
  private readonly owned = new Set<number>();

  constructor(private readonly shards: number) {}

  acquired(shard: number): void {
    this.owned.add(shard);
  }

  lost(shard: number): void {
    this.owned.delete(shard);
  }

  get size(): number {
    return this.owned.size;
  }

  /** Whether the table's shard is this replica's now. */
  owns(tableId: string): boolean {
    return this.owned.has(shardOf(tableId, this.shards));
  }

  /** The predicate of the tables of one shard (to forget them when the shard is lost). */
  static tablesOf(shard: number, shards: number): (tableId: string) => boolean {
    return (tableId) => shardOf(tableId, shards) === shard;
  }
}

import type { Redis } from '@dominoes/platform';
import { MAX_WATCHERS_PER_TABLE, shardOf, type RedisNames } from '@dominoes/protocol';

/** One watching socket: the table it watches and its player. */
export interface Watching {
  readonly tableId: string;
  readonly playerId: string;
}

export type WatchOutcome =
  { ok: true; changed: boolean; left: string | null } | { ok: false; code: 'TOO_MANY_WATCHERS' };

/**
 * Who watches the tables of this replica's shards (decision 0018). The replica that owns a table's
 * shard applies its watch intents, so it is the one place that knows its watchers; it keeps them in
 * memory (the engine asks `count` at every publish: a table nobody watches costs one Map lookup) and
 * in one Redis hash per shard (names.shardWatchers), so that the next owner of the shard reads them
 * back when it takes it (`shardAcquired`).
 */
export class TableWatchers {
  private readonly byConnection = new Map<string, Watching>();
  /** Each watched table's players, each with its number of watching sockets. */
  private readonly byTable = new Map<string, Map<string, number>>();

  constructor(
    /** A Redis (or a cluster: every key of a shard has its tag). */
    private readonly redis: Pick<Redis, 'hset' | 'hdel' | 'hgetall'>,
    private readonly names: RedisNames,
    private readonly shards: number,
    private readonly maxPerTable = MAX_WATCHERS_PER_TABLE,
  ) {}

  /** How many players watch the table. */
  count(tableId: string): number {
    return this.byTable.get(tableId)?.size ?? 0;
  }

  /** The table the connection watches, if any. */
  watching(connectionId: string): Watching | undefined {
    return this.byConnection.get(connectionId);
  }

  /** Every watching connection (for the stale-connection sweep). */
  connections(): IterableIterator<[string, Watching]> {
    return this.byConnection.entries();
  }

  /**
   * The connection watches `tableId` now; `left` is the table it watched before, if another. A
   * connection already watching that table changes nothing; a table at the limit takes no more
   * players (a player's further sockets still count as one).
   */
  async add(connectionId: string, watching: Watching): Promise<WatchOutcome> {
    const before = this.byConnection.get(connectionId);
    if (before?.tableId === watching.tableId && before.playerId === watching.playerId)
      return { ok: true, changed: false, left: null };
    const players = this.byTable.get(watching.tableId);
    if (!players?.has(watching.playerId) && (players?.size ?? 0) >= this.maxPerTable)
      return { ok: false, code: 'TOO_MANY_WATCHERS' };
    const left = before ? this.forget(connectionId) : null;
    this.remember(connectionId, watching);
    // Two commands, not one pipeline: on a cluster the two shards' hashes may be on two nodes.
    await Promise.all([
      before ? this.redis.hdel(this.names.shardWatchers(this.shardOf(before.tableId)), connectionId) : null,
      this.redis.hset(
        this.names.shardWatchers(this.shardOf(watching.tableId)),
        connectionId,
        JSON.stringify(watching),
      ),
    ]);
    return { ok: true, changed: true, left: left !== null && left !== watching.tableId ? left : null };
  }

  /** The connection watches nothing now; resolves to the table it watched (null: none). */
  async remove(connectionId: string): Promise<string | null> {
    const tableId = this.forget(connectionId);
    if (tableId !== null)
      await this.redis.hdel(this.names.shardWatchers(this.shardOf(tableId)), connectionId);
    return tableId;
  }

  /** This replica took the shard: its watchers, as the last owner left them, are read back. */
  async shardAcquired(shard: number): Promise<void> {
    const stored = await this.redis.hgetall(this.names.shardWatchers(shard));
    for (const [connectionId, json] of Object.entries(stored)) {
      const watching = parseWatching(json);
      if (watching && this.shardOf(watching.tableId) === shard && !this.byConnection.has(connectionId))
        this.remember(connectionId, watching);
    }
  }

  /** This replica lost the shard: it forgets its watchers (the hash stays, for the next owner). */
  shardLost(shard: number): void {
    for (const [connectionId, watching] of [...this.byConnection])
      if (this.shardOf(watching.tableId) === shard) this.forget(connectionId);
  }

  private shardOf(tableId: string): number {
    return shardOf(tableId, this.shards);
  }

  private remember(connectionId: string, watching: Watching): void {
    this.byConnection.set(connectionId, watching);
    const players = this.byTable.get(watching.tableId) ?? new Map<string, number>();
    players.set(watching.playerId, (players.get(watching.playerId) ?? 0) + 1);
    this.byTable.set(watching.tableId, players);
  }

  private forget(connectionId: string): string | null {
    const watching = this.byConnection.get(connectionId);
    if (!watching) return null;
    this.byConnection.delete(connectionId);
    const players = this.byTable.get(watching.tableId);
    if (players) {
      const sockets = (players.get(watching.playerId) ?? 1) - 1;
      if (sockets > 0) players.set(watching.playerId, sockets);
      else players.delete(watching.playerId);
      if (players.size === 0) this.byTable.delete(watching.tableId);
    }
    return watching.tableId;
  }
}

function parseWatching(json: string): Watching | null {
  try {
    const value = JSON.parse(json) as Partial<Watching>;
    return typeof value.tableId === 'string' && typeof value.playerId === 'string'
      ? { tableId: value.tableId, playerId: value.playerId }
      : null;
  } catch {
    return null;
  }
}

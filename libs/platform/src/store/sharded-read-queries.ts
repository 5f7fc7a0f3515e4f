import type { ShardDatabases } from '../shard-databases';
import {
  LobbyQueries,
  rankedCandidatesOn,
  type LobbyRow,
  type QuickPlayConfig,
  type QuickPlaySearch,
} from './lobby-queries';
import {
  MatchHistoryQueries,
  type MatchLogRow,
  type MatchSchema,
  type PlayerMatchRow,
} from './match-history-queries';
import { ascending, byEach, descending, mergeSorted, sum } from './merge';
import type { SqlClient } from './table-queries';

/*
 * The gateway's list reads over Postgres split by shard (decision 0027): a list asks every database
 * at once for the whole page and merges the rows in the single query's order and limit (merge.ts); a
 * read of one table goes to its database. With one database each call is the one query of before.
 */

const oldestFirst = ascending<LobbyRow>((row) => row.openedAt);
const newestFirst = descending<LobbyRow>((row) => row.openedAt);

/**
 * Each database's answer to `query`, leaving out the non-home databases that fail (their tables
 * cannot be joined while they are down, and the rest of the lobby must not go with them); the home
 * database's failure fails the whole read, as with one database.
 */
async function answeringDatabases<Q, T>(
  each: readonly Q[],
  query: (queries: Q, index: number) => Promise<T>,
  onLeftOut: (index: number, error: unknown) => void,
): Promise<T[]> {
  const settled = await Promise.allSettled(each.map((queries, index) => query(queries, index)));
  return settled.flatMap((result, index) => {
    if (result.status === 'fulfilled') return [result.value];
    if (index === 0) throw result.reason;
    onLeftOut(index, result.reason);
    return [];
  });
}

/** LobbyQueries over every database. */
export class ShardedLobbyQueries {
  readonly each: readonly LobbyQueries[];

  /**
   * `onLeftOut`: told of each non-home database left out of a lobby list or a quick-play search
   * because it did not answer (the gateway logs it).
   */
  constructor(
    readonly databases: ShardDatabases,
    private readonly onLeftOut: (database: number, error: unknown) => void = () => undefined,
  ) {
    this.each = databases.all.map((prisma) => new LobbyQueries(prisma));
  }

  private answering<T>(query: (queries: LobbyQueries, index: number) => Promise<T>): Promise<T[]> {
    return answeringDatabases(this.each, query, this.onLeftOut);
  }

  private get single(): LobbyQueries | null {
    return this.each.length === 1 ? this.each[0]! : null;
  }

  /** Waiting tables oldest first, then playing ones newest first, each part capped, over every database. */
  async publicTables(waiting: number, playing: number): Promise<LobbyRow[]> {
    if (this.single) return this.single.publicTables(waiting, playing);
    const lists = await this.answering((queries) => queries.publicTables(waiting, playing));
    const part = (status: string) => lists.map((rows) => rows.filter((row) => row.status === status));
    return [
      ...mergeSorted(part('waiting'), oldestFirst, waiting),
      ...mergeSorted(part('playing'), newestFirst, playing),
    ];
  }

  async publicCounts(): Promise<{ waiting: number; playing: number }> {
    if (this.single) return this.single.publicCounts();
    const counts = await this.answering((queries) => queries.publicCounts());
    return { waiting: sum(counts.map((c) => c.waiting)), playing: sum(counts.map((c) => c.playing)) };
  }

  /** The open tables `playerId` sits at, newest first, over every database. */
  async tablesOf(playerId: string, limit: number): Promise<LobbyRow[]> {
    if (this.single) return this.single.tablesOf(playerId, limit);
    const lists = await this.answering((queries) => queries.tablesOf(playerId, limit));
    return mergeSorted(lists, newestFirst, limit);
  }

  /**
   * Quick play under its configuration's lock, which stays in the home database (one lock for every
   * gateway); the search asks every database for its best candidates (the home one on the
   * transaction's connection) and ranks them as the one query would: the player's own table first,
   * then the oldest. A non-home database that does not answer is left out of the search.
   */
  withQuickPlayLock<T>(
    config: QuickPlayConfig,
    work: (search: QuickPlaySearch) => Promise<T>,
    timeoutMs: number,
  ): Promise<T> {
    if (this.single) return this.single.withQuickPlayLock(config, work, timeoutMs);
    return this.each[0]!.lockQuickPlay(
      config,
      (home) =>
        work({
          candidates: async (playerId, limit) => {
            const client = (index: number): SqlClient => (index === 0 ? home : this.databases.all[index]!);
            const lists = await this.answering((_, index) =>
              rankedCandidatesOn(client(index), config, playerId, limit),
            );
            const ranked = mergeSorted(
              lists,
              byEach(
                descending((row) => (row.mine ? 1 : 0)),
                ascending((row) => row.openedAt),
              ),
              limit,
            );
            return ranked.map((row) => row.id);
          },
        }),
      timeoutMs,
    );
  }
}

/** A player's matches as MATCHES_OF_SQL orders them: newest first, then table id, then number down. */
const matchOrder = byEach<PlayerMatchRow>(
  descending((row) => row.startedAt.getTime()),
  ascending((row) => row.tableId),
  descending((row) => row.number),
);

/** MatchHistoryQueries over every database: a player's list merged, a match read in its table's. */
export class ShardedMatchHistoryQueries {
  readonly each: readonly MatchHistoryQueries[];

  constructor(readonly databases: ShardDatabases) {
    this.each = databases.all.map((prisma) => new MatchHistoryQueries(prisma));
  }

  /**
   * Up to `limit` of the player's matches from the `offset`-th, newest first: each database gives its
   * first `offset + limit`, and the merged list is cut as the one query's LIMIT/OFFSET would.
   */
  async matchesOf(playerId: string, limit: number, offset: number): Promise<PlayerMatchRow[]> {
    if (this.each.length === 1) return this.each[0]!.matchesOf(playerId, limit, offset);
    const lists = await Promise.all(
      this.each.map((queries) => queries.matchesOf(playerId, offset + limit, 0)),
    );
    return mergeSorted(lists, matchOrder, offset + limit).slice(offset);
  }

  match(tableId: string, number: number): Promise<PlayerMatchRow | null> {
    return this.of(tableId).match(tableId, number);
  }

  matchLog(schema: MatchSchema, tableId: string, number: number): Promise<MatchLogRow[]> {
    return this.of(tableId).matchLog(schema, tableId, number);
  }

  private of(tableId: string): MatchHistoryQueries {
    return this.each[this.databases.indexOfTable(tableId)]!;
  }
}

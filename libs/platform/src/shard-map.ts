/*
 * Postgres split by shard (decision 0027): each table shard's tables live in one of N Postgres
 * databases. DATABASE_URLS lists the databases (database 0 first: the home database, which also
 * holds what belongs to no table: players, the host and quick-play locks); DATABASE_SHARD_MAP says
 * which database each shard is in, as ranges of shards: `0-7:0,8-15:1`. Unset, the shards are split
 * into N contiguous ranges of (nearly) equal size, so one database holds every shard, as before.
 */

/** The database of every shard (index = shard), and the databases' URLs. */
export interface ShardMap {
  readonly databaseUrls: readonly string[];
  /** `databaseOfShard[s]`: the index in databaseUrls of shard s's database. */
  readonly databaseOfShard: readonly number[];
}

/** Shard `s` of `shards` in `databases` contiguous ranges of nearly equal size. */
export function evenDatabaseOf(shard: number, shards: number, databases: number): number {
  return Math.floor((shard * databases) / shards);
}

/**
 * Reads DATABASE_SHARD_MAP (`from-to:database` or `shard:database`, comma-separated) for `shards`
 * shards over `databases` databases. Every shard must be named exactly once and every database
 * index must exist; the message of the Error names what is wrong. Undefined or empty: the even split.
 */
export function parseShardMap(spec: string | undefined, shards: number, databases: number): number[] {
  if (spec === undefined || spec.trim() === '')
    return Array.from({ length: shards }, (_, s) => evenDatabaseOf(s, shards, databases));
  const map: (number | undefined)[] = new Array<number | undefined>(shards).fill(undefined);
  for (const part of spec.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const match = /^(\d+)(?:-(\d+))?:(\d+)$/.exec(part);
    if (!match) throw new Error(`"${part}" is not from-to:database or shard:database`);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    const database = Number(match[3]);
    if (from > to) throw new Error(`"${part}": ${from} is after ${to}`);
    if (to >= shards) throw new Error(`"${part}": there are ${shards} shards (0-${shards - 1})`);
    if (database >= databases)
      throw new Error(`"${part}": there are ${databases} databases (0-${databases - 1})`);
    for (let s = from; s <= to; s++) {
      if (map[s] !== undefined) throw new Error(`shard ${s} is named twice`);
      map[s] = database;
    }
  }
  const missing = map.findIndex((d) => d === undefined);
  if (missing >= 0) throw new Error(`shard ${missing} is in no database`);
  return map as number[];
}

/** The map written back in DATABASE_SHARD_MAP's notation, ranges merged: what an operator pastes. */
export function formatShardMap(databaseOfShard: readonly number[]): string {
  const parts: string[] = [];
  let start = 0;
  for (let s = 1; s <= databaseOfShard.length; s++) {
    if (s < databaseOfShard.length && databaseOfShard[s] === databaseOfShard[start]) continue;
    const range = s - 1 === start ? `${start}` : `${start}-${s - 1}`;
    parts.push(`${range}:${databaseOfShard[start]}`);
    start = s;
  }
  return parts.join(',');
}

/** The shards whose tables are in database `database`. */
export function shardsOfDatabase(map: ShardMap, database: number): number[] {
  const shards: number[] = [];
  map.databaseOfShard.forEach((d, s) => {
    if (d === database) shards.push(s);
  });
  return shards;
}

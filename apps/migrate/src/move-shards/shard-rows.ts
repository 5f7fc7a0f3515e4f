import type { Client } from 'pg';
import { qualified, sqlName, type Relation } from './relations';

/*
 * The rows of a shard range, found through the tables' own rows: a table's shard is route_hash(id)
 * mod TABLE_SHARDS (migration 20261201150000_shard_route_hash: libs/protocol's shardOf, computed by
 * Postgres), read from game_tables, hot and archived; every other relation's rows are found by their
 * table_id among those ids, through the primary keys that lead with it. Every such row has its
 * table's game_tables row: in the hot tables by foreign key, in the archive because archive_table()
 * moves a table with all its rows in one transaction.
 */

/** Rows per relation in one statement of the copy: the tables of one batch at a time. */
export const TABLES_PER_BATCH = 200;

const isTableRow = (r: Relation): boolean => r.key === 'id';
/** The stored route_hash of public.game_tables; computed for the archive's rows (their table predates it). */
const routeHashOf = (r: Relation): string =>
  r.columns.some((c) => c.startsWith('route_hash ')) ? 'route_hash' : `route_hash("${r.key}")`;

/** The ids of every table, hot or archived, whose shard of `total` is one of `shards`: sorted. */
export async function tableIdsOf(
  db: Client,
  relations: readonly Relation[],
  shards: readonly number[],
  total: number,
): Promise<string[]> {
  const ids = new Set<string>();
  for (const r of relations.filter(isTableRow)) {
    const rows = await db.query<{ id: string }>(
      `SELECT "${r.key}" AS id FROM ${sqlName(r)} WHERE (${routeHashOf(r)} % $1) = ANY($2::int[])`,
      [total, [...shards]],
    );
    for (const row of rows.rows) ids.add(row.id);
  }
  return [...ids].sort();
}

/** Rows of one relation and a digest of their whole text (order-free: the sum of each row's 64-bit hash). */
export interface RelationDigest {
  readonly relation: string;
  readonly rows: number;
  readonly digest: string;
}

/** Count and digest of the rows of tables `ids` in every relation; the sessions must share TimeZone/DateStyle. */
export async function digestsOf(
  db: Client,
  relations: readonly Relation[],
  ids: readonly string[],
): Promise<RelationDigest[]> {
  const digests: RelationDigest[] = [];
  for (const r of relations) {
    const row = await db.query<{ rows: string; digest: string }>(
      `SELECT count(*)::text AS rows,
              coalesce(sum(hashtextextended(t::text, 0)), 0)::text AS digest
         FROM ${sqlName(r)} t WHERE t."${r.key}" = ANY($1::text[])`,
      [[...ids]],
    );
    digests.push({ relation: qualified(r), rows: Number(row.rows[0]!.rows), digest: row.rows[0]!.digest });
  }
  return digests;
}

/** The relations whose digests differ between `a` and `b`, with both counts. */
export function differences(a: readonly RelationDigest[], b: readonly RelationDigest[]): string[] {
  return a
    .map((x) => ({ x, y: b.find((d) => d.relation === x.relation) }))
    .filter(({ x, y }) => !y || y.rows !== x.rows || y.digest !== x.digest)
    .map(({ x, y }) => `${x.relation} (${x.rows} rows, then ${y?.rows ?? 0})`);
}

/** How many rows of tables `ids`, or of tables of `shards`, each relation already holds (only those above 0). */
export async function rowsPresent(
  db: Client,
  relations: readonly Relation[],
  ids: readonly string[],
  shards: readonly number[],
  total: number,
): Promise<{ relation: string; rows: number }[]> {
  const present: { relation: string; rows: number }[] = [];
  for (const r of relations) {
    const shardClause = isTableRow(r) ? ` OR (${routeHashOf(r)} % $2) = ANY($3::int[])` : '';
    const params = isTableRow(r) ? [[...ids], total, [...shards]] : [[...ids]];
    const row = await db.query<{ rows: string }>(
      `SELECT count(*)::text AS rows FROM ${sqlName(r)} WHERE "${r.key}" = ANY($1::text[])${shardClause}`,
      params,
    );
    const rows = Number(row.rows[0]!.rows);
    if (rows > 0) present.push({ relation: qualified(r), rows });
  }
  return present;
}

/** Each table's version (hot or archived) among `ids`: what --delete-source compares. */
export async function versionsOf(
  db: Client,
  relations: readonly Relation[],
  ids: readonly string[],
): Promise<Map<string, bigint>> {
  const versions = new Map<string, bigint>();
  for (const r of relations.filter(isTableRow)) {
    const rows = await db.query<{ id: string; version: string }>(
      `SELECT "${r.key}" AS id, version::text AS version FROM ${sqlName(r)} WHERE "${r.key}" = ANY($1::text[])`,
      [[...ids]],
    );
    for (const row of rows.rows) versions.set(row.id, BigInt(row.version));
  }
  return versions;
}

/** `ids` in batches of `size`. */
export function batches<T>(ids: readonly T[], size = TABLES_PER_BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < ids.length; i += size) out.push(ids.slice(i, i + size));
  return out;
}

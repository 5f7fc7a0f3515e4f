import type { Client } from 'pg';
import { MoveRefusal } from './refusal';

/**
 * The relations that hold a table's rows, found in the database itself rather than listed here, so
 * a table added to the schema later moves with its shard without a change to this tool: every base
 * table of the `public` and `archive` schemas that has a `table_id` column, and `game_tables` (keyed
 * by `id`). A relation that is neither, and not one of the few known to belong to no table, stops
 * the tool: it cannot tell whether such a relation's rows should move.
 */
export interface Relation {
  readonly schema: string;
  readonly name: string;
  /** The column holding the table's id: `id` in game_tables, `table_id` elsewhere. */
  readonly key: string;
  /** "name type" of every column in order: source and target must agree exactly. */
  readonly columns: readonly string[];
  /** Relations (schema.name) this one has a foreign key to, other than itself. */
  readonly parents: readonly string[];
}

export const SCHEMAS = ['public', 'archive'] as const;

/** What belongs to no table: the players (home database) and the migrations' own record. */
export const NOT_OF_A_TABLE = ['public.players', 'public._prisma_migrations'];

export const qualified = (r: Pick<Relation, 'schema' | 'name'>): string => `${r.schema}.${r.name}`;
/** The quoted name for SQL (names come from the catalog, not from the operator). */
export const sqlName = (r: Pick<Relation, 'schema' | 'name'>): string => `"${r.schema}"."${r.name}"`;

const COLUMNS_SQL = `
  SELECT c.table_schema AS schema, c.table_name AS name, c.column_name AS column, c.data_type AS type
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
   WHERE c.table_schema = ANY($1::text[]) AND t.table_type = 'BASE TABLE'
   ORDER BY c.table_schema, c.table_name, c.ordinal_position`;

const FOREIGN_KEYS_SQL = `
  SELECT cn.nspname || '.' || c.relname AS child, pn.nspname || '.' || p.relname AS parent
    FROM pg_constraint k
    JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace cn ON cn.oid = c.relnamespace
    JOIN pg_class p ON p.oid = k.confrelid JOIN pg_namespace pn ON pn.oid = p.relnamespace
   WHERE k.contype = 'f' AND cn.nspname = ANY($1::text[])`;

/** The table-keyed relations of a database, parents before children (the order rows can be inserted in). */
export async function tableRelations(db: Client): Promise<Relation[]> {
  const columns = (
    await db.query<{ schema: string; name: string; column: string; type: string }>(COLUMNS_SQL, [SCHEMAS])
  ).rows;
  const keys = (await db.query<{ child: string; parent: string }>(FOREIGN_KEYS_SQL, [SCHEMAS])).rows;
  const byName = new Map<string, { schema: string; name: string; columns: string[] }>();
  for (const c of columns) {
    const name = `${c.schema}.${c.name}`;
    const entry = byName.get(name) ?? { schema: c.schema, name: c.name, columns: [] };
    entry.columns.push(`${c.column} ${c.type}`);
    byName.set(name, entry);
  }
  const relations: Relation[] = [];
  for (const [name, entry] of byName) {
    const has = (column: string) => entry.columns.some((c) => c.startsWith(`${column} `));
    const key = entry.name === 'game_tables' && has('id') ? 'id' : has('table_id') ? 'table_id' : null;
    if (key === null) {
      if (NOT_OF_A_TABLE.includes(name)) continue;
      throw new MoveRefusal(
        `${name} has no table_id column and is not known to belong to no table: the tool cannot tell whether its rows move with a shard (apps/migrate/src/move-shards/relations.ts)`,
      );
    }
    const parents = keys.filter((k) => k.child === name && k.parent !== name).map((k) => k.parent);
    relations.push({ ...entry, key, parents: [...new Set(parents)] });
  }
  return parentsFirst(relations);
}

function parentsFirst(relations: Relation[]): Relation[] {
  const placed: Relation[] = [];
  const left = [...relations].sort((a, b) => qualified(a).localeCompare(qualified(b)));
  while (left.length > 0) {
    const ready = left.findIndex((r) =>
      r.parents.every((p) => placed.some((q) => qualified(q) === p) || !left.some((l) => qualified(l) === p)),
    );
    if (ready < 0) throw new Error(`foreign keys in a cycle among ${left.map(qualified).join(', ')}`);
    placed.push(...left.splice(ready, 1));
  }
  return placed;
}

/** The names of the migrations recorded as finished in a database. */
export async function appliedMigrations(db: Client): Promise<string[]> {
  const exists = await db.query<{ present: boolean }>(
    `SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS present`,
  );
  if (!exists.rows[0]!.present) return [];
  const rows = await db.query<{ name: string }>(
    'SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY 1',
  );
  return rows.rows.map((r) => r.name);
}

/**
 * Refuses unless `target` is migrated exactly as `source` is: the same finished migrations and the
 * same columns in every table-keyed relation, so a row copied as it is means the same thing there.
 */
export async function checkSameSchema(
  source: Client,
  target: Client,
  targetName: string,
): Promise<Relation[]> {
  const [sourceMigrations, targetMigrations] = [
    await appliedMigrations(source),
    await appliedMigrations(target),
  ];
  const missing = sourceMigrations.filter((m) => !targetMigrations.includes(m));
  if (missing.length > 0)
    throw new MoveRefusal(
      `${targetName} is not migrated (${missing.length} migration(s) missing, first ${missing[0]}): run npm run migrate with the new DATABASE_URLS first`,
    );
  const extra = targetMigrations.filter((m) => !sourceMigrations.includes(m));
  if (extra.length > 0)
    throw new MoveRefusal(
      `${targetName} has migration(s) the source has not (first ${extra[0]}): migrate every database to the same version first`,
    );
  const [relations, targetRelations] = [await tableRelations(source), await tableRelations(target)];
  for (const r of relations) {
    const there = targetRelations.find((t) => qualified(t) === qualified(r));
    if (!there || there.columns.join(',') !== r.columns.join(','))
      throw new MoveRefusal(
        `${targetName}'s ${qualified(r)} does not have the source's columns: migrate it first`,
      );
  }
  return relations;
}

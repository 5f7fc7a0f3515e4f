import type { Client } from 'pg';
import { MoveRefusal } from './refusal';
import { qualified, sqlName, tableRelations, type Relation } from './relations';
import { batches, tableIdsOf, versionsOf } from './shard-rows';

export interface DeleteRequest {
  readonly shards: readonly number[];
  readonly range: string;
  readonly totalShards: number;
  readonly sourceName: string;
  readonly targetName: string;
}

export interface DeleteReport {
  readonly tables: number;
  readonly relations: readonly { relation: string; rows: number }[];
}

/** The enabled user triggers that fire on DELETE (the log's append-only ones), archive's first. */
async function deleteTriggers(
  db: Client,
  relations: readonly Relation[],
): Promise<{ relation: string; trigger: string }[]> {
  const rows = await db.query<{ relation: string; trigger: string }>(
    `SELECT '"' || n.nspname || '"."' || c.relname || '"' AS relation, t.tgname AS trigger
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE NOT t.tgisinternal AND t.tgenabled = 'O' AND (t.tgtype & 8) <> 0
        AND n.nspname || '.' || c.relname = ANY($1::text[])
      ORDER BY n.nspname = 'public', 1, 2`,
    [relations.map(qualified)],
  );
  return rows.rows;
}

/**
 * Deletes the tables of `shards` from their old database once the shard map puts them elsewhere:
 * only when `target` holds every one of them (hot or archived) at the same version or a later one
 * (the services have written it since the switch). Each batch of tables goes in one transaction of
 * the source that switches the log's append-only triggers off for its own deletes and on again
 * before it commits, so no other session ever sees them off (they wait for the batch instead: the
 * ALTER TABLE locks the log against writes until the commit; a batch is short). Run again after a
 * failure, it deletes what is left.
 */
export async function deleteSource(
  source: Client,
  target: Client,
  request: DeleteRequest,
): Promise<DeleteReport> {
  const relations = await tableRelations(source);
  const ids = await tableIdsOf(source, relations, request.shards, request.totalShards);
  const counts = new Map(relations.map((r) => [qualified(r), 0]));
  if (ids.length === 0)
    return { tables: 0, relations: [...counts].map(([relation, rows]) => ({ relation, rows })) };
  const [before, there] = [
    await versionsOf(source, relations, ids),
    await versionsOf(target, await tableRelations(target), ids),
  ];
  const missing = ids.filter((id) => !there.has(id));
  if (missing.length > 0)
    throw new MoveRefusal(
      `${request.targetName} lacks ${missing.length} of the ${ids.length} tables of shards ${request.range} on ${request.sourceName} (first ${missing[0]}): was the copy made, to this database?`,
    );
  const behind = ids.filter((id) => there.get(id)! < before.get(id)!);
  if (behind.length > 0)
    throw new MoveRefusal(
      `${request.targetName} holds ${behind.length} table(s) of shards ${request.range} at an older version than ${request.sourceName} (first ${behind[0]}): the source was written after the copy`,
    );
  const triggers = await deleteTriggers(source, relations);
  const childrenFirst = [...relations].reverse();
  for (const batch of batches(ids)) {
    await source.query('BEGIN');
    try {
      for (const t of triggers)
        await source.query(`ALTER TABLE ${t.relation} DISABLE TRIGGER "${t.trigger}"`);
      for (const r of childrenFirst) {
        const deleted = await source.query(`DELETE FROM ${sqlName(r)} WHERE "${r.key}" = ANY($1::text[])`, [
          batch,
        ]);
        counts.set(qualified(r), counts.get(qualified(r))! + (deleted.rowCount ?? 0));
      }
      for (const t of triggers) await source.query(`ALTER TABLE ${t.relation} ENABLE TRIGGER "${t.trigger}"`);
      await source.query('COMMIT');
    } catch (error) {
      await source.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }
  return { tables: ids.length, relations: [...counts].map(([relation, rows]) => ({ relation, rows })) };
}

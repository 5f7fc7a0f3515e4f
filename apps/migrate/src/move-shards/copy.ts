import type { Client } from 'pg';
import { MoveRefusal } from './refusal';
import { checkSameSchema, sqlName } from './relations';
import { batches, differences, digestsOf, rowsPresent, tableIdsOf, type RelationDigest } from './shard-rows';

export interface CopyRequest {
  readonly shards: readonly number[];
  readonly range: string;
  /** TABLE_SHARDS. */
  readonly totalShards: number;
  /** How the databases are named in messages ("database 1"). */
  readonly sourceName: string;
  readonly targetName: string;
  /** Runs once every row is inserted, before anything is checked (a test's writer goes here). */
  readonly afterInsert?: () => Promise<void>;
}

export interface CopyReport {
  readonly tables: number;
  /** Rows copied per relation, checked on both sides by count and digest. */
  readonly relations: readonly RelationDigest[];
}

/**
 * Copies every row of the tables of `shards` from `source` to `target`: the source read in one
 * REPEATABLE READ snapshot, the target written in one transaction, committed only when every
 * relation's row count and digest on the target equal the snapshot's and the source has not changed
 * since (no writer was left running). Refuses, changing nothing, when the target is not migrated as
 * the source is or already holds rows of those shards.
 */
export async function copyShards(source: Client, target: Client, request: CopyRequest): Promise<CopyReport> {
  const { shards, totalShards, sourceName, targetName } = request;
  const relations = await checkSameSchema(source, target, targetName);
  await source.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  await target.query('BEGIN');
  let committed = false;
  try {
    const ids = await tableIdsOf(source, relations, shards, totalShards);
    const present = await rowsPresent(target, relations, ids, shards, totalShards);
    if (present.length > 0)
      throw new MoveRefusal(
        `${targetName} already holds rows of shards ${request.range} (${present.map((p) => `${p.relation} ${p.rows}`).join(', ')}): the copy was made already, or the target is not the one meant`,
      );
    const snapshot = await digestsOf(source, relations, ids);
    for (const batch of batches(ids)) {
      for (const r of relations) {
        // Each row as its record text, cast back to the same row type on the target (the columns are the
        // same, checked above): values arrive exactly as they left, json text and bigints included. The
        // OFFSET 0 makes Postgres cast each row once, not once per column.
        const rows = await source.query<{ r: string }>(
          `SELECT t::text AS r FROM ${sqlName(r)} t WHERE t."${r.key}" = ANY($1::text[])`,
          [batch],
        );
        if (rows.rows.length === 0) continue;
        await target.query(
          `INSERT INTO ${sqlName(r)} SELECT (x).* FROM (SELECT r::${sqlName(r)} AS x FROM unnest($1::text[]) r OFFSET 0) s`,
          [rows.rows.map((row) => row.r)],
        );
      }
    }
    await request.afterInsert?.();
    const copied = await digestsOf(target, relations, ids);
    const wrong = differences(snapshot, copied);
    if (wrong.length > 0)
      throw new Error(`the copy on ${targetName} differs from the source: ${wrong.join(', ')}`);
    // A new snapshot of the source: anything written since the first one would be lost by the move.
    await source.query('COMMIT');
    const idsNow = await tableIdsOf(source, relations, shards, totalShards);
    const changed = differences(snapshot, await digestsOf(source, relations, idsNow));
    if (changed.length > 0 || idsNow.length !== ids.length)
      throw new Error(
        `shards ${request.range} were written on ${sourceName} during the copy (${[...changed, `${ids.length} tables, then ${idsNow.length}`].join(', ')}): stop every table-service first; nothing was copied`,
      );
    await target.query('COMMIT');
    committed = true;
    return { tables: ids.length, relations: snapshot };
  } finally {
    if (!committed) {
      await target.query('ROLLBACK').catch(() => undefined);
      await source.query('ROLLBACK').catch(() => undefined);
    }
  }
}

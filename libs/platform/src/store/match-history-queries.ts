import type { PrismaClient } from '../db';
import type { Match, TableAction } from '../generated/prisma/client';

/*
 * The schema's queries for "Looking back" (issue 12): a player's matches and one match's stored log,
 * hot or archived (retention moves finished tables to the `archive` schema, decision of issue 11, and
 * an archived match stays in its players' lists and replayable). Read-only; part of the one
 * data-access module (decision 0012), beside TableQueries.
 */

/** Where a match's rows are. */
export type MatchSchema = 'public' | 'archive';

/** A match row with its players' names by seat (null: no name is known for the seat). */
export interface PlayerMatchRow extends Pick<
  Match,
  | 'tableId'
  | 'number'
  | 'variant'
  | 'target'
  | 'oneRound'
  | 'winnerSide'
  | 'startedAt'
  | 'finishedAt'
  | 'abandonedAt'
> {
  /** Player ids by seat. */
  readonly seats: (string | null)[];
  readonly names: (string | null)[];
  readonly scores: number[] | null;
  readonly schema: MatchSchema;
}

/** One row of a match's log, as a replay reads it. */
export type MatchLogRow = Pick<TableAction, 'kind' | 'payload'>;

/** The most log rows one match's replay reads: far above any match's length (a match to 500 is ~2,000). */
export const MAX_MATCH_LOG_ROWS = 20_000;

/** The log kinds a replay reads. */
const REPLAY_KINDS = `'match-started', 'round-dealt', 'action', 'round-ended'`;

/**
 * The names of a match row `m`'s seats, in seat order: the seat's row now, else the last `seat-taken`
 * row of the log that seated that player (a player who left after the match), in `schema`.
 */
const namesOf = (schema: MatchSchema) => `(
  select coalesce(json_agg((
      select coalesce(
        (select ts.name from ${schema}.table_seats ts where ts.table_id = m.table_id and ts.player_id::text = s.pid),
        (select a.payload->>'name' from ${schema}.table_actions a
          where a.table_id = m.table_id and a.kind = 'seat-taken' and a.payload->>'playerId' = s.pid
          order by a.seq desc limit 1))
    ) order by s.ord), '[]')
    from jsonb_array_elements_text(m.seats) with ordinality as s(pid, ord))`;

const matchColumns = (schema: MatchSchema) => `
  '${schema}' as schema, m.table_id as "tableId", m.number, m.variant, m.target, m.one_round as "oneRound",
  m.seats, m.scores, m.winner_side as "winnerSide", m.started_at as "startedAt",
  m.finished_at as "finishedAt", m.abandoned_at as "abandonedAt", ${namesOf(schema)} as names`;

/** A player's matches, hot and archived, newest first; by matches_seats_idx (jsonb_path_ops) in each schema. */
const MATCHES_OF_SQL = `
  select * from (
    select ${matchColumns('public')} from public.matches m where m.seats @> jsonb_build_array($1::text)
    union all
    select ${matchColumns('archive')} from archive.matches m where m.seats @> jsonb_build_array($1::text)
  ) x
  order by x."startedAt" desc, x."tableId", x.number desc
  limit $2 offset $3`;

const MATCH_SQL = `
  select ${matchColumns('public')} from public.matches m where m.table_id = $1 and m.number = $2
  union all
  select ${matchColumns('archive')} from archive.matches m where m.table_id = $1 and m.number = $2`;

const logSql = (schema: MatchSchema) => `
  select kind, payload from ${schema}.table_actions
   where table_id = $1 and match_number = $2 and kind in (${REPLAY_KINDS})
   order by seq limit ${MAX_MATCH_LOG_ROWS}`;

export class MatchHistoryQueries {
  constructor(private readonly prisma: PrismaClient) {}

  /** Up to `limit` of player `playerId`'s matches from the `offset`-th, newest first. */
  matchesOf(playerId: string, limit: number, offset: number): Promise<PlayerMatchRow[]> {
    return this.prisma.$queryRawUnsafe<PlayerMatchRow[]>(MATCHES_OF_SQL, playerId, limit, offset);
  }

  /** Match `number` of table `tableId` with its seats' names, hot or archived; null when not stored. */
  async match(tableId: string, number: number): Promise<PlayerMatchRow | null> {
    const rows = await this.prisma.$queryRawUnsafe<PlayerMatchRow[]>(MATCH_SQL, tableId, number);
    return rows[0] ?? null;
  }

  /** The log rows of match `number` of table `tableId` that a replay reads, in order (seq). */
  matchLog(schema: MatchSchema, tableId: string, number: number): Promise<MatchLogRow[]> {
    return this.prisma.$queryRawUnsafe<MatchLogRow[]>(logSql(schema), tableId, number);
  }
}

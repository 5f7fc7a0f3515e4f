import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { Client } from 'pg';
import {
  applyAction,
  createMatch,
  matchResult,
  startRoundWithDeal,
  type Action,
  type ActionOrigin,
  type MatchConfig,
  type MatchState,
  type Tile,
} from '@dominoes/rules';

export interface LogRow {
  seq: number;
  kind: string;
  seat: number | null;
  match_number: number | null;
  round_number: number | null;
  payload: Record<string, unknown>;
  intent_id: string | null;
}

/** Where a table's rows are: the hot tables, or the `archive` schema once retention moved them. */
export type LogSchema = 'public' | 'archive';

export async function readLog(
  databaseUrl: string,
  tableId: string,
  schema: LogSchema = 'public',
): Promise<LogRow[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<LogRow & { seq: string }>(
      `select seq, kind, seat, match_number, round_number, payload, intent_id from ${schema}.table_actions where table_id = $1 order by seq`,
      [tableId],
    );
    return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
  } finally {
    await client.end();
  }
}

export async function storedMatchScores(
  databaseUrl: string,
  tableId: string,
  schema: LogSchema = 'public',
): Promise<{ number: number; scores: number[] | null; winner_side: number | null }[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `select number, scores, winner_side from ${schema}.matches where table_id = $1 order by number`,
      [tableId],
    );
    return rows;
  } finally {
    await client.end();
  }
}

export interface ReplayedMatch {
  readonly number: number;
  readonly state: MatchState;
  readonly finished: boolean;
  readonly scores: readonly number[];
  readonly winnerSide: number | null;
}

/**
 * Replays every match of a table from its stored log through libs/rules alone: each deal must
 * open with the seat the rules name (no override), and each action must be legal when replayed.
 */
export function replayLog(rows: readonly LogRow[]): ReplayedMatch[] {
  const matches = new Map<number, MatchState>();
  for (const row of rows) {
    const n = row.match_number;
    if (row.kind === 'match-started' && n !== null) {
      const config = row.payload['config'] as MatchConfig;
      const created = createMatch(config);
      if (!created.ok) throw new Error(`seq ${row.seq}: ${created.error.message}`);
      matches.set(n, created.value);
    }
    if (row.kind === 'round-dealt' && n !== null) {
      const p = row.payload as { hands: Tile[][]; stock: Tile[]; opener: number };
      const dealt = startRoundWithDeal(matches.get(n)!, { hands: p.hands, stock: p.stock });
      if (!dealt.ok) throw new Error(`seq ${row.seq}: ${dealt.error.message}`);
      if (dealt.value.round!.opener !== p.opener)
        throw new Error(`seq ${row.seq}: stored opener ${p.opener}, rules say ${dealt.value.round!.opener}`);
      matches.set(n, dealt.value);
    }
    if (row.kind === 'action' && n !== null) {
      const p = row.payload as { action: Action; by: ActionOrigin };
      const applied = applyAction(matches.get(n)!, p.action, p.by);
      if (!applied.ok) throw new Error(`seq ${row.seq}: ${applied.error.code} ${applied.error.message}`);
      matches.set(n, applied.value);
    }
  }
  return [...matches.entries()].map(([number, state]) => {
    const result = matchResult(state);
    return { number, state, finished: result.finished, scores: result.scores, winnerSide: result.winnerSide };
  });
}

const ROOT = resolve(__dirname, '../..');

/**
 * What a person checking a result runs (examples/replay/README.md, "A stored match"):
 * `node examples/replay/stored-match.js <gateway> <match id>... | npm run --silent replay`. The
 * replay's results, one per match, in order.
 */
export function replayStoredMatches(gatewayUrl: string, matchIds: readonly string[]): unknown[] {
  const cases = execFileSync(process.execPath, ['examples/replay/stored-match.js', gatewayUrl, ...matchIds], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const out = execFileSync('npm', ['run', '--silent', 'replay'], {
    cwd: ROOT,
    input: cases,
    encoding: 'utf8',
  });
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

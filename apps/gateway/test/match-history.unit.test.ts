import { randomUUID } from 'node:crypto';
import { MATCH_PAGE_SIZE } from '@dominoes/protocol';
import {
  applyAction,
  automaticAction,
  createMatch,
  createSeededRng,
  deadlineAction,
  matchCaseOfLog,
  replayTimeline,
  startRound,
  type MatchConfigInput,
  type MatchState,
  type Result,
} from '@dominoes/rules';
import { newTableCode } from '../src/lobby/table-opener';
import { MatchHistory } from '../src/tables/match-history';
import { TableReader } from '../src/tables/table-reader';
import { suiteDatabase, type SuiteDatabase } from './support';

/**
 * MatchHistory (issue 12, "Looking back") on a real Postgres database of this suite, read through
 * libs/platform's store on the gateway's read-only pool (TableReader.history), the rows written as
 * the table-service writes them: the table, its seats, the match row, and the log (match-started,
 * round-dealt, one action row per move, round-ended) of a match played here through libs/rules.
 */
let db: SuiteDatabase;
let reader: TableReader;
let history: MatchHistory;

beforeAll(async () => {
  db = await suiteDatabase('match_history_unit');
  reader = new TableReader(db.shardMap);
  history = new MatchHistory(reader.history);
});
afterAll(async () => {
  await reader?.close();
  await db?.close();
});

const ok = <T>(result: Result<T>): T => {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
};

interface Played {
  /** The log rows, as the table-service stores them. */
  readonly log: { kind: string; seat: number | null; round: number | null; payload: unknown }[];
  /** Per round: its points and winner (null while unfinished) and the match's scores after it. */
  readonly rounds: { points: number | null; winnerSide: number | null; scoresAfter: number[] }[];
  readonly end: MatchState;
}

/** A match played as a table plays it (deadline moves, the table's forced moves), `moves` at most. */
function play(config: MatchConfigInput, seed: number, moves = Infinity): Played {
  const rng = createSeededRng(seed);
  let match = ok(createMatch(config));
  const log: Played['log'] = [
    { kind: 'match-started', seat: null, round: null, payload: { config: match.config } },
  ];
  const rounds: Played['rounds'] = [];
  let made = 0;
  while (match.phase !== 'over' && made < moves) {
    match = ok(startRound(match, rng));
    const number = match.round!.number;
    const { hands, stock, opener, redeals } = match.round!;
    log.push({ kind: 'round-dealt', seat: null, round: number, payload: { hands, stock, opener, redeals } });
    while (match.round!.result === null && made < moves) {
      const forced = automaticAction(match, () => false);
      const action = forced ?? deadlineAction(match)!;
      match = ok(applyAction(match, action, forced ? 'auto' : 'deadline'));
      const drawn = match.round!.log.at(-1)!.drawn;
      const payload = { action, by: forced ? 'auto' : 'deadline', ...(drawn ? { drawn } : {}) };
      log.push({ kind: 'action', seat: action.seat, round: number, payload });
      made++;
    }
    const result = match.round!.result;
    if (result) log.push({ kind: 'round-ended', seat: null, round: number, payload: { result } });
    rounds.push({
      points: result?.points ?? null,
      winnerSide: result?.winnerSide ?? null,
      scoresAfter: [...match.scores],
    });
  }
  return { log, rounds, end: match };
}

const at = (minute: number) => new Date(Date.UTC(2026, 5, 1, 12, minute));

interface StoredMatch {
  readonly tableId?: string;
  readonly number?: number;
  readonly variant?: string;
  /** Player ids by seat, and the names seated now (undefined: the seat is empty now). */
  readonly seats: { player: string; name?: string }[];
  readonly minute: number;
  readonly end?: 'finished' | 'abandoned' | 'playing';
  readonly scores?: number[] | null;
  readonly winnerSide?: number | null;
  readonly log?: Played['log'];
}

/** Writes a table with one match (and its log) as the table-service stores them; returns the table's id. */
async function store(m: StoredMatch): Promise<string> {
  const tableId = m.tableId ?? newTableCode();
  const number = m.number ?? 1;
  const variant = m.variant ?? 'draw';
  const end = m.end ?? 'finished';
  await db.pg.query(
    `insert into game_tables (id, variant, seat_count, target, one_round, host_player_id, status, version, state)
     values ($1, $2, $3, 100, false, $4::uuid, $5, 1, '{}') on conflict (id) do nothing`,
    [tableId, variant, m.seats.length, m.seats[0]!.player, end === 'playing' ? 'playing' : 'finished'],
  );
  for (const [seat, { player, name }] of m.seats.entries())
    if (name !== undefined)
      await db.pg.query(
        `insert into table_seats (table_id, seat, player_id, name) values ($1, $2, $3::uuid, $4) on conflict do nothing`,
        [tableId, seat, player, name],
      );
  const ended = at(m.minute + 1);
  await db.pg.query(
    `insert into matches (table_id, number, variant, target, one_round, seats, scores, winner_side, started_at, finished_at, abandoned_at)
     values ($1, $2, $3, 100, false, $4::jsonb, $5::jsonb, $6, $7, $8, $9)`,
    [
      tableId,
      number,
      variant,
      JSON.stringify(m.seats.map((s) => s.player)),
      m.scores === undefined ? '[10, 0]' : JSON.stringify(m.scores),
      m.winnerSide ?? null,
      at(m.minute),
      end === 'finished' ? ended : null,
      end === 'abandoned' ? ended : null,
    ],
  );
  const seq = Number(
    (await db.pg.query(`select count(*) from table_actions where table_id = $1`, [tableId])).rows[0].count,
  );
  for (const [i, row] of (m.log ?? []).entries())
    await db.pg.query(
      `insert into table_actions (table_id, seq, kind, seat, match_number, round_number, payload) values ($1, $2, $3, $4, $5, $6, $7::jsonb)`,
      [tableId, seq + i + 1, row.kind, row.seat, number, row.round, JSON.stringify(row.payload)],
    );
  return tableId;
}

const uuid = () => randomUUID();

describe("MatchHistory.matchesOf: a player's matches (real Postgres)", () => {
  const me = uuid();
  const [p1, p2, p3, p4] = [uuid(), uuid(), uuid(), uuid()];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // Partnership, me on seat 2 (side 0), side 0 won; one seat (3) has no name known any more.
    ids['won'] = await store({
      variant: 'partnership',
      seats: [
        { player: p1, name: 'Pia' },
        { player: p2, name: 'Quin' },
        { player: me, name: 'Me' },
        { player: p3 },
      ],
      minute: 1,
      scores: [104, 31],
      winnerSide: 0,
    });
    // Partnership, me on seat 1 (side 1), side 1 won.
    ids['wonOdd'] = await store({
      variant: 'partnership',
      seats: [
        { player: p1, name: 'Pia' },
        { player: me, name: 'Me' },
        { player: p2, name: 'Quin' },
        { player: p3, name: 'Ros' },
      ],
      minute: 2,
      scores: [20, 101],
      winnerSide: 1,
    });
    // Draw, three seats, me on seat 1, seat 2 won.
    ids['lost'] = await store({
      seats: [
        { player: p1, name: 'Pia' },
        { player: me, name: 'Me' },
        { player: p4, name: 'Sam' },
      ],
      minute: 3,
      scores: [3, 40, 100],
      winnerSide: 2,
    });
    ids['drawn'] = await store({
      seats: [
        { player: me, name: 'Me' },
        { player: p1, name: 'Pia' },
      ],
      minute: 4,
      scores: [0, 0],
      winnerSide: null,
    });
    ids['abandoned'] = await store({
      seats: [
        { player: p1, name: 'Pia' },
        { player: me, name: 'Me' },
      ],
      minute: 5,
      end: 'abandoned',
      scores: [12, 30],
    });
    ids['playing'] = await store({
      seats: [
        { player: me, name: 'Me' },
        { player: p2, name: 'Quin' },
      ],
      minute: 6,
      end: 'playing',
      scores: null,
    });
    // Someone else's match: never in my list.
    await store({
      seats: [
        { player: p1, name: 'Pia' },
        { player: p2, name: 'Quin' },
      ],
      minute: 7,
    });
  });

  it('newest first, only the matches the player sat in, each with its seat, names, status and times', async () => {
    const page = await history.matchesOf(me, 0);
    expect(page.page).toBe(0);
    expect(page.nextPage).toBeNull();
    expect(page.matches.map((m) => m.tableId)).toEqual(
      ['playing', 'abandoned', 'drawn', 'lost', 'wonOdd', 'won'].map((k) => ids[k]),
    );
    expect(page.matches.at(-1)).toEqual({
      matchId: `${ids['won']}-1`,
      tableId: ids['won'],
      number: 1,
      variant: 'partnership',
      target: 100,
      oneRound: false,
      players: ['Pia', 'Quin', 'Me', null],
      seat: 2,
      partners: ['Pia'],
      opponents: ['Quin', null],
      status: 'finished',
      outcome: 'won',
      scores: [104, 31],
      winnerSide: 0,
      startedAt: at(1).toISOString(),
      endedAt: at(2).toISOString(),
    });
  });

  it("the outcome is the player's side's: won by the side of an odd seat, lost, drawn, and abandoned or playing as the match stands", async () => {
    const byTable = new Map((await history.matchesOf(me, 0)).matches.map((m) => [m.tableId, m]));
    expect(byTable.get(ids['wonOdd']!)).toMatchObject({
      seat: 1,
      outcome: 'won',
      partners: ['Ros'],
      opponents: ['Pia', 'Quin'],
    });
    expect(byTable.get(ids['lost']!)).toMatchObject({
      variant: 'draw',
      seat: 1,
      outcome: 'lost',
      partners: [],
      opponents: ['Pia', 'Sam'],
      status: 'finished',
    });
    expect(byTable.get(ids['drawn']!)).toMatchObject({
      seat: 0,
      outcome: 'drawn',
      winnerSide: null,
      status: 'finished',
    });
    expect(byTable.get(ids['abandoned']!)).toMatchObject({
      status: 'abandoned',
      outcome: 'abandoned',
      scores: [12, 30],
      endedAt: at(6).toISOString(),
    });
    expect(byTable.get(ids['playing']!)).toMatchObject({
      status: 'playing',
      outcome: 'playing',
      scores: null,
      endedAt: null,
      startedAt: at(6).toISOString(),
    });
  });

  it('pages of MATCH_PAGE_SIZE: a next page only when there is one more match, an empty page past the end', async () => {
    const many = uuid();
    const exact = uuid();
    const tablesOf: string[] = [];
    for (let i = 0; i <= MATCH_PAGE_SIZE; i++)
      tablesOf.push(
        await store({
          seats: [
            { player: many, name: 'Max' },
            { player: exact, name: 'Eli' },
          ],
          minute: 100 + i,
        }),
      );
    // `exact` is in all 21, `many` alone in one more, the oldest: 22 for `many`.
    const oldest = await store({
      seats: [
        { player: many, name: 'Max' },
        { player: p1, name: 'Pia' },
      ],
      minute: 50,
    });
    const first = await history.matchesOf(many, 0);
    expect(first.matches.map((m) => m.tableId)).toEqual(tablesOf.slice(1).reverse());
    expect(first.nextPage).toBe(1);
    const second = await history.matchesOf(many, 1);
    expect(second).toMatchObject({ page: 1, nextPage: null });
    expect(second.matches.map((m) => m.tableId)).toEqual([tablesOf[0], oldest]);
    expect(await history.matchesOf(many, 2)).toEqual({ matches: [], page: 2, nextPage: null });
    // 21 matches: one page of 20 and a second of one.
    expect((await history.matchesOf(exact, 0)).nextPage).toBe(1);
    expect((await history.matchesOf(exact, 1)).matches.map((m) => m.tableId)).toEqual([tablesOf[0]]);
    // Exactly a page: no next one.
    const twenty = uuid();
    for (let i = 0; i < MATCH_PAGE_SIZE; i++)
      await store({ seats: [{ player: twenty, name: 'Tw' }, { player: p2 }], minute: 200 + i });
    const only = await history.matchesOf(twenty, 0);
    expect(only.matches).toHaveLength(MATCH_PAGE_SIZE);
    expect(only.nextPage).toBeNull();
  });
});

describe('MatchHistory.replay: a match over, replayed through the rules (real Postgres)', () => {
  const [a, b, c, d] = [uuid(), uuid(), uuid(), uuid()];

  it('is refused as not-found for a table or match number not stored', async () => {
    const tableId = await store({
      seats: [
        { player: a, name: 'Ada' },
        { player: b, name: 'Bo' },
      ],
      minute: 300,
    });
    expect(await history.replay(newTableCode(), 1)).toEqual({ refused: 'not-found' });
    expect(await history.replay(tableId, 2)).toEqual({ refused: 'not-found' });
  });

  it('a match in play is refused as not-over, its log unread (P12: hands stay hidden)', async () => {
    const played = play({ variant: 'draw', seats: 2, target: 100 }, 4, 6);
    const tableId = await store({
      seats: [
        { player: a, name: 'Ada' },
        { player: b, name: 'Bo' },
      ],
      minute: 301,
      end: 'playing',
      log: played.log,
    });
    expect(await history.replay(tableId, 1)).toEqual({ refused: 'not-over' });
  });

  it('a stored log with no dealt round is not-replayable, and says so', async () => {
    const played = play({ variant: 'draw', seats: 2, target: 100 }, 4, 0);
    const tableId = await store({
      seats: [
        { player: a, name: 'Ada' },
        { player: b, name: 'Bo' },
      ],
      minute: 302,
      log: played.log.filter((row) => row.kind === 'match-started'),
    });
    expect(await history.replay(tableId, 1)).toEqual({
      refused: 'not-replayable',
      message: 'The stored log holds no dealt round.',
    });
  });

  it("a stored log the rules refuse is not-replayable with the rules' own message", async () => {
    const played = play({ variant: 'draw', seats: 2, target: 100 }, 5, 8);
    // The second move played again: out of turn, or the tile no longer in hand.
    const firstAction = played.log.findIndex((row) => row.kind === 'action');
    const log = [...played.log.slice(0, firstAction + 2), played.log[firstAction + 1]!];
    const tableId = await store({
      seats: [
        { player: a, name: 'Ada' },
        { player: b, name: 'Bo' },
      ],
      minute: 303,
      end: 'abandoned',
      log,
    });
    const timeline = replayTimeline(matchCaseOfLog(log as never));
    if (!('error' in timeline)) throw new Error('the rules accepted the doctored log');
    expect(await history.replay(tableId, 1)).toEqual({
      refused: 'not-replayable',
      message: timeline.error.message,
    });
    expect(timeline.error.message.length).toBeGreaterThan(0);
  });

  it('a finished partnership match: every round with its points, winning team and scores after it, the final scores and winner (P19)', async () => {
    const played = play({ variant: 'partnership', target: 100 }, 11);
    expect(played.rounds.length).toBeGreaterThan(1);
    const tableId = await store({
      variant: 'partnership',
      seats: [
        { player: a, name: 'Ada' },
        { player: b, name: 'Bo' },
        { player: c },
        { player: d, name: 'Di' },
      ],
      minute: 304,
      scores: [...played.end.scores],
      winnerSide: played.end.scores[0]! > played.end.scores[1]! ? 0 : 1,
      log: played.log,
    });
    const replay = await history.replay(tableId, 1);
    if ('refused' in replay) throw new Error(`refused: ${replay.refused}`);
    const stored = matchCaseOfLog(played.log as never)!;
    expect(replay).toEqual({
      matchId: `${tableId}-1`,
      variant: 'partnership',
      seats: 4,
      target: 100,
      oneRound: false,
      players: ['Ada', 'Bo', null, 'Di'],
      status: 'finished',
      startedAt: at(304).toISOString(),
      endedAt: at(305).toISOString(),
      rounds: stored.rounds.map((round, r) => ({ ...round, ...played.rounds[r] })),
      scores: [...played.end.scores],
      winnerSide: played.end.scores[0]! > played.end.scores[1]! ? 0 : 1,
    });
    // Scores after each round climb to the final ones (not the final ones for every round).
    expect(replay.rounds[0]!.scoresAfter).not.toEqual(replay.scores);
    expect(replay.rounds.at(-1)!.scoresAfter).toEqual(replay.scores);
  });

  it('a finished draw match: the winning seat of each round and of the match', async () => {
    const played = play({ variant: 'draw', seats: 3, target: 50 }, 3);
    const winner = played.end.scores.indexOf(Math.max(...played.end.scores));
    const tableId = await store({
      seats: [
        { player: a, name: 'Ada' },
        { player: b, name: 'Bo' },
        { player: c, name: 'Cy' },
      ],
      minute: 306,
      scores: [...played.end.scores],
      winnerSide: winner,
      log: played.log,
    });
    const replay = await history.replay(tableId, 1);
    if ('refused' in replay) throw new Error(`refused: ${replay.refused}`);
    expect(replay).toMatchObject({
      variant: 'draw',
      seats: 3,
      target: 50,
      winnerSide: winner,
      scores: played.end.scores,
    });
    expect(replay.rounds.map((r) => [r.points, r.winnerSide, r.scoresAfter])).toEqual(
      played.rounds.map((r) => [r.points, r.winnerSide, r.scoresAfter]),
    );
    expect(replay.rounds.some((r) => r.winnerSide !== null && r.winnerSide > 0)).toBe(true);
  });

  it('an abandoned match: replayed to where it stopped, its last round unfinished (no points, no winner), no match winner', async () => {
    const played = play({ variant: 'partnership', target: 100 }, 7, 40);
    expect(played.end.phase).not.toBe('over');
    const tableId = await store({
      variant: 'partnership',
      seats: [
        { player: a, name: 'Ada' },
        { player: b, name: 'Bo' },
        { player: c, name: 'Cy' },
        { player: d, name: 'Di' },
      ],
      minute: 307,
      end: 'abandoned',
      scores: [...played.end.scores],
      log: played.log,
    });
    const replay = await history.replay(tableId, 1);
    if ('refused' in replay) throw new Error(`refused: ${replay.refused}`);
    expect(replay).toMatchObject({
      status: 'abandoned',
      endedAt: at(308).toISOString(),
      winnerSide: null,
      scores: [...played.end.scores],
    });
    const last = replay.rounds.at(-1)!;
    expect(last).toMatchObject({
      complete: false,
      points: null,
      winnerSide: null,
      scoresAfter: [...played.end.scores],
    });
  });
});

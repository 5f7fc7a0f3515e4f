import { Client } from 'pg';
import {
  getMyMatches,
  getReplay,
  getTable,
  MatchListResponseSchema,
  ProtocolError,
  requestIdentity,
} from '@dominoes/protocol';
import { autoplay } from '../src/autoplay';
import { seatPlayers, TestPlayer } from '../src/players';
import { readLog, storedMatchScores } from '../src/stored-log';
import { TestSystem } from '../src/system';

/** Short on purpose: a real deployment waits 2 minutes (ABANDONED_TABLE_MS). */
const ABANDON_MS = 3000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The HTTP status and error code of a GET, for the refused cases. */
async function refusal(url: string, token?: string): Promise<[number, string | undefined]> {
  const response = await fetch(url, token ? { headers: { authorization: token } } : {});
  const body = (await response.json()) as { error?: { code: string } };
  return [response.status, body.error?.code];
}

async function playToTheEnd(players: TestPlayer[], seed: number): Promise<void> {
  await players[0]!.client.waitForView((v) => v.status === 'playing');
  await autoplay(players, seed, (v) => v.game?.phase === 'over', { timeoutMs: 90_000 });
}

async function playSome(players: TestPlayer[], seed: number): Promise<void> {
  await players[0]!.client.waitForView((v) => v.status === 'playing');
  await autoplay(players, seed, (v) => (v.game?.log.length ?? 0) >= 3 || v.game?.phase !== 'playing');
}

describe('looking back: a player’s matches and replays through the real services (issue 12)', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await TestSystem.start('history', { env: { ABANDONED_TABLE_MS: String(ABANDON_MS) } });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('lists exactly the token’s matches, newest first; replays a finished match to the match row’s scores; refuses one in play, bad ids and bad tokens; keeps archived and abandoned matches', async () => {
    const url = system.httpUrl;
    const db = system.stores.databaseUrl;
    // A: a partnership match to 50 (P19's lowest target) played to its end by Ana, Ben, Cai, Dee.
    const a = await seatPlayers(system, ['Ana', 'Ben', 'Cai', 'Dee'], {
      variant: 'partnership',
      target: 50,
    });
    await playToTheEnd(a.players, 3);
    // B: a finished two-seat draw game (oneRound) of Eve and Fay; C: a draw game of theirs still in play.
    const b = await seatPlayers(system, ['Eve', 'Fay'], { variant: 'draw', seats: 2, oneRound: true });
    await playToTheEnd(b.players, 4);
    const eve = b.players[0]!;
    const fay = b.players[1]!;
    // The same two identities (their tokens) on new sockets, at a new table.
    const again = [eve, fay].map((p) => new TestPlayer(p.name, p.token, p.playerId, system));
    for (const p of again) await p.connect();
    const { tableId: cTable } = await again[0]!.openTable({ variant: 'draw', seats: 2 });
    for (const p of again) await p.join(cTable);
    await playSome(again, 5);

    // Ana's list: only A, her seat, her partner and opponents, the result, the stored scores.
    const ana = a.players[0]!;
    const [aRow] = await storedMatchScores(db, a.tableId);
    const anaList = await getMyMatches(url, ana.token);
    expect(anaList.matches.map((m) => m.matchId)).toEqual([`${a.tableId}-1`]);
    const entry = anaList.matches[0]!;
    expect(entry).toMatchObject({
      variant: 'partnership',
      target: 50,
      seat: 0,
      players: ['Ana', 'Ben', 'Cai', 'Dee'],
      partners: ['Cai'],
      opponents: ['Ben', 'Dee'],
      status: 'finished',
      outcome: aRow!.winner_side === 0 ? 'won' : 'lost',
      scores: aRow!.scores,
      winnerSide: aRow!.winner_side,
    });
    expect(anaList.nextPage).toBeNull();
    // Ben (the other team) sees the same match from his side.
    const ben = (await getMyMatches(url, a.players[1]!.token)).matches[0]!;
    expect(ben).toMatchObject({ seat: 1, partners: ['Dee'], opponents: ['Ana', 'Cai'] });
    expect(ben.outcome).not.toBe(entry.outcome);

    // Eve's list: C (in play, newest) then B; never A. A new identity has none.
    const eveList = await getMyMatches(url, eve.token);
    expect(eveList.matches.map((m) => [m.matchId, m.status])).toEqual([
      [`${cTable}-1`, 'playing'],
      [`${b.tableId}-1`, 'finished'],
    ]);
    expect(eveList.matches[0]!.outcome).toBe('playing');
    expect(eveList.matches[1]).toMatchObject({ partners: [], opponents: ['Fay'] });
    const stranger = await requestIdentity(url, 'Stranger');
    expect((await getMyMatches(url, stranger.token)).matches).toEqual([]);

    // Refused: no token, a malformed one, a forged one, bad pages. The player is never a parameter.
    expect(await refusal(`${url}/api/matches`)).toEqual([401, 'UNAUTHENTICATED']);
    expect(await refusal(`${url}/api/matches`, 'Bearer nonsense')).toEqual([401, 'TOKEN_INVALID']);
    const [body] = ana.token.split('.');
    expect(await refusal(`${url}/api/matches`, `Bearer ${body}.${'A'.repeat(43)}`)).toEqual([
      401,
      'TOKEN_INVALID',
    ]);
    for (const page of ['-1', 'x', '500', '1e3', ''])
      expect(await refusal(`${url}/api/matches?page=${page}`, `Bearer ${ana.token}`)).toEqual([
        400,
        'INVALID_MESSAGE',
      ]);
    const ignoredPlayer = await fetch(`${url}/api/matches?playerId=${eve.playerId}`, {
      headers: { authorization: `Bearer ${ana.token}` },
    });
    expect(MatchListResponseSchema.parse(await ignoredPlayer.json()).matches.map((m) => m.tableId)).toEqual([
      a.tableId,
    ]);
    expect((await getMyMatches(url, ana.token, 1)).matches).toEqual([]);

    // The replay of A: every hand of the deal, every move in order, its final scores the match row's.
    const replay = await getReplay(url, `${a.tableId}-1`);
    expect(replay).toMatchObject({
      status: 'finished',
      variant: 'partnership',
      players: ['Ana', 'Ben', 'Cai', 'Dee'],
    });
    expect(replay.scores).toEqual(aRow!.scores);
    expect(replay.winnerSide).toEqual(aRow!.winner_side);
    const logA = await readLog(db, a.tableId);
    expect(replay.rounds).toHaveLength(logA.filter((r) => r.kind === 'round-dealt').length);
    for (const round of replay.rounds) expect(round.hands.map((h) => h.length)).toEqual([7, 7, 7, 7]);
    expect(replay.rounds.every((r) => r.complete)).toBe(true);
    expect(replay.rounds.at(-1)!.scoresAfter).toEqual(aRow!.scores);
    const moves = logA.filter((r) => r.kind === 'action');
    const actions = replay.rounds.flatMap((r) => r.actions);
    expect(actions).toHaveLength(moves.length);
    expect(actions.filter((x) => x.auto).length).toBe(moves.filter((r) => r.payload['by'] === 'auto').length);

    // The host starts the table's next match: match 1's replay is unchanged (its own rows only), match 2's refused.
    await ana.client.newMatch();
    await ana.client.waitForView((v) => v.matchNumber === 2 && v.status === 'playing');
    expect(await getReplay(url, `${a.tableId}-1`)).toEqual(replay);
    expect(await refusal(`${url}/api/replays/${a.tableId}-2`)).toEqual([409, 'MATCH_NOT_OVER']);
    expect((await getMyMatches(url, ana.token)).matches.map((m) => [m.matchId, m.status])).toEqual([
      [`${a.tableId}-2`, 'playing'],
      [`${a.tableId}-1`, 'finished'],
    ]);

    // C is in play: refused, no hand in the answer (P12).
    const inPlay = await fetch(`${url}/api/replays/${cTable}-1`);
    expect(inPlay.status).toBe(409);
    const inPlayText = await inPlay.text();
    expect(JSON.parse(inPlayText)).toMatchObject({ error: { code: 'MATCH_NOT_OVER' } });
    expect(inPlayText).not.toMatch(/hands|\[\d,\d\]/);
    // Bad ids: a clear 400; an id of nothing: 404.
    for (const bad of [
      'nope',
      `${a.tableId}-0`,
      `${a.tableId}`,
      `${a.tableId}-1-1`,
      `${a.tableId.toLowerCase()}-1`,
      `${a.tableId}-99999999`,
    ])
      expect(await refusal(`${url}/api/replays/${encodeURIComponent(bad)}`)).toEqual([
        400,
        'INVALID_MESSAGE',
      ]);
    expect(await refusal(`${url}/api/replays/${a.tableId}-3`)).toEqual([404, 'MATCH_NOT_FOUND']);
    await expect(getReplay(url, 'AAAAAAAAAAAA-1')).rejects.toThrow(ProtocolError);

    // B, once retention moved it into the archive: still Eve's, still replayable to its stored scores.
    expect((await getTable(url, b.tableId)).status).toBe('finished');
    const pg = new Client({ connectionString: db });
    await pg.connect();
    try {
      const moved = await pg.query<{ moved: boolean }>(
        "select archive_table($1, now() + interval '1 hour') as moved",
        [b.tableId],
      );
      expect(moved.rows[0]!.moved).toBe(true);
    } finally {
      await pg.end();
    }
    const [bRow] = await storedMatchScores(db, b.tableId, 'archive');
    expect((await getMyMatches(url, eve.token)).matches.map((m) => m.matchId)).toContain(`${b.tableId}-1`);
    const archived = await getReplay(url, `${b.tableId}-1`);
    expect(archived.scores).toEqual(bRow!.scores);
    expect(archived.winnerSide).toEqual(bRow!.winner_side);

    // An abandoned match (decision 0017): replayable, shown as abandoned, no winner.
    const d = await seatPlayers(system, ['Gus', 'Hal'], { variant: 'draw', seats: 2 });
    await playSome(d.players, 6);
    for (const p of d.players) p.close();
    const closedAt = Date.now();
    while (
      (await getTable(url, d.tableId)).status !== 'closed' &&
      Date.now() - closedAt < ABANDON_MS + 15_000
    )
      await sleep(200);
    const [dRow] = await storedMatchScores(db, d.tableId);
    const abandoned = await getReplay(url, `${d.tableId}-1`);
    expect(abandoned).toMatchObject({ status: 'abandoned', winnerSide: null, scores: dRow!.scores });
    expect(abandoned.rounds.at(-1)!.complete).toBe(false);
    expect((await getMyMatches(url, d.players[0]!.token)).matches[0]).toMatchObject({
      status: 'abandoned',
      outcome: 'abandoned',
      winnerSide: null,
    });
  });
});

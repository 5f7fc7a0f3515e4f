import { Client } from 'pg';
import { getTable } from '@dominoes/protocol';
import { matchCaseOfLog, replayCase, type MatchOutput } from '@dominoes/rules';
import { autoplay } from '../src/autoplay';
import { seatPlayers, type TestPlayer } from '../src/players';
import { readLog, replayLog } from '../src/stored-log';
import { TestSystem } from '../src/system';

/** Short on purpose: a real deployment waits 2 minutes (ABANDONED_TABLE_MS). */
const ABANDON_MS = 4000;
const TURN_MS = 2000;
const DISCONNECTED_MS = 1000;

/** The value of one sample (`name{labels} value`) of a /metrics text, or null. */
function sample(text: string, name: string, labels: Record<string, string>): number | null {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = match[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => have.includes(`${k}="${v}"`))) return Number(match[3]);
  }
  return null;
}

async function matchRow(databaseUrl: string, tableId: string) {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{
      scores: number[] | null;
      winner_side: number | null;
      finished_at: Date | null;
      abandoned_at: Date | null;
    }>('select scores, winner_side, finished_at, abandoned_at from matches where table_id = $1', [tableId]);
    return rows;
  } finally {
    await client.end();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('abandoned tables through the real services (issue 12, decision 0017)', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await TestSystem.start('abandoned', {
      turnMs: TURN_MS,
      disconnectedTurnMs: DISCONNECTED_MS,
      env: { ABANDONED_TABLE_MS: String(ABANDON_MS) },
    });
  });
  afterAll(async () => {
    await system?.stop();
  });

  const activeTables = async (state: string) =>
    sample(await (await fetch(system.metricsUrl('table-service'))).text(), 'dominoes_active_tables', {
      state,
    });

  const playSome = async (players: TestPlayer[]) => {
    await players[0]!.client.waitForView((v) => v.status === 'playing');
    await autoplay(players, 12, (v) => (v.game?.log.length ?? 0) >= 4 || v.game?.phase !== 'playing');
  };

  it('four players play, all close their sockets: after ABANDONED_TABLE_MS the match ends abandoned, no winner; the log replays; the table leaves memory', async () => {
    const { players, tableId } = await seatPlayers(system, ['Ana', 'Ben', 'Cy', 'Dee'], {
      variant: 'partnership',
    });
    await playSome(players);
    expect(await activeTables('playing')).toBe(1);

    for (const p of players) p.close();
    const closedAt = Date.now();
    let status = (await getTable(system.httpUrl, tableId)).status;
    while (status !== 'closed' && Date.now() - closedAt < ABANDON_MS + 15_000) {
      await sleep(200);
      status = (await getTable(system.httpUrl, tableId)).status;
    }
    expect(status).toBe('closed');
    const elapsed = Date.now() - closedAt;
    console.log(`abandoned ${elapsed} ms after the last socket closed (ABANDONED_TABLE_MS ${ABANDON_MS})`);
    expect(elapsed).toBeGreaterThanOrEqual(ABANDON_MS);

    const log = await readLog(system.stores.databaseUrl, tableId);
    expect(log.slice(-2).map((r) => r.kind)).toEqual(['match-abandoned', 'table-closed']);
    expect(log.at(-1)!.payload).toMatchObject({ reason: 'abandoned' });
    // Once the last seat was gone, the table did not play itself: no move after the last presence row.
    const lastPresence = log.map((r) => r.kind).lastIndexOf('presence');
    expect(log.slice(lastPresence).filter((r) => r.kind === 'action')).toEqual([]);

    // The log replays through the rules alone: one match, unfinished, no winner, the stored scores.
    const [replayed, ...more] = replayLog(log);
    expect(more).toEqual([]);
    expect(replayed).toMatchObject({ number: 1, finished: false, winnerSide: null });
    const abandoned = log.at(-2)!.payload as { scores: number[] };
    expect(replayed!.scores).toEqual(abandoned.scores);
    // And as `npm run replay` reads it: an unfinished match, no winner, the same scores, no error.
    const output = replayCase(matchCaseOfLog(log)) as MatchOutput;
    expect(output).not.toHaveProperty('error');
    expect(output).toMatchObject({ finished: false, winnerTeam: null, scores: abandoned.scores });

    const rows = await matchRow(system.stores.databaseUrl, tableId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ winner_side: null, finished_at: null, scores: abandoned.scores });
    expect(rows[0]!.abandoned_at).toBeInstanceOf(Date);

    // The table-service no longer holds it.
    expect(await activeTables('playing')).toBe(0);
  });

  it('a player who comes back in time cancels it: the match goes on', async () => {
    const { players, tableId } = await seatPlayers(system, ['Eva', 'Fin', 'Gus', 'Hal'], {
      variant: 'partnership',
    });
    await playSome(players);
    for (const p of players) p.close();
    await sleep(ABANDON_MS / 2);
    const back = players[1]!;
    await back.reconnect();
    const returned = await back.join(tableId);
    expect(returned.status).toBe('playing');
    const logLength = returned.game!.log.length;
    // Well past the abandonment: still playing, and the turn clock moved the table on meanwhile.
    await sleep(ABANDON_MS);
    const view = await back.client.waitForView((v) => (v.game?.log.length ?? 0) > logLength, 10_000);
    expect(view.status).toBe('playing');
    expect((await getTable(system.httpUrl, tableId)).status).toBe('playing');
    expect(await activeTables('playing')).toBe(1);
    const log = await readLog(system.stores.databaseUrl, tableId);
    expect(log.some((r) => r.kind === 'match-abandoned')).toBe(false);
    back.close();
  });
});

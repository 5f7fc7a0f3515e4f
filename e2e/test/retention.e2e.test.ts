import { Client } from 'pg';
import { autoplay } from '../src/autoplay';
import { seatPlayers } from '../src/players';
import { readLog, replayLog, storedMatchScores } from '../src/stored-log';
import { TestSystem } from '../src/system';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 11 §4, retention: a finished table idle for ARCHIVE_AFTER_MS leaves the hot tables for the
 * `archive` schema, by the table-service itself, with its whole log; its match still replays to the
 * scores shown; a table still in play is left where it is.
 */
describe('retention: finished tables move to the archive', () => {
  let system: TestSystem;
  let sql: Client;
  beforeAll(async () => {
    system = await TestSystem.start('retention', {
      env: { ARCHIVE_AFTER_MS: '2000', ARCHIVE_INTERVAL_MS: '500' },
    });
    sql = new Client({ connectionString: system.stores.databaseUrl });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await system?.stop();
  });

  const count = async (query: string, id: string) =>
    Number((await sql.query<{ n: string }>(query, [id])).rows[0]!.n);

  it('a finished match is archived with its log and still replays to the scores shown; an open table is not', async () => {
    const finished = await seatPlayers(system, ['Rae', 'Sol'], { variant: 'draw', seats: 2, oneRound: true });
    const open = await seatPlayers(system, ['Tam', 'Uli'], { variant: 'draw', seats: 2, oneRound: true });
    const final = await autoplay(finished.players, 5, (v) => v.game?.matchResult != null, {
      timeoutMs: 60_000,
    });
    const shown = final.game!.matchResult!.scores;
    const hotLog = (await readLog(system.stores.databaseUrl, finished.tableId)).length;
    expect(hotLog).toBeGreaterThan(0);
    // What one action costs on disk (heap row + its index entries), for docs/operations.md.
    const size = await sql.query<{ rows: string; heap: string; indexes: string; avg_row: string }>(
      `select count(*) as rows, pg_relation_size('table_actions') as heap, pg_indexes_size('table_actions') as indexes,
              avg(pg_column_size(a.*))::int as avg_row from table_actions a`,
    );
    console.log(`table_actions: ${JSON.stringify(size.rows[0])}`);

    // Idle for ARCHIVE_AFTER_MS (2 s), then the next pass (every 0.5 s) moves it.
    let archived = false;
    for (let i = 0; i < 40 && !archived; i++) {
      await sleep(250);
      archived =
        (await count('select count(*) as n from archive.game_tables where id = $1', finished.tableId)) === 1;
    }
    expect(archived).toBe(true);
    expect(await count('select count(*) as n from game_tables where id = $1', finished.tableId)).toBe(0);
    expect(await count('select count(*) as n from table_actions where table_id = $1', finished.tableId)).toBe(
      0,
    );

    const log = await readLog(system.stores.databaseUrl, finished.tableId, 'archive');
    expect(log).toHaveLength(hotLog);
    const [replayed] = replayLog(log);
    expect(replayed!.finished).toBe(true);
    expect(replayed!.scores).toEqual(shown);
    const [stored] = await storedMatchScores(system.stores.databaseUrl, finished.tableId, 'archive');
    expect(stored!.scores).toEqual(shown);

    // The table still in play stays hot.
    expect(await count('select count(*) as n from game_tables where id = $1', open.tableId)).toBe(1);
    expect(await count('select count(*) as n from archive.game_tables where id = $1', open.tableId)).toBe(0);
    for (const p of [...finished.players, ...open.players]) p.close();
  }, 90_000);

  it('a hot log row is deleted only inside the archive step and only when the archive holds the same row', async () => {
    const { players, tableId } = await seatPlayers(system, ['Vic', 'Wes'], { variant: 'draw', seats: 2 });
    for (const p of players) p.close();
    await sleep(500); // the players' presence rows (closed sockets) are in
    const rows = await count('select count(*) as n from table_actions where table_id = $1', tableId);
    // An altered copy in the archive (a forged payload) lets nothing go, even inside the step.
    await sql.query(
      "insert into archive.table_actions select table_id, seq, kind, seat, match_number, round_number, '{}'::jsonb, intent_id, created_at from table_actions where table_id = $1",
      [tableId],
    );
    await sql.query('begin');
    try {
      await sql.query("select set_config('dominoes.archive_step', 'on', true)");
      await expect(sql.query('delete from table_actions where table_id = $1', [tableId])).rejects.toThrow(
        /append-only: DELETE/,
      );
    } finally {
      await sql.query('rollback');
    }
    // Outside the step, never.
    await expect(sql.query('delete from table_actions where table_id = $1', [tableId])).rejects.toThrow(
      /append-only: DELETE/,
    );
    const kept = await sql.query<{ n: string }>(
      'select count(*) as n from table_actions a join archive.table_actions c using (table_id, seq) where a.table_id = $1',
      [tableId],
    );
    expect(Number(kept.rows[0]!.n)).toBe(rows);
  });
});

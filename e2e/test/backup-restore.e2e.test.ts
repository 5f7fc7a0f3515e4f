import { execFileSync } from 'node:child_process';
import { Client } from 'pg';
import { autoplay } from '../src/autoplay';
import { seatPlayers } from '../src/players';
import { readLog, replayLog, storedMatchScores } from '../src/stored-log';
import { TestSystem } from '../src/system';

/**
 * Issue 11 §4, the procedure of docs/operations.md ("Backup and restore"): pg_dump of a live
 * database, pg_restore into a new one, and every finished match replayed from the restored copy
 * through libs/rules to the scores stored (and shown to the players).
 */
describe('backup and restore', () => {
  let system: TestSystem;
  let restoredUrl: string | null = null;
  beforeAll(async () => {
    system = await TestSystem.start('backup');
  });
  afterAll(async () => {
    await system?.stop();
  });

  const withDatabase = async <T>(url: string, work: (c: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };

  it('a dump restored into a new database replays every finished match to the same scores', async () => {
    // A partnership match to 50 and a one-round draw game, played to their end while the system runs.
    const shown = new Map<string, readonly number[]>();
    await Promise.all(
      [
        { variant: 'partnership' as const, target: 50 },
        { variant: 'draw' as const, seats: 2, oneRound: true },
      ].map(async (request, i) => {
        const names = request.variant === 'partnership' ? ['Ana', 'Bo', 'Cy', 'Di'] : ['Ed', 'Flo'];
        const { players, tableId } = await seatPlayers(
          system,
          names.map((n) => `${n}${i}`),
          request,
        );
        const final = await autoplay(players, 20 + i, (v) => v.game?.matchResult != null, {
          timeoutMs: 60_000,
        });
        shown.set(tableId, final.game!.matchResult!.scores);
        for (const p of players) p.close();
      }),
    );

    // The procedure: a consistent dump of the live database, then a restore into a new one.
    const source = system.stores.databaseUrl;
    const dump = execFileSync('pg_dump', ['--format=custom', '--no-owner', `--dbname=${source}`], {
      maxBuffer: 256 * 1024 * 1024,
    });
    const target = new URL(source);
    target.pathname = `${target.pathname}_restored`;
    restoredUrl = target.toString();
    const admin = new URL(source);
    admin.pathname = '/postgres';
    await withDatabase(admin.toString(), (c) => c.query(`create database "${target.pathname.slice(1)}"`));
    try {
      execFileSync('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${restoredUrl}`], {
        input: dump,
      });

      const finished = await withDatabase(restoredUrl, (c) =>
        c.query<{ table_id: string }>(
          'select table_id from matches where finished_at is not null order by table_id',
        ),
      );
      expect(finished.rows.map((r) => r.table_id).sort()).toEqual([...shown.keys()].sort());
      for (const { table_id: tableId } of finished.rows) {
        const replayed = replayLog(await readLog(restoredUrl, tableId));
        const stored = await storedMatchScores(restoredUrl, tableId);
        expect(replayed.map((m) => m.finished)).toEqual([true]);
        expect(replayed[0]!.scores).toEqual(stored[0]!.scores);
        expect(replayed[0]!.scores).toEqual(shown.get(tableId));
      }
      // The restored log is still append-only (the triggers came back with it).
      await withDatabase(restoredUrl, (c) =>
        expect(c.query("update table_actions set kind = 'x'")).rejects.toThrow(/append-only/),
      );
    } finally {
      await withDatabase(admin.toString(), (c) =>
        c.query(`drop database if exists "${target.pathname.slice(1)}"`),
      );
    }
  }, 120_000);
});

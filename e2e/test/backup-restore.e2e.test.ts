import { execFileSync } from 'node:child_process';
import { Client } from 'pg';
import { autoplay } from '../src/autoplay';
import { seatPlayers } from '../src/players';
import { readLog, replayLog, storedMatchScores } from '../src/stored-log';
import { tableInDatabase } from '../src/split-databases';
import { TestSystem } from '../src/system';

/**
 * Issue 11 §4, the procedure of docs/operations.md ("Backups and restore"): pg_dump of every live
 * database, pg_restore of each into a new one, and every finished match replayed from the restored
 * copies through libs/rules to the scores stored (and shown to the players). In e2e-pgsplit the
 * system has two Postgres (decision 0027) and one match is played in each: each restored copy must
 * hold exactly its shards' finished matches.
 */
describe('backup and restore', () => {
  let system: TestSystem;
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
  const withPath = (url: string, path: string): string => {
    const changed = new URL(url);
    changed.pathname = path;
    return changed.toString();
  };

  it('a dump of every database restored into new databases replays every finished match to the same scores', async () => {
    // A partnership match to 50 and a one-round draw game, played to their end while the system
    // runs; on two databases, one in each.
    const databases = system.databaseUrls.length;
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
          undefined,
          tableInDatabase(system, i % databases),
        );
        const final = await autoplay(players, 20 + i, (v) => v.game?.matchResult != null, {
          timeoutMs: 60_000,
        });
        shown.set(tableId, final.game!.matchResult!.scores);
        for (const p of players) p.close();
      }),
    );

    // The procedure: a dump of each live database (in DATABASE_URLS order), then a restore of each
    // into a new database next to it; the restored URLs keep that order.
    const restored = system.databaseUrls.map((source) => ({
      source,
      url: withPath(source, `${new URL(source).pathname}_restored`),
      admin: withPath(source, '/postgres'),
    }));
    const dumps = restored.map(({ source }) =>
      execFileSync('pg_dump', ['--format=custom', '--no-owner', `--dbname=${source}`], {
        maxBuffer: 256 * 1024 * 1024,
      }),
    );
    const nameOf = (url: string) => new URL(url).pathname.slice(1);
    try {
      for (const [d, { url, admin }] of restored.entries()) {
        await withDatabase(admin, (c) => c.query(`create database "${nameOf(url)}"`));
        execFileSync('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${url}`], { input: dumps[d] });
      }

      // Each restored copy holds the finished matches of its own shards, and together all of them.
      const found: string[] = [];
      for (const [d, { url }] of restored.entries()) {
        const finished = await withDatabase(url, (c) =>
          c.query<{ table_id: string }>(
            'select table_id from matches where finished_at is not null order by table_id',
          ),
        );
        for (const { table_id: tableId } of finished.rows) {
          expect([tableId, system.databaseOfTable(tableId)]).toEqual([tableId, d]);
          found.push(tableId);
          const replayed = replayLog(await readLog(url, tableId));
          const stored = await storedMatchScores(url, tableId);
          expect(replayed.map((m) => m.finished)).toEqual([true]);
          expect(replayed[0]!.scores).toEqual(stored[0]!.scores);
          expect(replayed[0]!.scores).toEqual(shown.get(tableId));
        }
        // The restored log is still append-only (the triggers came back with it).
        await withDatabase(url, (c) =>
          expect(c.query("update table_actions set kind = 'x'")).rejects.toThrow(/append-only/),
        );
      }
      expect(found.sort()).toEqual([...shown.keys()].sort());
      // On two databases, both restored copies had a finished match.
      expect(new Set(found.map((t) => system.databaseOfTable(t))).size).toBe(Math.min(databases, 2));
    } finally {
      for (const { url, admin } of restored)
        await withDatabase(admin, (c) => c.query(`drop database if exists "${nameOf(url)}"`));
    }
  }, 120_000);
});

import { getReplay } from '@dominoes/protocol';
import type { MatchOutput } from '@dominoes/rules';
import { replayLog, readLog, replayStoredMatches, storedMatchScores } from '../src/stored-log';
import { leakedTiles } from '../src/hidden-tiles';
import { seatPlayers } from '../src/players';
import { autoplay } from '../src/autoplay';
import { expectRowsOnlyInItsShardsDatabase, tableInDatabase } from '../src/split-databases';
import { TestSystem } from '../src/system';

const NAMES = ['Amira', 'Bassam', 'Chloe', 'Dimitar'];

/**
 * Also run by e2e-cluster (on a Redis Cluster) and e2e-pgsplit (on two Postgres, decision 0027):
 * there one match per database, at once, each table in its shard's database and in no other.
 */
describe('a whole partnership match over real services', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await TestSystem.start('match');
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('P1–P21: four clients play random legal moves to the target; the stored log replays through libs/rules to the scores they were shown, and no frame leaks a hidden tile (P12)', async () => {
    const databases = system.databaseUrls.map((_, d) => d);
    const shownScores = new Map<string, readonly number[]>();
    await Promise.all(
      databases.map(async (database) => {
        const { players, tableId } = await seatPlayers(
          system,
          NAMES.map((n) => (database === 0 ? n : `${n}${database}`)),
          { variant: 'partnership', target: 100 },
          undefined,
          tableInDatabase(system, database),
        );
        const final = await autoplay(players, 7 + database, (v) => v.status === 'finished', {
          timeoutMs: 240_000,
        });
        const shown = final.game!.matchResult!;
        expect(shown.finished).toBe(true);
        expect(Math.max(...shown.scores)).toBeGreaterThanOrEqual(100);
        // P21: never tied.
        expect(shown.scores[0]).not.toBe(shown.scores[1]);

        const db = system.databaseUrlOf(tableId);
        const log = await readLog(db, tableId);
        const [replayed] = replayLog(log);
        expect(replayed!.finished).toBe(true);
        expect(replayed!.scores).toEqual(shown.scores);
        expect(replayed!.winnerSide).toBe(shown.winnerSide);
        const stored = await storedMatchScores(db, tableId);
        expect(stored[0]!.scores).toEqual(shown.scores);
        // Every player was shown the same final scores.
        for (const p of players) expect(p.view!.game!.matchResult!.scores).toEqual(shown.scores);
        // The log is gap-free: versions 1..n.
        expect(log.map((r) => r.seq)).toEqual(log.map((_, i) => i + 1));
        // The gateway's replay (GET /api/replays) finds the match in its shard's database.
        const replay = await getReplay(system.httpUrl, `${tableId}-1`);
        expect(replay.scores).toEqual(shown.scores);
        shownScores.set(tableId, shown.scores);
        await expectRowsOnlyInItsShardsDatabase(system, tableId);

        let frames = 0;
        for (const p of players) {
          for (const view of p.views()) {
            frames++;
            expect(view.you.seat).toBe(p.seat);
            expect(leakedTiles(view, log)).toEqual([]);
          }
        }
        expect(frames).toBeGreaterThan(100);
      }),
    );
    // Each match through `npm run replay`, its case read from the gateway as the example says.
    const matchIds = [...shownScores.keys()].map((tableId) => `${tableId}-1`);
    const outputs = replayStoredMatches(system.httpUrl, matchIds) as MatchOutput[];
    expect(outputs.map((o) => o.scores)).toEqual([...shownScores.values()]);
  });
});

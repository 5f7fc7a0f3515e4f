import { replayLog, readLog, storedMatchScores } from '../src/stored-log';
import { leakedTiles } from '../src/hidden-tiles';
import { seatPlayers } from '../src/players';
import { autoplay } from '../src/autoplay';
import { TestSystem } from '../src/system';

describe('a whole partnership match over real services', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await TestSystem.start('match');
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('P1–P21: four clients play random legal moves to the target; the stored log replays through libs/rules to the scores they were shown, and no frame leaks a hidden tile (P12)', async () => {
    const { players, tableId } = await seatPlayers(system, ['Amira', 'Bassam', 'Chloe', 'Dimitar'], {
      variant: 'partnership',
      target: 100,
    });
    const final = await autoplay(players, 7, (v) => v.status === 'finished', { timeoutMs: 240_000 });
    const shown = final.game!.matchResult!;
    expect(shown.finished).toBe(true);
    expect(Math.max(...shown.scores)).toBeGreaterThanOrEqual(100);
    // P21: never tied.
    expect(shown.scores[0]).not.toBe(shown.scores[1]);

    const log = await readLog(system.stores.databaseUrl, tableId);
    const [replayed] = replayLog(log);
    expect(replayed!.finished).toBe(true);
    expect(replayed!.scores).toEqual(shown.scores);
    expect(replayed!.winnerSide).toBe(shown.winnerSide);
    const stored = await storedMatchScores(system.stores.databaseUrl, tableId);
    expect(stored[0]!.scores).toEqual(shown.scores);
    // Every player was shown the same final scores.
    for (const p of players) expect(p.view!.game!.matchResult!.scores).toEqual(shown.scores);
    // The log is gap-free: versions 1..n.
    expect(log.map((r) => r.seq)).toEqual(log.map((_, i) => i + 1));

    let frames = 0;
    for (const p of players) {
      for (const view of p.views()) {
        frames++;
        expect(view.you.seat).toBe(p.seat);
        expect(leakedTiles(view, log)).toEqual([]);
      }
    }
    expect(frames).toBeGreaterThan(100);
  });
});

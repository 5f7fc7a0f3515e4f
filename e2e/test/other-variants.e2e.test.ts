import { readLog, replayLog } from '../src/stored-log';
import { leakedTiles } from '../src/hidden-tiles';
import { seatPlayers } from '../src/players';
import { autoplay } from '../src/autoplay';
import { TestSystem } from '../src/system';

describe('the draw game and the five-tile game over real services', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await TestSystem.start('variants');
  });
  afterAll(async () => {
    await system?.stop();
  });

  it.each([
    ['draw', 'D1–D7'],
    ['five-tile', 'F1–F7'],
  ] as const)(
    '%s (%s): a 3-player table starts by itself and plays a round to its end',
    async (variant, _rules) => {
      const { players, tableId } = await seatPlayers(system, ['Eleni', 'Georgi', 'Hana'], {
        variant,
        seats: 3,
      });
      expect(players.map((p) => p.seat)).toEqual([0, 1, 2]);
      const ended = await autoplay(players, 11, (v) => v.game?.roundResult != null, {
        cutBreaks: false,
        timeoutMs: 60_000,
      });
      const result = ended.game!.roundResult!;
      expect(result.finalHands).toHaveLength(3);
      const log = await readLog(system.stores.databaseUrl, tableId);
      const [replayed] = replayLog(log);
      expect(replayed!.state.round!.result).toEqual(result);
      for (const p of players) for (const view of p.views()) expect(leakedTiles(view, log)).toEqual([]);
      if (variant === 'five-tile') {
        // F2: the round opened with the highest double dealt, laid crosswise with four ends (F4).
        const first = replayed!.state.round!.board.placements[0]!;
        expect(first.crossed).toBe(true);
        expect(first.opens).toHaveLength(4);
      }
    },
  );
});

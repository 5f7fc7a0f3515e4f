import { Client } from 'pg';
import { ProtocolError, type TableView } from '@dominoes/protocol';
import type { Action } from '@dominoes/rules';
import { seatPlayers, type TestPlayer } from '../src/players';
import { TestRedisServer } from '../src/redis-server';
import { readLog } from '../src/stored-log';
import { TestSystem } from '../src/system';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Shorter than the defaults (10 s / 8 s) so the test is quick; the same rule: timeout > expiry + 1 s. */
const TIMINGS = { REPLY_TIMEOUT_MS: '4000', INTENT_EXPIRY_MS: '2500' };

/** The player whose turn it is, and a legal move of theirs (a play if there is one). */
async function mover(players: TestPlayer[]): Promise<{ player: TestPlayer; action: Action }> {
  for (let i = 0; i < 100; i++) {
    for (const player of players) {
      const game = player.view?.game;
      if (game?.phase === 'playing' && game.turn === player.view!.you.seat && game.legal.length > 0) {
        return { player, action: game.legal[0] as Action };
      }
    }
    await sleep(50);
  }
  throw new Error('nobody to move');
}

/** Sends `action` with intent id `id`; resolves with the error code, or 'ack'. */
async function send(player: TestPlayer, action: Action, id: string): Promise<string> {
  const body =
    action.type === 'play'
      ? action.end === undefined
        ? { tile: [action.tile[0], action.tile[1]] as [number, number] }
        : { tile: [action.tile[0], action.tile[1]] as [number, number], end: action.end }
      : {};
  try {
    await player.client.request(action.type, body as never, id);
    return 'ack';
  } catch (error) {
    return error instanceof ProtocolError ? error.code : String(error);
  }
}

const stored = async (system: TestSystem, tableId: string, intentId: string) =>
  (await readLog(system.stores.databaseUrl, tableId)).some((row) => row.intent_id === intentId);

/**
 * Issue 11 §2: what a player is told is what happened. An intent carries an expiry; nothing
 * applies it after that (the table-service checks, and Postgres checks again inside the write), and
 * the gateway answers "not applied" only once the expiry has passed (or confirms from the log).
 */
describe('honest answers when a store stalls', () => {
  describe('Postgres locked (an exclusive lock on game_tables for 5 s)', () => {
    let system: TestSystem;
    beforeAll(async () => {
      system = await TestSystem.start('honest-pg', { env: TIMINGS });
    });
    afterAll(async () => {
      await system?.stop();
    });

    it('a move answered UNAVAILABLE is never stored, and the same move sent again is applied', async () => {
      const { players, tableId } = await seatPlayers(system, ['Ana', 'Bo', 'Cy', 'Di'], {
        variant: 'partnership',
      });
      const { player, action } = await mover(players);
      const before = player.view!.game!.log.length;
      const lock = new Client({ connectionString: system.stores.databaseUrl });
      await lock.connect();
      await lock.query('begin');
      await lock.query('lock table game_tables in exclusive mode');
      const started = Date.now();
      const answer = send(player, action, 'locked-1');
      await sleep(5000);
      await lock.query('commit');
      await lock.end();
      const code = await answer;
      expect(['UNAVAILABLE', 'INTENT_EXPIRED']).toContain(code);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
      // Nothing applies it later.
      await sleep(1500);
      expect(await stored(system, tableId, `${player.playerId}:locked-1`)).toBe(false);
      expect(player.view!.game!.log.length).toBe(before);
      // The player does what the answer said: try again. It is applied once.
      expect(await send(player, action, 'locked-2')).toBe('ack');
      expect(await stored(system, tableId, `${player.playerId}:locked-2`)).toBe(true);
    }, 60_000);
  });

  describe('Redis frozen (SIGSTOP for 6 s)', () => {
    let redis: TestRedisServer;
    let system: TestSystem;
    beforeAll(async () => {
      redis = await TestRedisServer.start('honest-redis');
      system = await TestSystem.start('honest-redis', { env: { ...TIMINGS, REDIS_URL: redis.url } });
    });
    afterAll(async () => {
      await system?.stop();
      await redis?.stop();
    });

    it('moves sent while Redis hangs are refused (at once, once it is seen to hang) and never applied later', async () => {
      const { players, tableId } = await seatPlayers(system, ['Eva', 'Fil', 'Gus', 'Hal'], {
        variant: 'partnership',
      });
      const { player, action } = await mover(players);
      redis.freeze();
      let thawed = false;
      try {
        const first = await send(player, action, 'frozen-1');
        expect(first).toBe('UNAVAILABLE');
        // Redis is known to hang now: the next one is refused at once, not queued in memory.
        const t0 = Date.now();
        const second = await send(player, action, 'frozen-2');
        const refusedInMs = Date.now() - t0;
        expect(second).toBe('UNAVAILABLE');
        expect(refusedInMs).toBeLessThan(500);
        await sleep(Math.max(0, 6000 - (Date.now() - t0)));
        redis.thaw();
        thawed = true;
        // The first XADD was still in Redis's socket buffer: it reaches the table-service now, expired.
        await sleep(3000);
        for (const id of ['frozen-1', 'frozen-2']) {
          expect(await stored(system, tableId, `${player.playerId}:${id}`)).toBe(false);
        }
        // Afterwards the same move is applied (the view may take a moment to come back).
        let answer = '';
        for (let attempt = 0; attempt < 10 && answer !== 'ack'; attempt++) {
          answer = await send(player, action, `after-${attempt}`);
          if (answer !== 'ack') await sleep(500);
        }
        expect(answer).toBe('ack');
        const view: TableView | null = player.view;
        expect(view?.game).toBeTruthy();
      } finally {
        if (!thawed) redis.thaw();
      }
    }, 90_000);
  });
});

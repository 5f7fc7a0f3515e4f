import { ProtocolError, type TableView } from '@dominoes/protocol';
import { autoplay } from '../src/autoplay';
import type { TestPlayer } from '../src/players';
import { TestRedisServer } from '../src/redis-server';
import { checkStored, errorCodes, seatTables, type PlayingTable } from '../src/tables';
import { TestSystem, type ServiceName } from '../src/system';

const SERVICES: ServiceName[] = ['gateway', 'table-service', 'timer-service'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The times at which `player` was shown a move the table made by itself (`by: 'deadline'`) at
 * `seat`'s turn, counting only moves that first appear after `since()`. A view's log is the current
 * round's, so the new moves are its tail past what was seen before.
 */
function watchDeadlineMoves(player: TestPlayer, seat: number, since: () => number) {
  let round = -1;
  let seen = 0;
  const moves: number[] = [];
  const off = player.onView((view: TableView) => {
    const game = view.game;
    if (!game) return;
    if (game.roundNumber !== round) {
      round = game.roundNumber;
      seen = 0;
    }
    const fresh = game.log.slice(seen);
    seen = Math.max(seen, game.log.length);
    const now = Date.now();
    if (now < since()) return;
    for (const e of fresh) if (e.by === 'deadline' && e.seat === seat) moves.push(now);
  });
  return { moves, off };
}

async function metric(system: TestSystem, instance: string, name: string): Promise<number> {
  const text = await fetch(`http://127.0.0.1:${system.portOf(instance)}/metrics`).then((r) => r.text());
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : Number.NaN;
}

describe('Redis restart: kill -9 Redis mid-match, start an empty one on the same port', () => {
  let redis: TestRedisServer;
  let system: TestSystem;
  let table: PlayingTable | undefined;
  beforeAll(async () => {
    redis = await TestRedisServer.start('redis-restart');
    system = await TestSystem.start('redis-restart', {
      turnMs: 2000,
      disconnectedTurnMs: 1000,
      breakMs: 1000,
      env: {
        REDIS_URL: redis.url,
        // The table-service's safety net would set again a deadline the rebuild never set (once it is
        // that late): here every deadline must come from a job rebuilt from Postgres, or set after.
        OVERDUE_GRACE_MS: '60000',
      },
    });
  });
  afterAll(async () => {
    for (const p of table?.players ?? []) p.close();
    await system?.stop();
    await redis?.stop();
  });

  it('deadlines are rebuilt from Postgres, the players play on, and the match finishes with a log that replays to the scores shown', async () => {
    [table] = await seatTables(system, 1, 1);
    const { players } = table!;
    const onActionAck = (id: string) => table!.acked.push(id);

    // A few moves with everybody at the table.
    await autoplay(players, 41, (v) => (v.game?.log.length ?? 0) >= 6, { onActionAck });

    // From here one player (not the host: the host cuts the breaks short) no longer acts: at its
    // turns the table waits for the deadline. The other three play on at once.
    const sleeper = players[1]!;
    const observer = players[0]!;
    const others = players.filter((p) => p !== sleeper);
    let restartedAt = Number.POSITIVE_INFINITY;
    const watcher = watchDeadlineMoves(observer, sleeper.seat, () => restartedAt);
    const othersPlaying = autoplay(others, 42, () => watcher.moves.length >= 2, {
      timeoutMs: 90_000,
      onActionAck,
    });

    // Kill Redis while the table waits for the sleeper: that turn's deadline is then a BullMQ job
    // that only Redis had. SIGKILL, no persistence: leases, intent streams and their consumer
    // groups, deadline jobs, heartbeats and subscriptions are all gone. Requests are in flight.
    await observer.client.waitForView(
      (v) => v.game?.phase === 'playing' && v.game.turn === sleeper.seat,
      20_000,
    );
    const inFlight = others.map((p) =>
      p.client.sync().then(
        () => 'ok',
        (error: unknown) => (error instanceof ProtocolError ? error.code : String(error)),
      ),
    );
    await redis.kill('SIGKILL');
    const killedAt = Date.now();
    const firedBefore = await metric(system, 'timer-service', 'dominoes_deadlines_fired_total');
    await sleep(2000);
    await redis.restart();
    restartedAt = Date.now();
    const outageMs = restartedAt - killedAt;

    // The sleeper's turn is played by its deadline, twice: the first a job set again from Postgres
    // (the one set before was lost), the second a job set since.
    await othersPlaying;
    watcher.off();
    const firstDeadlineAfterMs = watcher.moves[0]! - restartedAt;
    expect(firstDeadlineAfterMs).toBeLessThan(10_000);
    // Fired by the timer-service (it counts a deadline once its intent is in the stream).
    let firedAfter = firedBefore;
    for (let i = 0; i < 20 && firedAfter - firedBefore < 2; i++) {
      firedAfter = await metric(system, 'timer-service', 'dominoes_deadlines_fired_total');
      if (firedAfter - firedBefore < 2) await sleep(100);
    }
    expect(firedAfter - firedBefore).toBeGreaterThanOrEqual(2);

    // Everybody plays again, to the end of the match.
    table!.finished = autoplay(players, 43, (v) => v.status === 'finished', {
      timeoutMs: 240_000,
      onActionAck,
    });
    const final = await table!.finished;
    expect(final.status).toBe('finished');
    await Promise.all(players.map((p) => p.client.waitForView((v) => v.status === 'finished', 15_000)));

    // The stored log replays through libs/rules to the scores every player was shown; every
    // acknowledged action is stored, none twice.
    await checkStored(system, [table!]);

    // No process died (an unhandled rejection would have killed it), and a player was at most told
    // to try again: the requests in flight at the kill were answered or refused with UNAVAILABLE.
    for (const service of SERVICES) expect(system.isRunning(service)).toBe(true);
    const answers = await Promise.all(inFlight);
    for (const answer of answers) expect(['ok', 'UNAVAILABLE']).toContain(answer);
    const codes = errorCodes([table!]);
    expect(codes['INTERNAL'] ?? 0).toBe(0);

    console.log(
      JSON.stringify({
        outageMs,
        firstDeadlineAfterMs,
        deadlinesFiredAfterRestart: firedAfter - firedBefore,
        acked: table!.acked.length,
        reconnects: players.map((p) => p.reconnects),
        inFlight: answers,
        errorCodes: codes,
      }),
    );
  });
});

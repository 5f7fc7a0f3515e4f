import { readLog, replayLog } from '../src/stored-log';
import { seatPlayers } from '../src/players';
import { autoplay, sendRandomLegal } from '../src/autoplay';
import { TestSystem } from '../src/system';
import { expectRowsOnlyInItsShardsDatabase, tableInDatabase } from '../src/split-databases';
import { checkStored, playAll, type PlayingTable } from '../src/tables';
import { createSeededRng } from '@dominoes/rules';
import type { TableView } from '@dominoes/protocol';

/**
 * Also run by e2e-cluster (CLUSTER_SUITES=all) and e2e-pgsplit (two Postgres, decision 0027): there
 * the watched table is in the last database (not the home one) and another table plays in each other
 * database through the same crash, each checked the same way (checkStored).
 */
describe('crash and restart: kill -9 the table-service and the timer-service mid-match', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await TestSystem.start('crash', { turnMs: 2000, disconnectedTurnMs: 1000, breakMs: 1000 });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('the match goes on from exactly where it was: no acknowledged action lost, none applied twice, and deadlines still fire', async () => {
    const last = system.databaseUrls.length - 1;
    const { players, tableId } = await seatPlayers(
      system,
      ['Mia', 'Nikos', 'Olga', 'Petar'],
      { variant: 'partnership', target: 50 },
      undefined,
      tableInDatabase(system, last),
    );
    // On a split system, a table in each other database plays through the crash too.
    const others: PlayingTable[] = [];
    for (let database = 0; database < last; database++) {
      const other = await seatPlayers(
        system,
        ['Ria', 'Sam', 'Tea', 'Uri'].map((n) => `${n}${database}`),
        { variant: 'partnership', target: 50 },
        undefined,
        tableInDatabase(system, database),
      );
      others.push({ ...other, acked: [], finished: Promise.resolve(null as unknown as TableView) });
    }
    playAll(others, 180_000);
    const acked: string[] = [];
    const onActionAck = (id: string) => acked.push(id);
    // Play a while, then kill both with an action in flight.
    await autoplay(players, 21, (v) => (v.game?.log.length ?? 0) >= 6, { onActionAck });
    const rng = createSeededRng(5);
    const playing = await players[0]!.client.waitForView((v) => v.game?.phase === 'playing');
    const mover = players.find((p) => p.seat === playing.game!.turn)!;
    await mover.client.waitForView((v) => v.game?.turn === mover.seat);
    const inFlight = sendRandomLegal(mover, mover.view!, rng)
      ?.then((ack) => onActionAck(`${mover.playerId}:${(ack as { id: string }).id}`))
      .catch((e: unknown) => e);
    await Promise.all([system.kill('table-service'), system.kill('timer-service')]);
    await inFlight;
    const versionAtCrash = Math.max(...players.map((p) => p.client.version));

    await system.startService('table-service');
    await system.startService('timer-service');
    // Everybody asks for the current view again, as the web page does after an error.
    await Promise.all(players.map((p) => p.client.sync()));
    expect(Math.min(...players.map((p) => p.client.version))).toBeGreaterThanOrEqual(versionAtCrash);

    // Deadlines still fire: nobody acts, and the table moves by itself within the turn time.
    const observer = players[0]!;
    const before = observer.view!.game!.log.length;
    const moved = await observer.client.waitForView(
      (v) => (v.game?.log.length ?? 0) > before || v.game?.phase !== 'playing',
      8000,
    );
    expect(
      moved.game!.log.slice(before).some((e) => e.by === 'deadline') || moved.game!.phase !== 'playing',
    ).toBe(true);

    const final = await autoplay(players, 22, (v) => v.status === 'finished', {
      timeoutMs: 180_000,
      onActionAck,
    });
    const log = await readLog(system.databaseUrlOf(tableId), tableId);
    const [replayed] = replayLog(log);
    expect(replayed!.scores).toEqual(final.game!.matchResult!.scores);
    // Every acknowledged play, pass or draw is in the log, and no intent is stored twice.
    const stored = log.map((r) => r.intent_id).filter((id): id is string => id !== null);
    expect(new Set(stored).size).toBe(stored.length);
    expect(acked.length).toBeGreaterThan(5);
    expect(acked.filter((id) => !stored.includes(id))).toEqual([]);
    await expectRowsOnlyInItsShardsDatabase(system, tableId);
    // The other databases' tables: finished, every ack stored once, their rows in their own database.
    await checkStored(system, others);
    for (const other of others) {
      expect(other.acked.length).toBeGreaterThan(5);
      await expectRowsOnlyInItsShardsDatabase(system, other.tableId);
    }
  });
});

import type { ServerMessage, SpectatorView } from '@dominoes/protocol';
import { autoplay } from '../src/autoplay';
import { leakedTilesToSpectator } from '../src/hidden-tiles';
import { seatPlayers, TestPlayer } from '../src/players';
import { readLog } from '../src/stored-log';
import { TestSystem } from '../src/system';

/**
 * Watching a table (issue 12, decision 0018), on two gateways and two table-services: the players on
 * one gateway, the spectator on the other; the table-service that applies the table is killed and
 * the other one takes it on, its watchers read back from Redis. Every spectator frame is checked for
 * hidden tiles (P10, P12) against the stored deal.
 */
describe('spectators across gateways and table-service replicas', () => {
  let system: TestSystem;
  const wsOf = (gateway: number) => `${system.gatewayUrl(gateway).replace('http', 'ws')}/ws`;
  const watchViews = (p: TestPlayer): { view: SpectatorView; version: number }[] =>
    p.frames.flatMap((f: ServerMessage) =>
      f.type === 'watchView' ? [{ view: f.view, version: f.version }] : [],
    );

  beforeAll(async () => {
    system = await TestSystem.start('spectators', {
      replicas: { gateway: 2, 'table-service': 2 },
      turnMs: 3000,
      disconnectedTurnMs: 1000,
      breakMs: 60_000,
    });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('a spectator on the other gateway watches a whole round to its reveal through a table-service failover: no hidden tile in any frame, the players see the count go up and down, spectators cannot act', async () => {
    const { players, tableId } = await seatPlayers(
      system,
      ['Ana', 'Bo', 'Cy', 'Di'],
      { variant: 'partnership', target: 150 },
      () => wsOf(0),
    );
    const host = players[0]!;
    await host.client.waitForView((v) => v.status === 'playing');

    // The spectator, on gateway 1: the current view at once, then every change.
    const spectator = await TestPlayer.create(system, 'Eve');
    await spectator.connect(wsOf(1));
    const ack = await spectator.client.watch(tableId);
    const first = await spectator.client.waitForWatchView((v) => v.tableId === tableId);
    expect(spectator.client.watchVersion).toBeGreaterThanOrEqual(ack.version ?? 0);
    expect(first.game!.handCounts).toEqual([7, 7, 7, 7]);
    expect(first.game).not.toHaveProperty('hand');
    for (const p of players) await p.client.waitForView((v) => v.watchers === 1);

    // A second spectator (gateway 0) comes and goes: the players see 2, then 1 again.
    const second = await TestPlayer.create(system, 'Fay');
    await second.connect(wsOf(0));
    await second.client.watch(tableId);
    await host.client.waitForView((v) => v.watchers === 2);
    await spectator.client.waitForWatchView((v) => v.watchers === 2);
    await second.client.unwatch();
    await host.client.waitForView((v) => v.watchers === 1);
    // It watches again and closes its socket: the count goes down by the close too.
    await second.client.watch(tableId);
    await host.client.waitForView((v) => v.watchers === 2);
    second.close();
    await host.client.waitForView((v) => v.watchers === 1);

    // Spectators cannot act: every action frame is refused, nothing changes.
    const versionBefore = host.client.version;
    for (const attempt of [
      () => spectator.client.play([6, 6]),
      () => spectator.client.pass(),
      () => spectator.client.draw(),
      () => spectator.client.autoPass(true),
      () => spectator.client.startRound(),
      () => spectator.client.newMatch(),
      () => spectator.client.leave(),
    ])
      await expect(attempt()).rejects.toMatchObject({ code: 'SPECTATORS_CANNOT_ACT' });

    // The round is played; mid-round each table-service is killed in turn (one of them applies the
    // table: the other takes its shard over and reads its watchers back from Redis).
    const round = autoplay(players, 31, (v) => v.game?.roundResult != null, {
      cutBreaks: false,
      timeoutMs: 240_000,
      thinkMs: 400,
    });
    const progressed = (after: number) =>
      spectator.client.waitForWatchView(
        (v) => spectator.client.watchVersion > after || v.game?.roundResult != null,
        30_000,
      );
    await spectator.client.waitForWatchView((v) => (v.game?.log.length ?? 0) >= 3, 30_000);
    await system.kill('table-service');
    await progressed(spectator.client.watchVersion);
    await system.startService('table-service');
    await system.kill('table-service#1');
    await progressed(spectator.client.watchVersion);
    await system.startService('table-service#1');
    const revealed = await round;
    const seen = await spectator.client.waitForWatchView((v) => v.game?.roundResult != null, 30_000);
    expect(host.client.version).toBeGreaterThan(versionBefore);

    // The reveal (P12): every hand, as the players see it.
    expect(seen.game!.roundResult!.finalHands).toEqual(revealed.game!.roundResult!.finalHands);
    expect(seen.game!.scores).toEqual(revealed.game!.scores);
    expect(seen.game!.passes).toEqual(revealed.game!.passes);
    expect(seen.watchers).toBe(1);

    // Every spectator frame: no tile of a hand or of the stock before the reveal.
    const log = await readLog(system.stores.databaseUrl, tableId);
    const frames = watchViews(spectator);
    expect(frames.length).toBeGreaterThan(10);
    for (const { view } of frames) {
      expect(leakedTilesToSpectator(view, log)).toEqual([]);
      expect(view.game).not.toHaveProperty('hand');
      expect(view.game).not.toHaveProperty('legal');
      expect(view).not.toHaveProperty('you');
    }
    // In order, never backwards; the clock and the tile counts go with them.
    const versions = frames.map((f) => f.version);
    expect([...versions].sort((a, b) => a - b)).toEqual(versions);
    expect(frames.some((f) => f.view.clock?.kind === 'turn')).toBe(true);
    for (const p of players) p.close();
    spectator.close();
    // The restarted replica takes its share of the shards back (rebalancing) before the next test.
    await system.waitForShardOwners(['table-service', 'table-service#1']);
  });

  it('hostile watchers: a table that does not exist, a malformed code, many tables from one socket (it watches one at a time), a seated socket that watches leaves its seat to watch', async () => {
    const { players, tableId } = await seatPlayers(
      system,
      ['Gil', 'Hal'],
      { variant: 'draw', seats: 4 },
      () => wsOf(1),
    );
    const other = await players[0]!.openTable({ variant: 'draw', seats: 4 });
    const third = await players[0]!.openTable({ variant: 'draw', seats: 4 });
    const hostile = await TestPlayer.create(system, 'Ivo');
    await hostile.connect(wsOf(0));
    await expect(hostile.client.watch('ABCDEFGHJKMN')).rejects.toMatchObject({ code: 'TABLE_NOT_FOUND' });
    hostile.client.sendRaw({ type: 'watch', id: 'bad-1', table: '../x' });
    const withSeat: Record<string, unknown> = { type: 'watch', id: 'bad-2', table: tableId, seat: 0 };
    hostile.client.sendRaw(withSeat);
    await new Promise((r) => setTimeout(r, 300));
    expect(
      hostile.frames
        .filter((f) => f.type === 'error' && f.id?.startsWith('bad-'))
        .map((f) => (f as { code: string }).code),
    ).toEqual(['INVALID_MESSAGE', 'INVALID_MESSAGE']);
    // One socket, many tables: it watches the last one only; the others count no watcher.
    await Promise.all(
      [tableId, other.tableId, third.tableId, tableId, other.tableId].map((t) =>
        hostile.client.watch(t).catch(() => undefined),
      ),
    );
    await hostile.client.watch(third.tableId);
    await players[1]!.client.waitForView((v) => v.tableId === tableId && (v.watchers ?? 0) === 0);
    const check = await TestPlayer.create(system, 'Jo');
    await check.connect(wsOf(1));
    await check.client.watch(other.tableId);
    expect((await check.client.waitForWatchView((v) => v.tableId === other.tableId)).watchers).toBe(1);
    await check.client.watch(third.tableId);
    expect(
      (await check.client.waitForWatchView((v) => v.tableId === third.tableId && v.watchers === 2)).watchers,
    ).toBe(2);
    // A seated player's socket that watches its own table leaves the seat's views for the public one.
    const seated = players[1]!;
    await seated.client.watch(tableId);
    const publicOnly = await seated.client.waitForWatchView((v) => v.tableId === tableId);
    expect(publicOnly).not.toHaveProperty('you');
    await expect(seated.client.pass()).rejects.toMatchObject({ code: 'SPECTATORS_CANNOT_ACT' });
    // Joining again takes the seat back and ends the watch.
    await seated.join(tableId);
    await players[0]!.client.waitForView((v) => (v.watchers ?? 0) === 0);
    for (const p of [...players, hostile, check]) p.close();
  });
});

import type { TableView } from '@dominoes/protocol';
import { seatPlayers, type TestPlayer } from '../src/players';
import { autoplay } from '../src/autoplay';
import { TestSystem } from '../src/system';

const TURN_MS = 3000;
const DISCONNECTED_MS = 1000;
const BREAK_MS = 2000;
/** Timers fire within this of their deadline here (BullMQ on a busy 2-core machine). */
const SLACK_MS = 1500;

const lastEntry = (v: TableView) => v.game?.log.at(-1);
const turnOf = (v: TableView | null) => (v?.game?.phase === 'playing' ? v.game.turn : null);

describe('clocks: turn deadlines, disconnected seats and the break', () => {
  let system: TestSystem;
  let players: TestPlayer[];
  const bySeat = (seat: number) => players.find((p) => p.seat === seat)!;

  beforeAll(async () => {
    system = await TestSystem.start('clock', {
      turnMs: TURN_MS,
      disconnectedTurnMs: DISCONNECTED_MS,
      breakMs: BREAK_MS,
    });
    ({ players } = await seatPlayers(system, ['Ivo', 'Jana', 'Karim', 'Lina'], { variant: 'partnership' }));
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('P16: a seat that does nothing gets the deadline action: the first tile of its hand on an empty board', async () => {
    const host = players[0]!;
    const start = await host.client.waitForView((v) => v.status === 'playing');
    const opener = bySeat(start.game!.turn!);
    // The opener's own first playing view: its frame may come after the host's.
    const openerView = await opener.client.waitForView((v) => v.status === 'playing');
    expect(openerView.clock).toMatchObject({ kind: 'turn', seat: opener.seat });
    const firstTile = openerView.game!.hand[0]!;
    const played = await host.client.waitForView(
      (v) => (v.game?.board.placements.length ?? 0) === 1,
      TURN_MS + SLACK_MS + 2000,
    );
    expect(lastEntry(played)).toMatchObject({
      type: 'play',
      seat: opener.seat,
      by: 'deadline',
      tile: firstTile,
    });
    const late = Date.now() - openerView.clock!.deadline;
    expect(late).toBeLessThan(SLACK_MS);
  });

  it('P17: a turn that starts while the seat is disconnected ends 5 s (here 1 s) after it started', async () => {
    const moverSeat = turnOf(await players[0]!.client.waitForView((v) => turnOf(v) !== null))!;
    const mover = bySeat(moverSeat);
    const nextSeat = (moverSeat + 1) % 4;
    const next = bySeat(nextSeat);
    const host = players.find((p) => p !== mover && p !== next)!;
    next.client.close();
    await host.client.waitForView((v) => v.seats[nextSeat]?.connected === false);
    const legal = mover.view!.game!.legal[0]!;
    if (legal.type === 'play') await mover.client.play(legal.tile, legal.end);
    else await mover.client.pass();
    const turnStarted = await host.client.waitForView((v) => turnOf(v) === nextSeat);
    const startedAt = Date.now();
    expect(turnStarted.clock!.deadline - startedAt).toBeLessThanOrEqual(DISCONNECTED_MS + 50);
    const after = await host.client.waitForView(
      (v) => turnOf(v) !== nextSeat,
      DISCONNECTED_MS + SLACK_MS + 2000,
    );
    expect(Date.now() - startedAt).toBeLessThan(DISCONNECTED_MS + SLACK_MS);
    expect(after.game!.log.find((e) => e.seat === nextSeat && e.by !== 'player')).toBeDefined();
    await next.reconnect();
    await next.join(host.view!.tableId);
  });

  it('P17: a seat that drops mid-turn has its deadline moved to min(current, now + 5 s); reconnecting gives nothing back and returns the whole view to the same seat', async () => {
    // Drop right after a turn starts, so that now + 1 s is well before the 3 s deadline.
    const current = turnOf(await players[0]!.client.waitForView((v) => turnOf(v) !== null));
    const view = await players[0]!.client.waitForView(
      (v) => turnOf(v) !== null && turnOf(v) !== current && v.seats[turnOf(v)!]!.connected,
    );
    const seat = turnOf(view)!;
    const mover = bySeat(seat);
    const host = players.find((p) => p !== mover)!;
    const before = view.clock!.deadline;
    mover.client.close();
    const moved = await host.client.waitForView(
      (v) => v.clock !== null && v.clock.deadline < before && v.clock.seat === seat,
    );
    expect(moved.clock!.deadline).toBeLessThanOrEqual(Date.now() + DISCONNECTED_MS);
    // Back within the second: the shortened deadline stays.
    await mover.reconnect();
    await mover.join(view.tableId);
    const back = await mover.client.waitForView(
      (v) => v.you.seat === seat && v.seats[seat]?.connected === true,
    );
    expect(back.you.seat).toBe(seat);
    if (turnOf(back) === seat) expect(back.clock!.deadline).toBe(moved.clock!.deadline);
    expect(back.game!.hand.length).toBe(back.game!.handCounts[seat]);
  });

  it('P18: the break ends by itself after 30 s (here 2 s); the host can cut it short, anyone else is refused', async () => {
    const host = players.find((p) => p.view!.hostSeat === p.seat)!;
    const other = players.find((p) => p !== host)!;
    const between = await autoplay(players, 3, (v) => v.game?.phase === 'between-rounds', {
      cutBreaks: false,
    });
    const round = between.game!.roundNumber;
    expect(between.clock).toMatchObject({ kind: 'break', seat: null });
    await expect(other.client.startRound()).rejects.toMatchObject({ code: 'NOT_HOST' });
    const breakStarted = Date.now();
    const next = await host.client.waitForView(
      (v) => (v.game?.roundNumber ?? 0) > round,
      BREAK_MS + SLACK_MS + 3000,
    );
    expect(Date.now() - breakStarted).toBeGreaterThan(BREAK_MS - 1000);
    expect(next.game!.phase).toBe('playing');
    // Play to the next break and cut it short.
    const nextRound = next.game!.roundNumber;
    await autoplay(
      players,
      4,
      (v) =>
        (v.game?.phase === 'between-rounds' && v.game.roundNumber === nextRound) || v.status === 'finished',
      { cutBreaks: false },
    );
    if (host.view!.status === 'finished') return;
    const now = Date.now();
    const current = host.view!.game!.roundNumber;
    await host.client.startRound();
    await host.client.waitForView((v) => (v.game?.roundNumber ?? 0) > current);
    expect(Date.now() - now).toBeLessThan(BREAK_MS);
  });
});

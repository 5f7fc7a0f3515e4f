import { TestPlayer } from '../src/players';
import { TestSystem } from '../src/system';

describe('seats: arrival order, a full table, leaving before the start, the automatic start', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await TestSystem.start('seats');
  });
  afterAll(async () => {
    await system?.stop();
  });

  const players = (names: string[]) => Promise.all(names.map((n) => TestPlayer.create(system, n)));

  it('P3: seats go by arrival; leaving before the start frees the seat for the next arrival; the host role passes to the earliest-seated; the 4th seat starts the match; a 5th player is refused', async () => {
    const [host, b, c, d, e] = await players(['Hana', 'Beatriz', 'Cem', 'Dara', 'Emil']);
    const { tableId, link } = await host!.openTable({ variant: 'partnership', target: 150 });
    expect(link).toContain(`/t/${tableId}`);
    for (const p of [host!, b!, c!]) {
      await p.connect();
      await p.join(tableId);
    }
    expect([host!.seat, b!.seat, c!.seat]).toEqual([0, 1, 2]);
    const waiting = await c!.client.waitForView((v) => v.seats.filter(Boolean).length === 3);
    expect(waiting.status).toBe('waiting');
    expect(waiting.hostSeat).toBe(0);
    expect(waiting.seats.map((s) => s?.name ?? null)).toEqual(['Hana', 'Beatriz', 'Cem', null]);

    // Leaving before the start frees the seat; the next arrival takes the lowest free seat.
    await b!.client.leave();
    await c!.client.waitForView((v) => v.seats[1] === null);
    // The host leaves: the earliest-seated player left (Cem) becomes host.
    await host!.client.leave();
    const handedOver = await c!.client.waitForView((v) => v.seats[0] === null);
    expect(handedOver.hostSeat).toBe(2);
    await d!.connect();
    await d!.join(tableId);
    expect(d!.seat).toBe(0);
    await expect(c!.client.startRound()).rejects.toMatchObject({ code: 'NOT_ALLOWED_NOW' });

    await host!.join(tableId);
    expect(host!.seat).toBe(1);
    expect((await c!.client.waitForView((v) => v.seats.filter(Boolean).length === 3)).status).toBe('waiting');
    await b!.join(tableId);
    expect(b!.seat).toBe(3);
    // P3: the match starts by itself with four humans; nobody else fills a seat.
    const started = await c!.client.waitForView((v) => v.status === 'playing');
    expect(started.game!.roundNumber).toBe(1);
    expect(started.target).toBe(150);
    expect(started.seats.map((s) => s!.name)).toEqual(['Dara', 'Hana', 'Cem', 'Beatriz']);
    // P1: partners sit opposite.
    expect(started.seats.map((s) => s!.side)).toEqual([0, 1, 0, 1]);

    await e!.connect();
    await expect(e!.join(tableId)).rejects.toMatchObject({ code: 'TABLE_FULL' });
    // A seated player who comes back returns to the same seat.
    await b!.reconnect();
    await b!.join(tableId);
    expect(b!.seat).toBe(3);
  });

  it('a draw-game table for 2 starts when its 2 seats are taken', async () => {
    const [a, b] = await players(['Ana', 'Boris']);
    const { tableId } = await a!.openTable({ variant: 'draw', seats: 2, oneRound: true });
    await a!.connect();
    await a!.join(tableId);
    await b!.connect();
    await b!.join(tableId);
    const started = await a!.client.waitForView((v) => v.status === 'playing');
    expect(started.seatCount).toBe(2);
    expect(started.game!.hand).toHaveLength(7);
    expect(started.game!.stockCount).toBe(14);
  });
});

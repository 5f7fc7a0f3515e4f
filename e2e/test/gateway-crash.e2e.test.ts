import type { TableView } from '@dominoes/protocol';
import { autoplay } from '../src/autoplay';
import { seatPlayers } from '../src/players';
import { TestSystem } from '../src/system';

/** Short settings, passed to the services as env. */
const HEARTBEAT_MS = 300;
const HEARTBEAT_TTL_MS = 1000;
const SWEEP_MS = 250;
const GRACE_MS = 1000;
const TURN_MS = 60_000;
const DISCONNECTED_MS = 2000;
/** Two sweeps (one to see the key missing, one after the grace), the intent, and a busy machine. */
const SLACK_MS = 2 * SWEEP_MS + 1500;

const turnOf = (v: TableView | null | undefined) => (v?.game?.phase === 'playing' ? v.game.turn : null);

describe('gateway crash: kill -9 the gateway holding a seated socket, and it never comes back', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await TestSystem.start('gateway-crash', {
      replicas: { gateway: 2 },
      turnMs: TURN_MS,
      disconnectedTurnMs: DISCONNECTED_MS,
      env: {
        GATEWAY_HEARTBEAT_MS: String(HEARTBEAT_MS),
        GATEWAY_HEARTBEAT_TTL_MS: String(HEARTBEAT_TTL_MS),
        PRESENCE_SWEEP_MS: String(SWEEP_MS),
        GATEWAY_GONE_GRACE_MS: String(GRACE_MS),
      },
    });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('P17: the seat of a socket on a dead gateway shows disconnected to the other players within the heartbeat TTL + the grace, and its running 60 s turn drops to 5 s (here 2 s); the seats on the live gateway stay connected', async () => {
    // Three players on the first gateway, the last one on the second.
    const { players } = await seatPlayers(
      system,
      ['Ana', 'Bo', 'Cai', 'Dov'],
      { variant: 'partnership' },
      (i) => (i === 3 ? system.gatewayUrl(1).replace(/^http/, 'ws') + '/ws' : system.wsUrl),
    );
    const victim = players[3]!;
    const others = players.slice(0, 3);
    const seat = victim.seat;
    const observer = others[0]!;

    // The others play until it is the victim's turn: its clock then runs the connected 60 s.
    await autoplay(others, 7, (v) => turnOf(v) === seat, { timeoutMs: 60_000 });
    const before = await observer.client.waitForView((v) => turnOf(v) === seat);
    expect(before.seats[seat]?.connected).toBe(true);
    expect(before.clock).toMatchObject({ kind: 'turn', seat });
    expect(before.clock!.deadline - Date.now()).toBeGreaterThan(TURN_MS - 10_000);

    const killedAt = Date.now();
    await system.kill('gateway#1');
    const dropped = await observer.client.waitForView(
      (v) => v.seats[seat]?.connected === false,
      HEARTBEAT_TTL_MS + GRACE_MS + SLACK_MS + 5000,
    );
    const seenAt = Date.now();
    // Not before the grace (a missing key alone is not enough), and within TTL + grace + a little.
    expect(seenAt - killedAt).toBeGreaterThanOrEqual(GRACE_MS);
    expect(seenAt - killedAt).toBeLessThan(HEARTBEAT_TTL_MS + GRACE_MS + SLACK_MS);
    expect(dropped.seats.filter((s) => s?.connected).map((s) => s!.seat)).toEqual(
      others.map((p) => p.seat).sort(),
    );
    // P17: min(current deadline, disconnect time + 5 s): from about a minute away to 2 s.
    expect(turnOf(dropped)).toBe(seat);
    expect(dropped.clock).toMatchObject({ kind: 'turn', seat });
    expect(dropped.clock!.deadline).toBeLessThanOrEqual(seenAt + DISCONNECTED_MS);
    // And the table moves on by itself at that deadline.
    const moved = await observer.client.waitForView((v) => turnOf(v) !== seat, DISCONNECTED_MS + 3000);
    expect(
      moved.game?.phase !== 'playing' || moved.game.log.some((e) => e.seat === seat && e.by === 'deadline'),
    ).toBe(true);
  });
});

import { createSeededRng, RULE_DURATIONS } from '@dominoes/rules';
import type { IntentEnvelope } from '@dominoes/protocol';
import { decide, openTable, type PolicyContext } from '../src/table/table-policy';
import { accepted, policyEnvelopes } from './support/policy-intents';
import { CONNECTIONS_KEPT_PER_SEAT } from '../src/table/table-state';
import type { TableState } from '../src/table/table-state';

const ctx = (now = 1_000_000, seed = 1): PolicyContext => ({
  now,
  rng: createSeededRng(seed),
  durations: RULE_DURATIONS,
});
/** Tables open at 1_000_000 and wait 15 minutes for their seats (WAITING_TABLE_TTL_MS). */
const TTL_MS = 900_000;
const opening = { now: 1_000_000, waitingTableTtlMs: TTL_MS };
const envelope = policyEnvelopes('ABCDEF', 'i');
const ok = accepted;
/** Applies a decision the way the engine stores it: version grows by the events written. */
const step = (table: TableState, e: IntentEnvelope, c = ctx()): TableState => {
  const d = ok(decide(table, e, c));
  return { ...d.table, version: table.version + d.events.length };
};
const open = (variant: TableState['variant'] = 'partnership', seats?: number) => {
  const d = ok(
    openTable('ABCDEF', { id: 'p0', name: 'p0' }, { variant, ...(seats ? { seats } : {}) }, 'c0', opening),
  );
  return { ...d.table, version: d.events.length };
};
const fill = (table: TableState, players: string[], c = ctx()) =>
  players.reduce((t, p) => step(t, envelope(p, { kind: 'join' }, `c-${p}`), c), table);

describe('table policy', () => {
  it("P19: opening a table refuses a target outside 50..500 in steps of 50, with the rules' error", () => {
    for (const target of [49, 75, 550]) {
      expect(
        openTable('T', { id: 'h', name: 'h' }, { variant: 'partnership', target }, null, opening),
      ).toMatchObject({
        ok: false,
        code: 'INVALID_TARGET',
      });
    }
    expect(
      ok(openTable('T', { id: 'h', name: 'h' }, { variant: 'partnership', target: 250 }, null, opening)).table
        .target,
    ).toBe(250);
  });

  it('P3: seats go by arrival, the host sits at seat 0, and the 4th arrival starts the match with a deal', () => {
    const table = fill(open(), ['p1', 'p2']);
    expect(table.seats.map((s) => s?.playerId ?? null)).toEqual(['p0', 'p1', 'p2', null]);
    expect(table.status).toBe('waiting');
    const started = ok(decide(table, envelope('p3', { kind: 'join' }, 'c3'), ctx()));
    expect(started.seat).toBe(3);
    expect(started.table.status).toBe('playing');
    expect(started.events.map((e) => e.kind)).toEqual(['seat-taken', 'match-started', 'round-dealt']);
    // P16: the opener has 45 s.
    expect(started.table.deadline).toMatchObject({
      kind: 'turn',
      at: 1_000_000 + 45_000,
      seat: started.table.match!.round!.opener,
    });
  });

  it('a full table refuses the next player; a seated player who comes back gets the same seat', () => {
    const table = fill(open(), ['p1', 'p2', 'p3']);
    expect(decide(table, envelope('p4', { kind: 'join' }), ctx())).toMatchObject({
      ok: false,
      code: 'TABLE_FULL',
    });
    expect(ok(decide(table, envelope('p2', { kind: 'join' }, 'another-socket'), ctx())).seat).toBe(2);
  });

  it('leaving before the start frees the seat for the next arrival, and the host role goes to the earliest-seated player', () => {
    let table = fill(open(), ['p1', 'p2']);
    table = step(table, envelope('p0', { kind: 'leave' }));
    expect(table.seats[0]).toBeNull();
    expect(table.hostPlayerId).toBe('p1');
    table = step(table, envelope('p9', { kind: 'join' }));
    expect(table.seats[0]?.playerId).toBe('p9');
    expect(table.hostPlayerId).toBe('p1');
  });

  it('P17: a turn that starts while its seat is disconnected gets 5 s; a drop mid-turn moves the deadline to min(current, now + 5 s); reconnecting gives nothing back', () => {
    let table = fill(open(), ['p1', 'p2', 'p3']);
    const turn = table.match!.round!.turn;
    const mover = table.seats[turn]!;
    // Mid-turn drop, 10 s into a 45 s turn.
    table = step(
      table,
      envelope(mover.playerId, { kind: 'presence', connected: false }, mover.connections[0]!),
      ctx(1_010_000),
    );
    expect(table.deadline!.at).toBe(1_015_000);
    table = step(table, envelope(mover.playerId, { kind: 'join' }, 'back-again'), ctx(1_011_000));
    expect(table.deadline!.at).toBe(1_015_000);
    // The next seat drops before its turn; its turn then lasts 5 s from its start.
    const nextSeat = (turn + 1) % 4;
    const next = table.seats[nextSeat]!;
    table = step(table, envelope(next.playerId, { kind: 'leave' }), ctx(1_012_000));
    const legal = table.match!.round!.turn === turn ? 'play' : 'none';
    expect(legal).toBe('play');
    const first = table.match!.round!.hands[turn]![0]!;
    table = step(
      table,
      envelope(mover.playerId, { kind: 'action', action: { type: 'play', seat: turn, tile: first } }),
      ctx(1_013_000),
    );
    expect(table.deadline).toMatchObject({ kind: 'turn', seat: nextSeat, at: 1_013_000 + 5_000 });
  });

  it('P17 with shortened clocks (tests, load tests): every deadline uses the configured durations', () => {
    const short: PolicyContext = {
      now: 1_000_000,
      rng: createSeededRng(1),
      durations: { turnMs: 3000, disconnectedTurnMs: 1000, breakMs: 2000 },
    };
    let table = fill(open(), ['p1', 'p2', 'p3'], short);
    expect(table.deadline!.at).toBe(1_003_000);
    const mover = table.seats[table.deadline!.seat!]!;
    table = step(
      table,
      envelope(mover.playerId, { kind: 'presence', connected: false }, mover.connections[0]!),
      { ...short, now: 1_000_500 },
    );
    expect(table.deadline!.at).toBe(1_001_500);
  });

  it('P16: at the deadline the table plays for the seat; a deadline whose key is out of date changes nothing', () => {
    const table = fill(open(), ['p1', 'p2', 'p3']);
    const stale = ok(decide(table, envelope(null, { kind: 'deadline', key: 'old', dueAt: 0 }), ctx()));
    expect(stale.events).toEqual([]);
    const fired = ok(
      decide(table, envelope(null, { kind: 'deadline', key: table.deadline!.key, dueAt: 0 }), ctx(1_045_000)),
    );
    expect(fired.events[0]).toMatchObject({ kind: 'action', payload: { by: 'deadline' } });
    expect(fired.table.match!.round!.board.placements).toHaveLength(1);
    expect(fired.table.deadline!.key).not.toBe(table.deadline!.key);
  });

  it('auto-pass: a seat that turned it on passes at once when it has no playable tile', () => {
    let table = fill(open(), ['p1', 'p2', 'p3']);
    for (const p of ['p0', 'p1', 'p2', 'p3'])
      table = step(table, envelope(p, { kind: 'autoPass', on: true }));
    // Play deadline moves until somebody is forced to pass: the pass comes by 'auto', never 'deadline'.
    for (let i = 0; i < 40 && table.match!.phase === 'playing'; i++) {
      table = step(
        table,
        envelope(null, { kind: 'deadline', key: table.deadline!.key, dueAt: 0 }),
        ctx(1_000_000 + i),
      );
    }
    const passes = table.match!.round!.log.filter((e) => e.type === 'pass');
    expect(passes.every((e) => e.by === 'auto')).toBe(true);
  });

  it('P18: only the host may cut the break short; the break deadline deals the next round by itself', () => {
    let table = fill(open(), ['p1', 'p2', 'p3']);
    for (let i = 0; table.match!.phase === 'playing'; i++) {
      table = step(
        table,
        envelope(null, { kind: 'deadline', key: table.deadline!.key, dueAt: 0 }),
        ctx(2_000_000 + i),
      );
    }
    expect(table.deadline).toMatchObject({ kind: 'break', seat: null });
    expect(decide(table, envelope('p1', { kind: 'startRound' }), ctx())).toMatchObject({
      ok: false,
      code: 'NOT_HOST',
    });
    const byHost = step(table, envelope('p0', { kind: 'startRound' }));
    expect(byHost.match!.round!.number).toBe(2);
    const byClock = step(table, envelope(null, { kind: 'deadline', key: table.deadline!.key, dueAt: 0 }));
    // P6: the seat after the previous opener opens round 2.
    expect(byClock.match!.round!.opener).toBe((table.match!.round!.opener + 1) % 4);
  });

  it('refuses intents from players without a seat, and new matches before the end', () => {
    const table = fill(open(), ['p1', 'p2', 'p3']);
    expect(
      decide(table, envelope('stranger', { kind: 'action', action: { type: 'pass', seat: 0 } }), ctx()),
    ).toMatchObject({
      ok: false,
      code: 'NOT_SEATED',
    });
    expect(decide(table, envelope('p0', { kind: 'newMatch' }), ctx())).toMatchObject({
      ok: false,
      code: 'MATCH_NOT_OVER',
    });
  });

  it("refuses a move named for a seat other than the player's own, and changes nothing", () => {
    const table = fill(open(), ['p1', 'p2', 'p3']);
    const turn = table.match!.round!.turn;
    const mover = table.seats[turn]!;
    const other = (turn + 1) % 4;
    const tile = table.match!.round!.hands[turn]![0]!;
    expect(
      decide(
        table,
        envelope(mover.playerId, { kind: 'action', action: { type: 'play', seat: other, tile } }),
        ctx(),
      ),
    ).toEqual({ ok: false, code: 'NOT_SEATED', message: `You sit at seat ${turn}, not seat ${other}.` });
  });

  it('a waiting table expires: its clock closes it WAITING_TABLE_TTL_MS after the opening, with a table-closed event; then joins get TABLE_CLOSED, every other intent too, and a seated player can still read it', () => {
    let table = fill(open(), ['p1']);
    expect(table.deadline).toEqual({ kind: 'expire', at: 1_000_000 + TTL_MS, key: '2', seat: null });
    // Comings and goings before the start leave the expiry as it was.
    table = step(table, envelope('p1', { kind: 'leave' }));
    expect(table.deadline).toMatchObject({ kind: 'expire', at: 1_000_000 + TTL_MS });
    const fired = ok(
      decide(table, envelope(null, { kind: 'deadline', key: '2', dueAt: 0 }), ctx(1_000_000 + TTL_MS)),
    );
    expect(fired.events).toEqual([
      { kind: 'table-closed', payload: { reason: 'expired', at: 1_000_000 + TTL_MS } },
    ]);
    expect(fired.table.status).toBe('closed');
    expect(fired.table.deadline).toBeNull();
    const closed = { ...fired.table, version: table.version + 1 };
    for (const [player, intent] of [
      ['p7', { kind: 'join' }],
      ['p0', { kind: 'join' }],
      ['p0', { kind: 'leave' }],
      ['p0', { kind: 'presence', connected: false }],
      ['p0', { kind: 'autoPass', on: true }],
      ['p0', { kind: 'newMatch' }],
    ] as const) {
      expect(decide(closed, envelope(player, intent, 'c0'), ctx())).toMatchObject({
        ok: false,
        code: 'TABLE_CLOSED',
      });
    }
    const sync = ok(decide(closed, envelope('p0', { kind: 'sync' }), ctx()));
    expect(sync).toMatchObject({ seat: 0, events: [] });
    expect(
      ok(decide(closed, envelope(null, { kind: 'deadline', key: '2', dueAt: 0 }), ctx())).events,
    ).toEqual([]);
  });

  it('a table whose seats fill in time starts: the first turn replaces the expiry, and the expiry key, fired late, changes nothing', () => {
    const table = fill(open(), ['p1', 'p2', 'p3']);
    expect(table.status).toBe('playing');
    expect(table.deadline?.kind).toBe('turn');
    const late = ok(
      decide(table, envelope(null, { kind: 'deadline', key: '2', dueAt: 0 }), ctx(1_000_000 + TTL_MS)),
    );
    expect(late.events).toEqual([]);
    expect(late.table.status).toBe('playing');
  });

  it(`a seat keeps at most ${CONNECTIONS_KEPT_PER_SEAT} connection ids, the newest: 500 sockets of one identity do not grow the stored state`, () => {
    let table = open();
    const before = JSON.stringify(table).length;
    for (let i = 0; i < 500; i++)
      table = step(table, envelope('p0', { kind: 'join' }, `gw${i % 3}:${1_000_000 + i}`));
    const seat = table.seats[0]!;
    expect(seat.connections).toEqual(
      Array.from({ length: CONNECTIONS_KEPT_PER_SEAT }, (_, k) => {
        const i = 500 - CONNECTIONS_KEPT_PER_SEAT + k;
        return `gw${i % 3}:${1_000_000 + i}`;
      }),
    );
    // 8 ids of ~16 characters, and the recent intent ids (64 at most): bounded, whatever the sockets.
    expect(JSON.stringify(table).length - before).toBeLessThan(1_000);
    // The newest socket closing leaves the seat connected through the others it keeps.
    const last = seat.connections.at(-1)!;
    table = step(table, envelope('p0', { kind: 'presence', connected: false }, last));
    expect(table.seats[0]!.connections).toHaveLength(CONNECTIONS_KEPT_PER_SEAT - 1);
  });
});

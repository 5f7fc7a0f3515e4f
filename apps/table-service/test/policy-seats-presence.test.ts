import { createSeededRng, legalActions, RULE_DURATIONS } from '@dominoes/rules';
import type { IntentEnvelope, TableIntent } from '@dominoes/protocol';
import { decide, openTable, type PolicyContext } from '../src/table/table-policy';
import { RECENT_INTENTS_KEPT, type TableState } from '../src/table/table-state';
import { tableView } from '../src/table/table-views';
import { accepted, policyEnvelopes } from './support/policy-intents';

/**
 * The table policy's seats, presence, host hand-over, refusals and no-op intents, each with the
 * events it writes (the mutation run's survivors in table-policy.ts with the policy's unit suites,
 * docs/testing.md). P3 seating, P16/P17 clocks, decision 0017 abandonment.
 */
const NOW = 1_000_000;
const ctx = (now = NOW, extra: Partial<PolicyContext> = {}): PolicyContext => ({
  now,
  rng: createSeededRng(3),
  durations: RULE_DURATIONS,
  ...extra,
});
const envelope = policyEnvelopes('SEATS1', 's');
const as = (player: string | null, intent: TableIntent, connection: string | null = `c-${player}`) =>
  envelope(player, intent, connection);

/** Stores a decision as the engine does (the version grows by its events). */
const after = (table: TableState, e: IntentEnvelope, c = ctx()) => {
  const d = accepted(decide(table, e, c));
  return { d, table: { ...d.table, version: table.version + d.events.length } };
};
const opened = (
  config: Parameters<typeof openTable>[2] = { variant: 'draw', seats: 3 },
  connection: string | null = 'c-h',
) => {
  const d = accepted(
    openTable('SEATS1', { id: 'h', name: 'Host' }, config, connection, {
      now: NOW,
      waitingTableTtlMs: 60_000,
    }),
  );
  return { ...d.table, version: d.events.length };
};
const seatedAll = (players = ['a', 'b']) =>
  players.reduce((t, p) => after(t, as(p, { kind: 'join' })).table, opened());
const refusal = (table: TableState, e: IntentEnvelope, c = ctx()) => {
  const d = decide(table, e, c);
  if (d.ok) throw new Error('accepted');
  return { code: d.code, message: d.message };
};

describe('opening a table', () => {
  it('the host sits at seat 0 with its connection, auto-pass off, arrival 1; private unless asked public', () => {
    const table = opened();
    expect(table.seats[0]).toEqual({
      playerId: 'h',
      name: 'Host',
      connections: ['c-h'],
      autoPass: false,
      arrival: 1,
    });
    expect(table).toMatchObject({ public: false, recentIntents: [], hostPlayerId: 'h', arrivals: 1 });
    expect(opened({ variant: 'draw', seats: 3, public: true }).public).toBe(true);
    expect(opened({ variant: 'draw', seats: 3 }, null).seats[0]!.connections).toEqual([]);
  });
});

describe('P3: seats, re-joins and the host', () => {
  it('a joiner gets the lowest free seat, with its connection, auto-pass off, the next arrival', () => {
    const { d, table } = after(opened(), as('a', { kind: 'join' }));
    expect(d.seat).toBe(1);
    expect(table.seats[1]).toEqual({
      playerId: 'a',
      name: 'a',
      connections: ['c-a'],
      autoPass: false,
      arrival: 2,
    });
    expect(table.arrivals).toBe(2);
    expect(d.events).toEqual([{ kind: 'seat-taken', seat: 1, payload: { playerId: 'a', name: 'a' } }]);
    expect(after(opened(), as('a', { kind: 'join' }, null)).table.seats[1]!.connections).toEqual([]);
  });

  it('a seated player joining again from a new connection keeps the seat and says so (presence)', () => {
    const table = after(opened(), as('a', { kind: 'join' })).table;
    const again = after(table, as('a', { kind: 'join' }, 'c-a2'));
    expect(again.d.seat).toBe(1);
    expect(again.table.seats[1]!.connections).toEqual(['c-a', 'c-a2']);
    expect(again.d.events).toEqual([
      { kind: 'presence', seat: 1, payload: { connected: true, connections: 2 } },
    ]);
  });

  it('a re-join from a connection the seat has, or from none, changes nothing and writes nothing', () => {
    const table = after(opened(), as('a', { kind: 'join' })).table;
    for (const connection of ['c-a', null]) {
      const d = accepted(decide(table, as('a', { kind: 'join' }, connection), ctx()));
      expect(d.events).toEqual([]);
      expect(d.seat).toBe(1);
      expect(d.table).toBe(table);
    }
  });

  it('a player joining a table whose seats are all taken is refused TABLE_FULL', () => {
    const table = seatedAll();
    expect(table.status).toBe('playing');
    expect(refusal(table, as('x', { kind: 'join' }))).toEqual({
      code: 'TABLE_FULL',
      message: 'Every seat at this table is taken.',
    });
  });

  it('leaving while waiting frees the seat; the host role goes to the earliest arrival left, not the lowest seat', () => {
    // a (arrival 2) leaves seat 1; c arrives (4) and takes seat 1; b (3) sits at seat 2.
    let table = opened({ variant: 'partnership' });
    for (const p of ['a', 'b']) table = after(table, as(p, { kind: 'join' })).table;
    const left = after(table, as('a', { kind: 'leave' }));
    expect(left.d.events).toEqual([{ kind: 'seat-freed', seat: 1, payload: { playerId: 'a' } }]);
    table = after(left.table, as('c', { kind: 'join' })).table;
    expect(table.seats.map((s) => s?.playerId ?? null)).toEqual(['h', 'c', 'b', null]);
    const hostLeft = after(table, as('h', { kind: 'leave' }));
    expect(hostLeft.table.hostPlayerId).toBe('b');
    expect(hostLeft.d.events).toEqual([
      { kind: 'seat-freed', seat: 0, payload: { playerId: 'h' } },
      { kind: 'host-changed', payload: { hostPlayerId: 'b' } },
    ]);
    // A player other than the host leaving hands nothing over.
    expect(after(table, as('c', { kind: 'leave' })).d.events.map((e) => e.kind)).toEqual(['seat-freed']);
  });

  it('the last player leaving leaves no host; the next joiner becomes the host', () => {
    const empty = after(opened(), as('h', { kind: 'leave' }));
    expect(empty.table.hostPlayerId).toBeNull();
    expect(empty.d.events.at(-1)).toEqual({ kind: 'host-changed', payload: { hostPlayerId: null } });
    const joined = after(empty.table, as('z', { kind: 'join' }));
    expect(joined.d.seat).toBe(0);
    expect(joined.table.hostPlayerId).toBe('z');
    expect(joined.d.events).toEqual([
      { kind: 'seat-taken', seat: 0, payload: { playerId: 'z', name: 'z' } },
      { kind: 'host-changed', payload: { hostPlayerId: 'z' } },
    ]);
  });
});

describe('presence and P17', () => {
  const mover = (table: TableState) => table.match!.round!.turn;
  const playerAt = (table: TableState, seat: number) => table.seats[seat]!.playerId;

  it('a dropped connection writes presence with what is left; an unknown one changes nothing', () => {
    let table = seatedAll();
    table = after(table, as('a', { kind: 'join' }, 'c-a2')).table;
    const one = after(table, as('a', { kind: 'presence', connected: false }, 'c-a2'));
    expect(one.d.events).toEqual([
      { kind: 'presence', seat: 1, payload: { connected: true, connections: 1 } },
    ]);
    const none = after(one.table, as('a', { kind: 'presence', connected: false }, 'c-a'));
    expect(none.d.events).toEqual([
      { kind: 'presence', seat: 1, payload: { connected: false, connections: 0 } },
    ]);
    const unknown = accepted(
      decide(none.table, as('a', { kind: 'presence', connected: false }, 'c-zz'), ctx()),
    );
    expect(unknown.events).toEqual([]);
    expect(unknown.table).toBe(none.table);
    // A presence "connected" or one without a connection id drops nothing.
    for (const e of [
      as('b', { kind: 'presence', connected: true }),
      as('b', { kind: 'presence', connected: false }, null),
    ])
      expect(accepted(decide(none.table, e, ctx())).events).toEqual([]);
  });

  it('P17: the mover dropping has min(deadline, now + 5 s); another seat dropping leaves the mover\u2019s deadline alone', () => {
    const table = seatedAll();
    const seat = mover(table);
    const before = table.deadline!;
    expect(before).toMatchObject({ kind: 'turn', seat, at: NOW + 45_000 });
    const other = (seat + 1) % 3;
    const otherDrop = after(
      table,
      as(playerAt(table, other), { kind: 'presence', connected: false }, `c-${playerAt(table, other)}`),
      ctx(NOW + 10_000),
    );
    expect(otherDrop.table.deadline).toEqual(before);
    const moverDrop = after(
      table,
      as(playerAt(table, seat), { kind: 'presence', connected: false }, `c-${playerAt(table, seat)}`),
      ctx(NOW + 10_000),
    );
    expect(moverDrop.table.deadline).toMatchObject({ kind: 'turn', seat, at: NOW + 15_000 });
    expect(moverDrop.table.deadline!.key).not.toBe(before.key);
    // Dropping with less than 5 s left keeps the deadline as it was (same key).
    const late = after(
      table,
      as(playerAt(table, seat), { kind: 'presence', connected: false }, `c-${playerAt(table, seat)}`),
      ctx(NOW + 43_000),
    );
    expect(late.table.deadline).toEqual(before);
  });

  it('P17: a mover coming back gets no time back', () => {
    const table = seatedAll();
    const seat = mover(table);
    const id = playerAt(table, seat);
    const dropped = after(
      table,
      as(id, { kind: 'presence', connected: false }, `c-${id}`),
      ctx(NOW + 1000),
    ).table;
    const back = after(dropped, as(id, { kind: 'join' }, `c-${id}-2`), ctx(NOW + 2000));
    expect(back.table.deadline).toEqual(dropped.deadline);
    expect(back.d.events).toEqual([{ kind: 'presence', seat, payload: { connected: true, connections: 1 } }]);
  });

  it('P17: the clock says when a turn is a disconnected seat\u2019s short one (a drop during it, or a turn that starts with its seat away), and a return keeps it said; a whole turn never says it', () => {
    const table = seatedAll();
    const seat = mover(table);
    const id = playerAt(table, seat);
    expect(table.deadline).not.toHaveProperty('shortened');
    expect(tableView(table, seat).clock).toEqual({ kind: 'turn', seat, deadline: NOW + 45_000 });
    const dropped = after(table, as(id, { kind: 'presence', connected: false }, `c-${id}`), ctx(NOW + 1000));
    expect(tableView(dropped.table, seat).clock).toEqual({
      kind: 'turn',
      seat,
      deadline: NOW + 6000,
      shortened: true,
    });
    const back = after(dropped.table, as(id, { kind: 'join' }, `c-${id}-2`), ctx(NOW + 2000));
    expect(tableView(back.table, seat).clock).toMatchObject({ deadline: NOW + 6000, shortened: true });
    // Dropping with less than 5 s left changes nothing, so nothing is said.
    const late = after(table, as(id, { kind: 'presence', connected: false }, `c-${id}`), ctx(NOW + 43_000));
    expect(late.table.deadline).not.toHaveProperty('shortened');
    // The next seat away when its turn starts: a 5 s turn, said.
    const next = (seat + 1) % 3;
    const nextId = playerAt(table, next);
    const away = after(table, as(nextId, { kind: 'presence', connected: false }, `c-${nextId}`)).table;
    const legal = legalActions(away.match!, seat).find((a) => a.type === 'play')!;
    const moved = after(away, as(id, { kind: 'action', action: legal } as TableIntent)).table;
    expect(moved.match!.round!.turn).toBe(next);
    expect(moved.deadline).toMatchObject({ kind: 'turn', seat: next, at: NOW + 5000, shortened: true });
    expect(tableView(moved, seat).clock).toMatchObject({ seat: next, shortened: true });
  });
});

describe('auto-pass', () => {
  it('turning it on writes auto-pass; turning on what is already on changes nothing', () => {
    const table = seatedAll();
    const seat = (table.match!.round!.turn + 1) % 3;
    const id = table.seats[seat]!.playerId;
    const on = after(table, as(id, { kind: 'autoPass', on: true }));
    expect(on.table.seats[seat]!.autoPass).toBe(true);
    expect(on.d.events[0]).toEqual({ kind: 'auto-pass', seat, payload: { on: true } });
    const again = accepted(decide(on.table, as(id, { kind: 'autoPass', on: true }), ctx()));
    expect(again.events).toEqual([]);
    expect(again.table).toBe(on.table);
  });

  it("a seat off its turn turning it on leaves the mover's clock running on (same deadline)", () => {
    const table = seatedAll();
    const seat = (table.match!.round!.turn + 1) % 3;
    const on = after(
      table,
      as(table.seats[seat]!.playerId, { kind: 'autoPass', on: true }),
      ctx(NOW + 20_000),
    );
    expect(on.d.events.map((e) => e.kind)).toEqual(['auto-pass']);
    expect(on.table.deadline).toEqual(table.deadline);
  });

  it('turning it on while the table waits needs no clock', () => {
    const table = after(opened(), as('a', { kind: 'join' })).table;
    const on = after(table, as('a', { kind: 'autoPass', on: true }));
    expect(on.d.events).toEqual([{ kind: 'auto-pass', seat: 1, payload: { on: true } }]);
    expect(on.table.deadline).toEqual(table.deadline);
  });
});

describe('refusals change nothing and say why', () => {
  it('a create intent for an existing table: TABLE_CODE_TAKEN; an intent without a player: UNAUTHENTICATED', () => {
    const table = opened();
    expect(refusal(table, as('h', { kind: 'create' } as unknown as TableIntent))).toMatchObject({
      code: 'TABLE_CODE_TAKEN',
    });
    expect(refusal(table, as(null, { kind: 'join' }))).toEqual({
      code: 'UNAUTHENTICATED',
      message: 'This intent needs a player.',
    });
  });

  it('NOT_SEATED for a stranger; watching is not a change; sync by a seat is a no-op', () => {
    const table = opened();
    expect(refusal(table, as('x', { kind: 'sync' }))).toEqual({
      code: 'NOT_SEATED',
      message: 'You have no seat at this table.',
    });
    expect(refusal(table, as('h', { kind: 'watch' } as TableIntent))).toEqual({
      code: 'NOT_ALLOWED_NOW',
      message: 'Watching is not a change of the table.',
    });
    const sync = accepted(decide(table, as('h', { kind: 'sync' }), ctx()));
    expect(sync).toEqual({ ok: true, table, events: [], seat: 0 });
  });

  it('startRound and newMatch: NOT_HOST for another seat, NOT_ALLOWED_NOW / MATCH_NOT_OVER when not their time', () => {
    const table = seatedAll();
    expect(refusal(table, as('a', { kind: 'startRound' }))).toEqual({
      code: 'NOT_HOST',
      message: 'Only the host can start the next round.',
    });
    expect(refusal(table, as('h', { kind: 'startRound' }))).toEqual({
      code: 'NOT_ALLOWED_NOW',
      message: 'There is no break to cut short.',
    });
    expect(refusal(table, as('a', { kind: 'newMatch' }))).toEqual({
      code: 'NOT_HOST',
      message: 'Only the host can start a new match.',
    });
    expect(refusal(table, as('h', { kind: 'newMatch' }))).toEqual({
      code: 'MATCH_NOT_OVER',
      message: 'The match is not over yet.',
    });
  });

  it('an action before the match: NO_ROUND_IN_PLAY; an illegal action: the rules\u2019 code, nothing changes', () => {
    const waiting = opened();
    expect(
      refusal(waiting, as('h', { kind: 'action', action: { type: 'pass', seat: 0 } } as TableIntent)),
    ).toEqual({
      code: 'NO_ROUND_IN_PLAY',
      message: 'No round is in play.',
    });
    const table = seatedAll();
    const seat = table.match!.round!.turn;
    const other = (seat + 1) % 3;
    const id = table.seats[other]!.playerId;
    const wrongTurn = refusal(
      table,
      as(id, { kind: 'action', action: { type: 'pass', seat: other } } as TableIntent),
    );
    expect(wrongTurn.code).toBe('NOT_YOUR_TURN');
    // The mover's legal move is accepted, written as an action by the player.
    const legal = legalActions(table.match!, seat)[0]!;
    const moved = accepted(
      decide(table, as(table.seats[seat]!.playerId, { kind: 'action', action: legal } as TableIntent), ctx()),
    );
    expect(moved.events[0]).toMatchObject({ kind: 'action', seat, payload: { action: legal, by: 'player' } });
  });

  it('a closed table: TABLE_CLOSED with its reason, but its seated players may still sync', () => {
    const table = opened();
    const expired = after(
      table,
      as(null, { kind: 'deadline', key: table.deadline!.key, dueAt: 0 }),
      ctx(NOW + 60_000),
    ).table;
    expect(expired).toMatchObject({ status: 'closed', closedReason: 'expired', deadline: null });
    expect(refusal(expired, as('x', { kind: 'join' }))).toEqual({
      code: 'TABLE_CLOSED',
      message: 'This table was closed: nobody took the free seats in time.',
    });
    expect(refusal(expired, as('h', { kind: 'leave' }))).toMatchObject({ code: 'TABLE_CLOSED' });
    expect(accepted(decide(expired, as('h', { kind: 'sync' }), ctx()))).toMatchObject({
      seat: 0,
      events: [],
    });
    expect(refusal(expired, as('x', { kind: 'sync' }))).toMatchObject({ code: 'TABLE_CLOSED' });
  });
});

describe('deadlines that no longer apply, and the intents kept', () => {
  it('an expiry firing after the table started changes nothing', () => {
    const waiting = opened();
    const key = waiting.deadline!.key;
    const playing = seatedAll();
    const d = accepted(
      decide(
        { ...playing, deadline: { ...waiting.deadline!, key } },
        as(null, { kind: 'deadline', key, dueAt: 0 }),
        ctx(),
      ),
    );
    expect(d.events).toEqual([]);
  });

  it('decision 0017: an abandonment firing while a seat is connected, or on a table not playing, changes nothing', () => {
    const playing = seatedAll();
    const abandon = { kind: 'abandon' as const, at: NOW, seat: null, key: 'ab' };
    const e = as(null, { kind: 'deadline', key: 'ab', dueAt: NOW });
    expect(accepted(decide({ ...playing, deadline: abandon }, e, ctx())).events).toEqual([]);
    expect(accepted(decide({ ...opened(), deadline: abandon }, e, ctx())).events).toEqual([]);
  });

  it('decision 0017: with nobody connected the abandonment is due ABANDONED_TABLE_MS later (2 min by default) and stays put', () => {
    let table = seatedAll();
    for (const p of ['h', 'a', 'b'])
      table = after(table, as(p, { kind: 'presence', connected: false })).table;
    expect(table.deadline).toMatchObject({ kind: 'abandon', at: NOW + 120_000 });
    let custom = seatedAll();
    for (const p of ['h', 'a', 'b'])
      custom = after(
        custom,
        as(p, { kind: 'presence', connected: false }),
        ctx(NOW, { abandonedTableMs: 5_000 }),
      ).table;
    expect(custom.deadline).toMatchObject({ kind: 'abandon', at: NOW + 5_000 });
    // A change while nobody is connected (a seat's auto-pass, forced passes and all) keeps that deadline.
    const seat = table.match!.round!.turn;
    const on = after(
      table,
      as(table.seats[seat]!.playerId, { kind: 'autoPass', on: true }, null),
      ctx(NOW + 30_000),
    );
    expect(on.d.events.length).toBeGreaterThan(0);
    expect(on.table.deadline).toEqual(table.deadline);
  });

  it('the intents kept are the newest RECENT_INTENTS_KEPT of those that changed something', () => {
    let table = opened();
    const ids: string[] = [];
    for (let i = 0; i < RECENT_INTENTS_KEPT + 3; i++) {
      const e = as('h', { kind: 'autoPass', on: i % 2 === 0 });
      ids.push(e.intentId);
      table = after(table, e).table;
    }
    expect(table.recentIntents).toEqual(ids.slice(-RECENT_INTENTS_KEPT));
    const noop = accepted(decide(table, as('h', { kind: 'sync' }), ctx()));
    expect(noop.table.recentIntents).toBe(table.recentIntents);
  });
});

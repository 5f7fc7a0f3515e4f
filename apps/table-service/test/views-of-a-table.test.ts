import {
  createSeededRng,
  publicView,
  RULE_DURATIONS,
  rulesOf,
  seatView,
  seatViewsSharePublicView,
} from '@dominoes/rules';
import { eventMatch, eventRound, eventSeat, type TableEvent } from '../src/table/table-events';
import { decide, openTable } from '../src/table/table-policy';
import { isConnected, type TableState } from '../src/table/table-state';
import {
  occupiedSeats,
  seatMessages,
  seatViewTexts,
  spectatorView,
  tableView,
} from '../src/table/table-views';
import { applyViewChange, ViewChangeSchema } from '@dominoes/protocol';
import { accepted, policyEnvelopes } from './support/policy-intents';
import { playByDeadlines } from './support/policy-play';

/**
 * What a seat and a spectator are shown of a table (table-views.ts; the mutation run's survivors,
 * docs/testing.md): the host's seat, every seat's name, presence and side, the clock, a closed
 * table's reason, the seat's own part; and the event field readers of table-events.ts.
 */
const NOW = 1_000_000;
const envelope = policyEnvelopes('VIEWS1', 'v');
const ctx = { now: NOW, rng: createSeededRng(9), durations: RULE_DURATIONS };
const open = (): TableState => {
  const d = accepted(
    openTable('VIEWS1', { id: 'h', name: 'Host' }, { variant: 'partnership', target: 150 }, 'c-h', {
      now: NOW,
      waitingTableTtlMs: 60_000,
    }),
  );
  return { ...d.table, version: d.events.length };
};
const join = (table: TableState, player: string, connection: string | null = `c-${player}`) =>
  accepted(decide(table, envelope(player, { kind: 'join' }, connection), ctx)).table;

describe('the view of a table', () => {
  it("a waiting table: the host's seat, each seat's name, presence and side, the expiry clock, the seat's own part", () => {
    const table = join(open(), 'a', null);
    const rules = rulesOf('partnership');
    const view = tableView(table, 1, 2);
    expect(view).toMatchObject({
      tableId: 'VIEWS1',
      variant: 'partnership',
      seatCount: 4,
      target: 150,
      oneRound: false,
      status: 'waiting',
      hostSeat: 0,
      matchNumber: 0,
      clock: { kind: 'expire', seat: null, deadline: NOW + 60_000 },
      you: { seat: 1, playerId: 'a', autoPass: false },
      game: null,
      watchers: 2,
    });
    expect(view.seats).toEqual([
      { seat: 0, name: 'Host', connected: true, side: rules.sideOf(0) },
      { seat: 1, name: 'a', connected: false, side: rules.sideOf(1) },
      null,
      null,
    ]);
    expect(view).not.toHaveProperty('closedReason');
  });

  it('the host at another seat is shown there; a table with no host shows none', () => {
    let table = join(join(open(), 'a'), 'b');
    table = accepted(decide(table, envelope('h', { kind: 'leave' }, 'c-h'), ctx)).table;
    expect(table.hostPlayerId).toBe('a');
    expect(tableView(table, 1).hostSeat).toBe(1);
    const moved = { ...table, hostPlayerId: 'b' };
    expect(tableView(moved, 1).hostSeat).toBe(2);
    expect(tableView({ ...table, hostPlayerId: null }, 1).hostSeat).toBeNull();
    expect(tableView({ ...table, hostPlayerId: 'nobody' }, 1).hostSeat).toBeNull();
  });

  it("an empty seat's own part is no player, auto-pass off; a seated one's is its player and auto-pass", () => {
    const table = open();
    expect(tableView(table, 3).you).toEqual({ seat: 3, playerId: '', autoPass: false });
    const on = accepted(decide(table, envelope('h', { kind: 'autoPass', on: true }, 'c-h'), ctx)).table;
    expect(tableView(on, 0).you).toEqual({ seat: 0, playerId: 'h', autoPass: true });
  });

  it('a closed table says why (expired when the reason is unknown); an open one says nothing', () => {
    const table = open();
    expect(tableView({ ...table, status: 'closed', closedReason: 'abandoned' }, 0).closedReason).toBe(
      'abandoned',
    );
    expect(tableView({ ...table, status: 'closed', closedReason: undefined }, 0).closedReason).toBe(
      'expired',
    );
    expect(spectatorView({ ...table, status: 'closed', closedReason: 'expired' }, 0)).toMatchObject({
      status: 'closed',
      closedReason: 'expired',
    });
  });

  it("a playing table: the seat's view of the match for the seat, the public view for a spectator (P10, P12)", () => {
    const table = ['a', 'b', 'c'].reduce((t, p) => join(t, p), open());
    expect(table.status).toBe('playing');
    expect(tableView(table, 2).game).toEqual(seatView(table.match!, 2));
    const spectator = spectatorView(table, 5);
    expect(spectator.game).toEqual(publicView(table.match!));
    expect(spectator).toMatchObject({ watchers: 5, hostSeat: 0, status: 'playing', matchNumber: 1 });
    expect(spectator).not.toHaveProperty('you');
    expect(spectator.seats.map((s) => s?.name)).toEqual(['Host', 'a', 'b', 'c']);
    expect(spectatorView(open(), 0).game).toBeNull();
  });

  it('the occupied seats are those someone sits in, in order', () => {
    expect(occupiedSeats(open())).toEqual([0]);
    expect(occupiedSeats(join(join(open(), 'a'), 'b'))).toEqual([0, 1, 2]);
    const freed = accepted(decide(join(open(), 'a'), envelope('h', { kind: 'leave' }, 'c-h'), ctx)).table;
    expect(occupiedSeats(freed)).toEqual([1]);
  });

  it('a seat is connected while it has a connection', () => {
    expect(isConnected(null)).toBe(false);
    const seat = open().seats[0]!;
    expect(isConnected(seat)).toBe(true);
    expect(isConnected({ ...seat, connections: [] })).toBe(false);
  });
});

describe('the fields an event is filed under', () => {
  it('seat, match and round when the event has them, null otherwise', () => {
    const action = {
      kind: 'action',
      seat: 2,
      matchNumber: 3,
      roundNumber: 4,
      payload: { action: { type: 'pass', seat: 2 }, by: 'player' },
    } as TableEvent;
    expect([eventSeat(action), eventMatch(action), eventRound(action)]).toEqual([2, 3, 4]);
    const hostChanged: TableEvent = { kind: 'host-changed', payload: { hostPlayerId: null } };
    expect([eventSeat(hostChanged), eventMatch(hostChanged), eventRound(hostChanged)]).toEqual([
      null,
      null,
      null,
    ]);
    const seatTaken: TableEvent = { kind: 'seat-taken', seat: 0, payload: { playerId: 'p', name: 'p' } };
    expect(eventSeat(seatTaken)).toBe(0);
  });
});

describe("a change's seat views as published (seatViewTexts, issue 14)", () => {
  const finished = (t: TableState) => t.status === 'finished';
  const games = [
    { variant: 'partnership' as const, target: 50 },
    { variant: 'draw' as const, seats: 3, target: 50 },
    { variant: 'five-tile' as const, seats: 4, target: 100 },
  ];

  it.each(games)(
    'every seat view of every state of a whole $variant match is byte for byte JSON.stringify(tableView), shared part or not',
    (config) => {
      const players = ['a', 'b', 'c'].slice(0, (config.seats ?? 4) - 1);
      const { states } = playByDeadlines(config, players, finished);
      let shared = 0;
      for (const [i, table] of states.entries()) {
        const seats = occupiedSeats(table);
        const watchers = i % 3;
        expect(seatViewTexts(table, seats, watchers)).toEqual(
          seats.map((seat) => JSON.stringify(tableView(table, seat, watchers))),
        );
        if (!table.match || seatViewsSharePublicView(table.match)) shared += 1;
      }
      // Both ways are taken in the draw games (a seat's own draws), only the shared one in partnership.
      if (config.variant === 'partnership') expect(shared).toBe(states.length);
      else expect(shared).toBeLessThan(states.length);
      expect(shared).toBeGreaterThan(0);
    },
  );

  it("each message's header names its seat, version, player and cause, and its view is that seat's", () => {
    const { final } = playByDeadlines(
      { variant: 'partnership', target: 50 },
      ['a', 'b', 'c'],
      (t) => t.version > 20,
    );
    const cause = { intentId: 'x1', sentAt: 7 };
    const messages = seatMessages(
      final,
      [2, 0],
      1,
      cause,
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    );
    expect(messages.map((m) => m.header)).toEqual([
      {
        tableId: 'MATCH1',
        seat: 2,
        version: final.version,
        playerId: 'b',
        cause,
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      },
      {
        tableId: 'MATCH1',
        seat: 0,
        version: final.version,
        playerId: 'h',
        cause,
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      },
    ]);
    expect(JSON.parse(messages[0]!.viewJson)).toEqual(tableView(final, 2, 1));
    expect(seatMessages(final, [1], 0, null)[0]!.header).not.toHaveProperty('traceparent');
  });
});

describe("a change's seat views as changes (seatMessages with the state before, decision 0036)", () => {
  const finished = (t: TableState) => t.status === 'finished';
  it.each([
    { variant: 'partnership' as const, target: 50 },
    { variant: 'draw' as const, seats: 3, target: 50 },
    { variant: 'five-tile' as const, seats: 4, target: 100 },
  ])(
    'through a whole $variant match, each change applied to the seat view before is the seat view after, key for key, and it is a fraction of the view',
    (config) => {
      const players = ['a', 'b', 'c'].slice(0, (config.seats ?? 4) - 1);
      const { states } = playByDeadlines(config, players, finished);
      let changeBytes = 0;
      let viewBytes = 0;
      let changes = 0;
      for (let i = 1; i < states.length; i += 1) {
        const [before, after] = [states[i - 1]!, states[i]!];
        const watchers = i % 3;
        const seats = occupiedSeats(after);
        const messages = seatMessages(after, seats, watchers, null, undefined, before);
        messages.forEach((message, k) => {
          const seat = seats[k]!;
          const whole = JSON.stringify(tableView(after, seat, watchers));
          viewBytes += whole.length;
          if (message.header.base === undefined) {
            expect(message.viewJson).toBe(whole);
            changeBytes += whole.length;
            return;
          }
          changes += 1;
          changeBytes += message.viewJson.length;
          expect(message.header.base).toBe(before.version);
          const change = ViewChangeSchema.parse(JSON.parse(message.viewJson));
          const held = tableView(before, seat, (i + 1) % 3);
          expect(applyViewChange(held, change)).toEqual(JSON.parse(whole));
        });
      }
      expect(changes).toBeGreaterThan(states.length);
      expect(changeBytes).toBeLessThan(viewBytes / 3);
    },
  );

  it('a seat that changed hands, or was empty before, gets its whole view; the others a change', () => {
    const before = join(open(), 'a');
    const after = join(before, 'b');
    const messages = seatMessages(after, occupiedSeats(after), 0, null, undefined, before);
    expect(messages.map((m) => m.header.base)).toEqual([before.version, before.version, undefined]);
    expect(JSON.parse(messages[2]!.viewJson)).toEqual(tableView(after, 2, 0));
    const freed = accepted(decide(after, envelope('b', { kind: 'leave' }, 'c-b'), ctx)).table;
    const retaken = join(freed, 'z');
    const again = seatMessages(retaken, [2], 0, null, undefined, after);
    expect(again[0]!.header).not.toHaveProperty('base');
  });

  it('without the state before (a publish tried again), every view is whole', () => {
    const table = join(join(open(), 'a'), 'b');
    expect(seatMessages(table, [0, 1, 2], 1, null).every((m) => m.header.base === undefined)).toBe(true);
  });
});

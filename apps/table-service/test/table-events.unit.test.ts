import { eventMatch, eventRound, eventSeat, type TableEvent } from '../src/table/table-events';

/** The log row's seat, match and round columns of each event (table_actions; the store reads these). */
describe("a table event's seat, match and round", () => {
  const seatTaken: TableEvent = { kind: 'seat-taken', seat: 2, payload: { playerId: 'p', name: 'n' } };
  const matchStarted: TableEvent = {
    kind: 'match-started',
    matchNumber: 3,
    payload: { config: {} as never, players: [] },
  };
  const roundEnded: TableEvent = {
    kind: 'round-ended',
    matchNumber: 4,
    roundNumber: 5,
    payload: { result: {} as never, scores: [], opener: 0 },
  };
  const closed: TableEvent = { kind: 'table-closed', payload: { reason: 'expired', at: 1 } };

  it('the seat of an event about a seat, else null (seat 0 included)', () => {
    expect(eventSeat(seatTaken)).toBe(2);
    expect(eventSeat({ kind: 'auto-pass', seat: 0, payload: { on: true } })).toBe(0);
    expect(eventSeat(matchStarted)).toBeNull();
    expect(eventSeat(closed)).toBeNull();
  });

  it('the match number of an event of a match, else null', () => {
    expect(eventMatch(matchStarted)).toBe(3);
    expect(eventMatch(roundEnded)).toBe(4);
    expect(eventMatch(seatTaken)).toBeNull();
  });

  it('the round number of an event of a round, else null', () => {
    expect(eventRound(roundEnded)).toBe(5);
    expect(eventRound(matchStarted)).toBeNull();
    expect(eventRound(closed)).toBeNull();
  });
});

/**
 * Deadline arithmetic: P16 (45 s turns), P17 (5 s for a disconnected seat, nothing given back), P18
 * (30 s break). Starting the next round early is the host's, through the table service; the library's
 * part is that a new round may be started at any time between rounds.
 */
import {
  breakDeadline,
  createSeededRng,
  deadlineAfterDisconnect,
  deadlineAfterReconnect,
  RULE_DURATIONS,
  startRound,
  turnDeadline,
} from '@dominoes/rules';
import { blockingHands, blockingPlays, deal, must, newMatch, round, steps } from './helpers';

const T0 = 1_700_000_000_000;

describe('timing', () => {
  it('P16 a turn lasts at most 45 s', () => {
    expect(RULE_DURATIONS.turnMs).toBe(45_000);
    expect(turnDeadline(T0, true)).toBe(T0 + 45_000);
    expect(turnDeadline(0, true)).toBe(45_000);
  });

  it('P17 a turn that starts while the seat is disconnected ends 5 s after it started', () => {
    expect(RULE_DURATIONS.disconnectedTurnMs).toBe(5_000);
    expect(turnDeadline(T0, false)).toBe(T0 + 5_000);
  });

  it('P17 a seat that disconnects during its turn: deadline = min(current deadline, disconnect time + 5 s)', () => {
    const current = turnDeadline(T0, true); // T0 + 45 s
    // Drops 10 s in: 5 s left from the drop, far less than the 35 s it had.
    expect(deadlineAfterDisconnect(current, T0 + 10_000)).toBe(T0 + 15_000);
    // Drops 42 s in: 3 s were left, fewer than 5: the deadline stays.
    expect(deadlineAfterDisconnect(current, T0 + 42_000)).toBe(current);
    // Exactly 5 s left: either way the same instant.
    expect(deadlineAfterDisconnect(current, T0 + 40_000)).toBe(current);
    // A second drop cannot lengthen a deadline a first drop already shortened.
    const once = deadlineAfterDisconnect(current, T0 + 1_000);
    expect(deadlineAfterDisconnect(once, T0 + 3_000)).toBe(T0 + 6_000);
  });

  it('P17 reconnecting gives no time back', () => {
    const current = turnDeadline(T0, true);
    const shortened = deadlineAfterDisconnect(current, T0 + 2_000);
    expect(shortened).toBe(T0 + 7_000);
    expect(deadlineAfterReconnect(shortened)).toBe(T0 + 7_000);
    // Nor does a turn that started disconnected get its 45 s on reconnecting.
    expect(deadlineAfterReconnect(turnDeadline(T0, false))).toBe(T0 + 5_000);
  });

  it('P18 between rounds there is a 30 s break, after which the next round starts', () => {
    expect(RULE_DURATIONS.breakMs).toBe(30_000);
    expect(breakDeadline(T0)).toBe(T0 + 30_000);
    // The library lets the next round start whenever the service asks, before the break is over or after.
    let m = deal(
      newMatch({ variant: 'partnership' }),
      blockingHands(0, ['55 44 35 34', '04 12 13 14', '00 02 03 11 05', '15 22 24 25 33']),
    );
    m = steps(m, blockingPlays(0) + ' 2:pass 3:pass 0:pass 1:pass');
    expect(m.phase).toBe('between-rounds');
    const next = must(startRound(m, createSeededRng('p18')));
    expect(next.phase).toBe('playing');
    expect(round(next).number).toBe(2);
  });

  it('P16 P17 P18 custom durations (services shortening them in tests) are used as given', () => {
    const fast = { turnMs: 450, disconnectedTurnMs: 50, breakMs: 300 };
    expect(turnDeadline(T0, true, fast)).toBe(T0 + 450);
    expect(turnDeadline(T0, false, fast)).toBe(T0 + 50);
    expect(deadlineAfterDisconnect(T0 + 450, T0 + 100, fast)).toBe(T0 + 150);
    expect(breakDeadline(T0, fast)).toBe(T0 + 300);
  });
});

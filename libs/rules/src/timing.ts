/**
 * Deadline arithmetic (P16, P17, P18). Pure: the caller passes the time in, in epoch milliseconds.
 * Services may shorten the durations for tests through their environment; tables cannot change them.
 */
export interface Durations {
  /** P16: a turn lasts at most 45 s. */
  readonly turnMs: number;
  /** P17: a disconnected seat has 5 s. */
  readonly disconnectedTurnMs: number;
  /** P18: 30 s between rounds. */
  readonly breakMs: number;
}

export const RULE_DURATIONS: Durations = { turnMs: 45_000, disconnectedTurnMs: 5_000, breakMs: 30_000 };

/** P16/P17: a turn that starts while its seat is disconnected ends 5 s after it started. */
export function turnDeadline(startedAt: number, connected: boolean, d: Durations = RULE_DURATIONS): number {
  return startedAt + (connected ? d.turnMs : d.disconnectedTurnMs);
}

/** P17: a seat that drops during its turn: `min(current deadline, disconnect time + 5 s)`. */
export function deadlineAfterDisconnect(
  current: number,
  disconnectedAt: number,
  d: Durations = RULE_DURATIONS,
): number {
  return Math.min(current, disconnectedAt + d.disconnectedTurnMs);
}

/** P17: reconnecting gives nothing back; the deadline stays as it is. */
export function deadlineAfterReconnect(current: number): number {
  return current;
}

/** P18: the next round starts by itself 30 s after the round ended. */
export function breakDeadline(roundEndedAt: number, d: Durations = RULE_DURATIONS): number {
  return roundEndedAt + d.breakMs;
}

import type { Action, ActionOrigin, MatchConfig, RoundResult, MatchResult, Tile } from '@dominoes/rules';

/**
 * What a stored change says happened. Each event is one row of the append-only log
 * (table_actions), numbered by the table version it made. Rounds and matches replay from it.
 */
export type TableEvent =
  | {
      kind: 'table-created';
      payload: {
        variant: string;
        seatCount: number;
        target: number;
        oneRound: boolean;
        hostPlayerId: string;
      };
    }
  | { kind: 'seat-taken'; seat: number; payload: { playerId: string; name: string } }
  | { kind: 'seat-freed'; seat: number; payload: { playerId: string } }
  | { kind: 'host-changed'; payload: { hostPlayerId: string | null } }
  | { kind: 'presence'; seat: number; payload: { connected: boolean; connections: number } }
  | { kind: 'auto-pass'; seat: number; payload: { on: boolean } }
  | { kind: 'match-started'; matchNumber: number; payload: { config: MatchConfig; players: string[] } }
  | {
      kind: 'round-dealt';
      matchNumber: number;
      roundNumber: number;
      payload: {
        hands: readonly (readonly Tile[])[];
        stock: readonly Tile[];
        opener: number;
        redeals: number;
      };
    }
  | {
      kind: 'action';
      seat: number;
      matchNumber: number;
      roundNumber: number;
      payload: { action: Action; by: ActionOrigin; drawn?: Tile };
    }
  | {
      kind: 'round-ended';
      matchNumber: number;
      roundNumber: number;
      payload: { result: RoundResult; scores: readonly number[]; opener: number };
    }
  | { kind: 'match-ended'; matchNumber: number; payload: { result: MatchResult } }
  /**
   * A match that no seat was connected to for ABANDONED_TABLE_MS: it ends unfinished, no winner;
   * `scores` are the match's scores when it stopped, `at` is when (decision 0017).
   */
  | { kind: 'match-abandoned'; matchNumber: number; payload: { scores: readonly number[]; at: number } }
  /**
   * A closed table: `expired`, a waiting table that nobody filled within WAITING_TABLE_TTL_MS;
   * `abandoned`, after its match's `match-abandoned`. `at` is when it closed.
   */
  | { kind: 'table-closed'; payload: { reason: 'expired' | 'abandoned'; at: number } };

export type TableEventKind = TableEvent['kind'];

// The log row's seat, match and round of an event (table_actions' columns). Functions, not arrows
// held in constants: a mutant of a whole function is then inside its body, reached by the tests that
// call it, not made when the module loads (where the mutation run counts no test as reaching it).
export function eventSeat(e: TableEvent): number | null {
  return 'seat' in e ? e.seat : null;
}
export function eventMatch(e: TableEvent): number | null {
  return 'matchNumber' in e ? e.matchNumber : null;
}
export function eventRound(e: TableEvent): number | null {
  return 'roundNumber' in e ? e.roundNumber : null;
}

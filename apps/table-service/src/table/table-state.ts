import type { MatchState, Variant } from '@dominoes/rules';
import type { TableClosedReason, TableStatus } from '@dominoes/protocol';

export interface SeatState {
  readonly playerId: string;
  readonly name: string;
  /** Open sockets of this player at this table; empty means disconnected (P17). */
  readonly connections: readonly string[];
  /**
   * Its last socket closed (it had one): the player is gone, not on their way. Absent on a seat taken
   * without a socket (HTTP) until it connects, and on seats stored before. A waiting table whose seats
   * are all away leaves the lobby and quick play (decision 0026).
   */
  readonly away?: true;
  readonly autoPass: boolean;
  /** Order of arrival, for the host hand-over. */
  readonly arrival: number;
}

export interface Deadline {
  /**
   * `expire`: a waiting table closes when it comes (WAITING_TABLE_TTL_MS), unless its seats fill first.
   * `abandon`: a playing table with no seat connected; its match ends as abandoned when it comes
   * (ABANDONED_TABLE_MS), unless a seat comes back first (decision 0017).
   */
  readonly kind: 'turn' | 'break' | 'expire' | 'abandon';
  /** Epoch milliseconds. */
  readonly at: number;
  /** Names this deadline: a firing whose key is not the current one is out of date and ignored. */
  readonly key: string;
  readonly seat: number | null;
  /**
   * P17: this turn is a disconnected seat's short one: it started while the seat was disconnected,
   * or the seat dropped during it. A reconnection gives no time back, so it stays until the turn ends.
   */
  readonly shortened?: true;
}

/** Everything the table-service knows about one table; stored whole as the snapshot at `version`. */
export interface TableState {
  readonly id: string;
  readonly variant: Variant;
  readonly seatCount: number;
  readonly target: number;
  readonly oneRound: boolean;
  /** Listed in the lobby (issue 12, decision 0019); absent (private) on tables opened before. */
  readonly public?: boolean;
  /** When the table was opened (epoch ms); absent on tables opened before issue 12's lobby. */
  readonly openedAt?: number;
  /** false: the host turned the table's text chat off (decision 0020); absent on older tables: on. */
  readonly chat?: boolean;
  readonly hostPlayerId: string | null;
  readonly status: TableStatus;
  /** Why a closed table closed; absent before it closes (and on tables closed before issue 12: expired). */
  readonly closedReason?: TableClosedReason;
  readonly seats: readonly (SeatState | null)[];
  readonly arrivals: number;
  readonly matchNumber: number;
  readonly match: MatchState | null;
  readonly deadline: Deadline | null;
  /** The version of the last stored change; the fencing number of the row. */
  readonly version: number;
  /**
   * Intent ids applied lately (the last RECENT_INTENTS_KEPT), so a repeated intent is applied at most
   * once. Not in the stored snapshot: the store reads them from the log's rows (decision 0022).
   */
  readonly recentIntents: readonly string[];
}

export const RECENT_INTENTS_KEPT = 64;

/**
 * Connection ids a seat keeps (the newest): every id is in the stored snapshot, so one identity with
 * hundreds of sockets, through however many gateways, cannot grow it without bound.
 */
export const CONNECTIONS_KEPT_PER_SEAT = 8;

export const seatOfPlayer = (table: TableState, playerId: string): number =>
  table.seats.findIndex((s) => s !== null && s.playerId === playerId);

export const isConnected = (seat: SeatState | null): boolean => seat !== null && seat.connections.length > 0;

/** Seated and not away: connected, or taken without a socket that has not connected yet (decision 0026). */
export const isPresent = (seat: SeatState | null): boolean =>
  seat !== null && (seat.connections.length > 0 || seat.away !== true);

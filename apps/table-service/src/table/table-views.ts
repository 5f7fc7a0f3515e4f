import { seatView, rulesOf } from '@dominoes/rules';
import type { TableView } from '@dominoes/protocol';
import { isConnected, type TableState } from './table-state';

/** What the player at `seat` sees: the table around them and the rules' view of their seat only. */
export function tableView(table: TableState, seat: number): TableView {
  const rules = rulesOf(table.variant);
  const me = table.seats[seat];
  const hostSeat = table.seats.findIndex((s) => s !== null && s.playerId === table.hostPlayerId);
  return {
    tableId: table.id,
    variant: table.variant,
    seatCount: table.seatCount,
    target: table.target,
    oneRound: table.oneRound,
    status: table.status,
    ...(table.status === 'closed' ? { closedReason: table.closedReason ?? 'expired' } : {}),
    hostSeat: hostSeat >= 0 ? hostSeat : null,
    seats: table.seats.map((s, i) =>
      s === null ? null : { seat: i, name: s.name, connected: isConnected(s), side: rules.sideOf(i) },
    ),
    you: { seat, playerId: me?.playerId ?? '', autoPass: me?.autoPass ?? false },
    matchNumber: table.matchNumber,
    clock: table.deadline
      ? { kind: table.deadline.kind, seat: table.deadline.seat, deadline: table.deadline.at }
      : null,
    game: table.match ? seatView(table.match, seat) : null,
  };
}

/** The seats that someone sits in: each gets its own view after a change. */
export const occupiedSeats = (table: TableState): number[] =>
  table.seats.flatMap((s, i) => (s === null ? [] : [i]));

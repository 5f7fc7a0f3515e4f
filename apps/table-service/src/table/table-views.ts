import { publicView, seatView, rulesOf } from '@dominoes/rules';
import type { SpectatorView, TableView } from '@dominoes/protocol';
import { isConnected, type TableState } from './table-state';

/** The table's code and the host's choices (variant, seats, target, one round): what every view and the lobby show. */
export function tableSettings(table: TableState) {
  return {
    tableId: table.id,
    variant: table.variant,
    seatCount: table.seatCount,
    target: table.target,
    oneRound: table.oneRound,
  };
}

/** What everyone at or around the table sees of it: no seat's own part, no game. */
function tableAround(table: TableState) {
  const rules = rulesOf(table.variant);
  const hostSeat = table.seats.findIndex((s) => s !== null && s.playerId === table.hostPlayerId);
  return {
    ...tableSettings(table),
    status: table.status,
    ...(table.status === 'closed' ? { closedReason: table.closedReason ?? 'expired' } : {}),
    hostSeat: hostSeat >= 0 ? hostSeat : null,
    seats: table.seats.map((s, i) =>
      s === null ? null : { seat: i, name: s.name, connected: isConnected(s), side: rules.sideOf(i) },
    ),
    matchNumber: table.matchNumber,
    clock: table.deadline
      ? {
          kind: table.deadline.kind,
          seat: table.deadline.seat,
          deadline: table.deadline.at,
          ...(table.deadline.shortened ? { shortened: true as const } : {}),
        }
      : null,
  };
}

/**
 * What the player at `seat` sees: the table around them and the rules' view of their seat only;
 * `watchers`, how many players watch the table (decision 0018).
 */
export function tableView(table: TableState, seat: number, watchers = 0): TableView {
  const me = table.seats[seat];
  return {
    ...tableAround(table),
    you: { seat, playerId: me?.playerId ?? '', autoPass: me?.autoPass ?? false },
    game: table.match ? seatView(table.match, seat) : null,
    watchers,
  };
}

/** What a spectator sees (decision 0018): the table and the rules' public view, no hand (P10, P12). */
export function spectatorView(table: TableState, watchers: number): SpectatorView {
  return {
    ...tableAround(table),
    watchers,
    game: table.match ? publicView(table.match) : null,
  };
}

/** The seats that someone sits in: each gets its own view after a change. */
export const occupiedSeats = (table: TableState): number[] =>
  table.seats.flatMap((s, i) => (s === null ? [] : [i]));

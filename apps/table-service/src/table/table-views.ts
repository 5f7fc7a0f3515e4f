import { publicView, rulesOf, seatOwnPart, seatView, seatViewsSharePublicView } from '@dominoes/rules';
import type { SeatEvent, SeatMessage, SpectatorView, TableView } from '@dominoes/protocol';
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

/** Who the view is for: the seat, its player, whether they asked to pass automatically. */
function youOf(table: TableState, seat: number): TableView['you'] {
  const me = table.seats[seat];
  return { seat, playerId: me?.playerId ?? '', autoPass: me?.autoPass ?? false };
}

/**
 * What the player at `seat` sees: the table around them and the rules' view of their seat only;
 * `watchers`, how many players watch the table (decision 0018).
 */
export function tableView(table: TableState, seat: number, watchers = 0): TableView {
  return {
    ...tableAround(table),
    you: youOf(table, seat),
    game: table.match ? seatView(table.match, seat) : null,
    watchers,
  };
}

/**
 * `JSON.stringify(tableView(table, seat, watchers))` of each of `seats`, byte for byte, with what the
 * views share (the table around them and, unless a seat sees its own draws, the rules' public view)
 * written out once for all of them (issue 14: the four views' stringify was an eighth of the
 * table-service's CPU at the peak).
 */
export function seatViewTexts(table: TableState, seats: readonly number[], watchers: number): string[] {
  const match = table.match;
  if (match && !seatViewsSharePublicView(match))
    return seats.map((seat) => JSON.stringify(tableView(table, seat, watchers)));
  // Each shared object's text without its closing brace: the seat's own keys follow it.
  const around = JSON.stringify(tableAround(table)).slice(0, -1);
  const game = match ? JSON.stringify(publicView(match)).slice(0, -1) : null;
  const end = `,"watchers":${watchers}}`;
  return seats.map((seat) => {
    const you = JSON.stringify(youOf(table, seat));
    const own =
      match && game !== null ? `${game},${JSON.stringify(seatOwnPart(match, seat)).slice(1)}` : 'null';
    return `${around},"you":${you},"game":${own}${end}`;
  });
}

/** Each of `seats`' view of `table` as it is published on its seat's channel (RedisSeatPublisher). */
export function seatMessages(
  table: TableState,
  seats: readonly number[],
  watchers: number,
  cause: SeatEvent['cause'],
  traceparent?: string,
): SeatMessage[] {
  const texts = seatViewTexts(table, seats, watchers);
  return seats.map((seat, i) => ({
    header: {
      tableId: table.id,
      seat,
      version: table.version,
      playerId: youOf(table, seat).playerId,
      cause,
      ...(traceparent ? { traceparent } : {}),
    },
    viewJson: texts[i]!,
  }));
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

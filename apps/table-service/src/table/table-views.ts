import { publicView, rulesOf, seatOwnPart, seatView, seatViewsSharePublicView } from '@dominoes/rules';
import {
  viewChangeOf,
  type SeatEvent,
  type SeatMessage,
  type SpectatorView,
  type TableView,
} from '@dominoes/protocol';
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

/**
 * Each of `seats`' view of `table` as it is published on its seat's channel (RedisSeatPublisher): as
 * a change from its view of `before` (the table one stored change earlier, whose views were
 * published) where the seat has the same player in both (decision 0036), else whole.
 */
export function seatMessages(
  table: TableState,
  seats: readonly number[],
  watchers: number,
  cause: SeatEvent['cause'],
  traceparent?: string,
  before: TableState | null = null,
): SeatMessage[] {
  const changes = before ? seatChangeTexts(before, table, seats, watchers) : seats.map(() => null);
  const whole = seats.filter((_, i) => changes[i] === null);
  const wholeTexts = whole.length > 0 ? seatViewTexts(table, whole, watchers) : [];
  let next = 0;
  return seats.map((seat, i) => {
    const change = changes[i];
    return {
      header: {
        tableId: table.id,
        seat,
        version: table.version,
        playerId: youOf(table, seat).playerId,
        cause,
        ...(traceparent ? { traceparent } : {}),
        ...(change !== null && before ? { base: before.version } : {}),
      },
      viewJson: change ?? wholeTexts[next++]!,
    };
  });
}

/** Whether the same player sits at `seat` in both: only then is its view sent as a change. */
const samePlayer = (before: TableState, after: TableState, seat: number): boolean => {
  const was = before.seats[seat];
  return was !== null && was !== undefined && was.playerId === after.seats[seat]?.playerId;
};

/** The ViewChange's elements as JSON text without the brackets, and a comma after them; '' for none. */
const opsText = (ops: readonly unknown[]): string =>
  ops.length > 0 ? `${JSON.stringify(ops).slice(1, -1)},` : '';

/**
 * Each seat's ViewChange from its view of `before` to its view of `after`, as JSON text, or null
 * where it must be sent whole. What the seats' changes share (the table around them and, unless a
 * seat sees its own draws, the public game) is worked out and written once; the watcher count is
 * always set (it changes without a stored change).
 */
function seatChangeTexts(
  before: TableState,
  after: TableState,
  seats: readonly number[],
  watchers: number,
): (string | null)[] {
  const watchersOp = `{"set":["watchers"],"to":${watchers}}`;
  const was = before.match;
  const now = after.match;
  if (was && now && seatViewsSharePublicView(was) && seatViewsSharePublicView(now)) {
    const common = viewChangeOf(tableAround(before), tableAround(after));
    viewChangeOf(publicView(was), publicView(now), ['game'], common);
    const commonText = opsText(common);
    return seats.map((seat) => {
      if (!samePlayer(before, after, seat)) return null;
      const own = viewChangeOf(youOf(before, seat), youOf(after, seat), ['you']);
      viewChangeOf(seatOwnPart(was, seat), seatOwnPart(now, seat), ['game'], own);
      return `[${commonText}${opsText(own)}${watchersOp}]`;
    });
  }
  return seats.map((seat) =>
    samePlayer(before, after, seat)
      ? `[${opsText(viewChangeOf(tableView(before, seat, watchers), tableView(after, seat, watchers)))}${watchersOp}]`
      : null,
  );
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

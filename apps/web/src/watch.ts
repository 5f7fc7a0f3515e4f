import type { SpectatorView, TableView } from '@dominoes/protocol';

/** The seat a spectator's table is drawn from (at the bottom): the first, the host's at the start. */
export const SPECTATOR_SEAT = 0;

/**
 * A spectator's view (decision 0018) in the shape the table's components draw: seen from seat 0,
 * with no hand and no legal move (the view holds none to give: every hand is a count until the
 * reveal). Only ever drawn with `spectating` on, so nothing offers to act.
 */
export function asTableView(view: SpectatorView): TableView {
  const { game, ...table } = view;
  return {
    ...table,
    you: { seat: SPECTATOR_SEAT, playerId: '', autoPass: false },
    game: game ? { ...game, seat: SPECTATOR_SEAT, hand: [], legal: [] } : null,
  };
}

/** The address of a table's watch page: what the lobby links to. */
export const watchPath = (code: string): string => `/t/${code}?watch=1`;

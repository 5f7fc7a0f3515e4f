import { sameTile, type Tile } from '@dominoes/rules';
import type { SpectatorView, TableView } from '@dominoes/protocol';
import type { LogRow } from './stored-log';

/** Every tile a view holds, wherever the schema lets a tile be: hands, plays, draws, legal moves. */
export function tilesIn(value: unknown, key = ''): Tile[] {
  if (Array.isArray(value)) {
    if (key === 'tile' || key === 'drawn') return [value as unknown as Tile];
    if (key === 'hand') return value as Tile[];
    if (key === 'finalHands') return (value as Tile[][]).flat();
    return value.flatMap((item) =>
      tilesIn(item, key === 'legal' || key === 'log' || key === 'placements' ? '' : key),
    );
  }
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => tilesIn(v, k));
  }
  return [];
}

/**
 * Checks that a view sent to its seat holds no tile of another seat's hand before that round's
 * reveal (P12). Another seat's hand at that moment is what it was dealt and drew, less what the
 * view's own board shows it played.
 */
export function leakedTiles(view: TableView, log: readonly LogRow[]): Tile[] {
  return leakedFrom(view, view.you.seat, view.game?.hand ?? [], log);
}

/**
 * The same check for a spectator's view (decision 0018), which has no seat: every hand and the
 * stock are hidden from it until the round's reveal (P10, P12).
 */
export function leakedTilesToSpectator(view: SpectatorView, log: readonly LogRow[]): Tile[] {
  return leakedFrom(view, null, [], log);
}

function leakedFrom(
  view: TableView | SpectatorView,
  seat: number | null,
  ownHand: readonly Tile[],
  log: readonly LogRow[],
): Tile[] {
  const game = view.game;
  if (!game || game.roundNumber === 0 || game.roundResult !== null) return [];
  const deal = log.find(
    (r) =>
      r.kind === 'round-dealt' && r.match_number === view.matchNumber && r.round_number === game.roundNumber,
  );
  if (!deal) throw new Error(`no stored deal for match ${view.matchNumber} round ${game.roundNumber}`);
  const hands = (deal.payload['hands'] as Tile[][]).map((h) => [...h]);
  const stock = deal.payload['stock'] as Tile[];
  const onBoard = game.board.placements.map((p) => p.tile);
  const hidden: Tile[] = [];
  hands.forEach((hand, s) => {
    if (s === seat) return;
    for (const tile of hand) if (!onBoard.some((b) => sameTile(b, tile))) hidden.push(tile);
  });
  // The boneyard is hidden from everyone; what this seat drew is its own.
  for (const tile of stock)
    if (!onBoard.some((b) => sameTile(b, tile)) && !ownHand.some((h) => sameTile(h, tile))) hidden.push(tile);
  return tilesIn(view).filter((t) => hidden.some((h) => sameTile(h, t)));
}

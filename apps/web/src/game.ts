import type { TableView } from '@dominoes/protocol';
import { FIVE_TILE_DOMINO_BONUS, handPips, type LogEntry, type SeatView, type Tile } from '@dominoes/rules';
import { tileName, type Dict } from './i18n';

/**
 * Reading the server's view for the page. Nothing here decides what is legal or how a round is
 * scored: `game.legal` says what this seat may do, `roundResult` says who scored what; these helpers
 * only put names and words on them.
 */

/** `view.game`: the rules' view of this seat's match (`SeatView`), as the table-service sends it. */
export type { LogEntry, SeatView, Tile } from '@dominoes/rules';

/** A name for a tile whatever its orientation: "3-5" for [5,3] and [3,5]. */
export const tileKey = (tile: Tile): string => `${Math.min(tile[0], tile[1])}-${Math.max(tile[0], tile[1])}`;

export interface PlayableTile {
  /** The tile as the server listed it (the hand's orientation). */
  readonly tile: Tile;
  /** The ends it may go on, in the order the server listed them. */
  readonly ends: readonly string[];
}

/** The tiles this seat may play now, from `legal` only. */
export function playableTiles(game: SeatView | null): Map<string, PlayableTile> {
  const map = new Map<string, { tile: Tile; ends: string[] }>();
  for (const action of game?.legal ?? []) {
    if (action.type !== 'play') continue;
    const key = tileKey(action.tile);
    const entry = map.get(key) ?? { tile: action.tile, ends: [] };
    if (action.end !== undefined && !entry.ends.includes(action.end)) entry.ends.push(action.end);
    map.set(key, entry);
  }
  return map;
}

export const canPass = (game: SeatView | null): boolean => (game?.legal ?? []).some((a) => a.type === 'pass');
export const canDraw = (game: SeatView | null): boolean => (game?.legal ?? []).some((a) => a.type === 'draw');

/** What naming seats needs of a view: a table's view, or a replay's players. */
export interface NamedSeats {
  readonly variant: TableView['variant'];
  readonly seats: readonly ({ readonly name: string } | null)[];
}

export function seatName(t: Dict, view: NamedSeats, seat: number | null | undefined): string {
  if (seat === null || seat === undefined) return t.nobody;
  return view.seats[seat]?.name ?? t.seatN(seat + 1);
}

/** "Team A" in the partnership game; the seat's player otherwise. */
export function sideName(t: Dict, view: NamedSeats, side: number | null): string {
  if (side === null) return t.nobody;
  return view.variant === 'partnership' ? t.team(side) : seatName(t, view, side);
}

/** Seats by their place around the board, the player at the bottom: 0 bottom, then counter-clockwise. */
export type Place = 'bottom' | 'right' | 'top' | 'left';
export function placeOf(seat: number, me: number, seats: number): Place {
  const rel = (seat - me + seats) % seats;
  if (seats === 2) return rel === 0 ? 'bottom' : 'top';
  if (seats === 3) return (['bottom', 'right', 'left'] as const)[rel] ?? 'top';
  return (['bottom', 'right', 'top', 'left'] as const)[rel] ?? 'top';
}

/** The end numbers of each pass in the log (P10): the k-th pass entry is `passes[k]`. */
export function passEnds(game: SeatView): Map<number, readonly number[]> {
  const out = new Map<number, readonly number[]>();
  let k = 0;
  game.log.forEach((entry, i) => {
    if (entry.type !== 'pass') return;
    const record = game.passes[k];
    k += 1;
    if (record) out.set(i, record.ends);
  });
  return out;
}

/**
 * The end numbers of a pass (P10): both numbers of a two-ended chain, even when equal ("2 and 2");
 * on a five-tile board with many ends, each number once, in order.
 */
export function endsText(t: Dict, ends: readonly number[]): string {
  const shown = ends.length > 2 ? [...new Set(ends)].sort((a, b) => a - b) : ends;
  return t.andList(shown.map(String));
}

/** One move in words, without the "by the table" mark. */
export function describeEntry(
  t: Dict,
  view: NamedSeats,
  entry: LogEntry,
  ends: readonly number[] | undefined,
): string {
  const name = seatName(t, view, entry.seat);
  switch (entry.type) {
    case 'play':
      return t.logPlay(name, tileName(t, entry.tile));
    case 'pass':
      return t.logPass(name, endsText(t, ends ?? []));
    case 'draw':
      return entry.drawn ? t.logDrewTile(name, tileName(t, entry.drawn)) : t.logDraw(name);
  }
}

export interface Explanation {
  readonly headline: string;
  readonly lines: readonly string[];
}

/** Who dominoed or why the round was blocked, and who scored what: from `roundResult` alone. */
export function explainRound(t: Dict, view: TableView, game: SeatView): Explanation | null {
  const r = game.roundResult;
  if (!r) return null;
  const headline = r.dominoSeat !== null ? t.dominoed(seatName(t, view, r.dominoSeat)) : t.blocked;
  const lines: string[] = [];
  const winner = r.winnerSide;
  if (view.variant === 'partnership') {
    r.sidePips.forEach((pips, side) => lines.push(t.teamTotal(t.team(side), pips)));
    const team = sideName(t, view, winner);
    if (r.dominoSeat !== null) lines.push(t.pDomino(team, r.points));
    else if (r.sidePips[0] === r.sidePips[1]) lines.push(t.pBlockedTie(team, r.points));
    else lines.push(t.pBlocked(team, r.points));
  } else {
    const name = sideName(t, view, winner);
    if (winner === null) lines.push(t.noWinner);
    else if (view.variant === 'draw')
      lines.push(r.dominoSeat !== null ? t.dDomino(name, r.points) : t.dBlocked(name, r.points));
    else if (r.dominoSeat !== null)
      lines.push(t.fDomino(name, r.points - FIVE_TILE_DOMINO_BONUS, FIVE_TILE_DOMINO_BONUS, r.points));
    else lines.push(t.fBlocked(name, r.points));
  }
  return { headline, lines };
}

export const pipsOf = (hand: readonly Tile[]): number => handPips(hand);

import type { Board, EndId, OpenEnd, Placement } from './types';
import { isDouble, matchesNumber, outerHalf, type Tile } from './tiles';

/** The straight chain of P7/P8 (doubles inline) or the crossed-double tree of F4. */
export type BoardShape = 'line' | 'cross';

export const EMPTY_BOARD: Board = { ends: [], placements: [] };

const crossEndId = (n: number): EndId => `e${n}`;

function countCrossEnds(board: Board): number {
  return board.placements.reduce((n, p) => n + p.opens.length, 0);
}

/** The first tile: `[a,b]` makes `a` the left end and `b` the right (P7); a crossed opening double offers four (F4). */
export function placeFirst(shape: BoardShape, tile: Tile, seat: number): Board {
  if (shape === 'cross' && isDouble(tile)) {
    const opens = [0, 1, 2, 3].map(crossEndId);
    return {
      ends: opens.map((id) => ({ id, value: tile[0] })),
      placements: [{ seat, tile, end: null, crossed: true, opens }],
    };
  }
  const opens = shape === 'line' ? ['left', 'right'] : [crossEndId(0), crossEndId(1)];
  return {
    ends: [
      { id: opens[0] as EndId, value: tile[0] },
      { id: opens[1] as EndId, value: tile[1] },
    ],
    placements: [{ seat, tile, end: null, crossed: false, opens }],
  };
}

export const findEnd = (board: Board, id: EndId): OpenEnd | undefined => board.ends.find((e) => e.id === id);

/** Lays `tile` on `end`, which the caller has checked it matches. A crossed double turns one end into three (F4). */
export function placeOnEnd(shape: BoardShape, board: Board, tile: Tile, end: OpenEnd, seat: number): Board {
  const outer = outerHalf(tile, end.value);
  const crossed = shape === 'cross' && isDouble(tile);
  const opens: EndId[] = [];
  if (crossed) {
    const next = countCrossEnds(board);
    opens.push(crossEndId(next), crossEndId(next + 1));
  }
  const ends: OpenEnd[] = board.ends.map((e) => (e.id === end.id ? { id: e.id, value: outer } : e));
  for (const id of opens) ends.push({ id, value: outer });
  const placement: Placement = { seat, tile: [end.value, outer], end: end.id, crossed, opens };
  return { ends, placements: [...board.placements, placement] };
}

export const tileFitsEnd = (tile: Tile, end: OpenEnd): boolean => matchesNumber(tile, end.value);

export const endValues = (board: Board): number[] => board.ends.map((e) => e.value);

/** A domino tile `[a, b]`, each half 0..6. Hands keep tiles as dealt; comparisons ignore orientation. */
export type Tile = readonly [number, number];

export const HIGHEST_PIP = 6;

/** The seat after `seat` in seating order: where play passes, and the next round's opener (P6). */
export const seatAfter = (seat: number, seats: number): number => (seat + 1) % seats;

/** The double-six set: 28 tiles `[a, b]` with `0 <= a <= b <= 6`, each exactly once. */
export function fullSet(): Tile[] {
  const tiles: Tile[] = [];
  for (let a = 0; a <= HIGHEST_PIP; a++) {
    for (let b = a; b <= HIGHEST_PIP; b++) tiles.push([a, b]);
  }
  return tiles;
}

export const pips = (tile: Tile): number => tile[0] + tile[1];

export const handPips = (hand: readonly Tile[]): number => hand.reduce((sum, tile) => sum + pips(tile), 0);

export const isDouble = (tile: Tile): boolean => tile[0] === tile[1];

export const matchesNumber = (tile: Tile, n: number): boolean => tile[0] === n || tile[1] === n;

export const sameTile = (x: Tile, y: Tile): boolean =>
  (x[0] === y[0] && x[1] === y[1]) || (x[0] === y[1] && x[1] === y[0]);

/** A number that names a tile whatever its orientation: `low * 7 + high`, so 28 distinct values from 0 to 48. */
export const tileId = (tile: Tile): number => {
  const lo = Math.min(tile[0], tile[1]);
  const hi = Math.max(tile[0], tile[1]);
  return lo * (HIGHEST_PIP + 1) + hi;
};

export function isValidTile(value: unknown): value is Tile {
  // Both halves by index: `every` would skip the hole of a sparse array such as `[, 1]`.
  const isHalf = (half: unknown): boolean =>
    Number.isInteger(half) && (half as number) >= 0 && (half as number) <= HIGHEST_PIP;
  return Array.isArray(value) && value.length === 2 && isHalf(value[0]) && isHalf(value[1]);
}

/** The half that stays open when `tile` is laid against `n` (the other half touches the chain). */
export const outerHalf = (tile: Tile, n: number): number => (tile[0] === n ? tile[1] : tile[0]);

export const tileText = (tile: Tile): string => `[${tile[0]},${tile[1]}]`;

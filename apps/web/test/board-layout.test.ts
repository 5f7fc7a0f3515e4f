import type { MatchState } from '@dominoes/rules';
import { layoutBoard, layoutFor, type LaidTile, type Rect } from '../src/board/layout';
import { roundStates } from './gallery';

const overlap = (r: Rect, s: Rect): number =>
  Math.max(0, Math.min(r.x + r.w, s.x + s.w) - Math.max(r.x, s.x)) *
  Math.max(0, Math.min(r.y + r.h, s.y + s.h) - Math.max(r.y, s.y));

/** Two rectangles share a stretch of edge (they touch along a side, not only at a corner). */
function touch(r: Rect, s: Rect): boolean {
  const xTouch = Math.abs(r.x + r.w - s.x) < 1e-6 || Math.abs(s.x + s.w - r.x) < 1e-6;
  const yTouch = Math.abs(r.y + r.h - s.y) < 1e-6 || Math.abs(s.y + s.h - r.y) < 1e-6;
  const xShare = Math.min(r.x + r.w, s.x + s.w) - Math.max(r.x, s.x);
  const yShare = Math.min(r.y + r.h, s.y + s.h) - Math.max(r.y, s.y);
  return (xTouch && yShare > 0.4) || (yTouch && xShare > 0.4);
}

function boardOf(match: MatchState) {
  const board = match.round!.board;
  return { placements: board.placements, ends: board.ends };
}

describe('board layout (D9: the chain turns before the edge; F4: crossed doubles branch)', () => {
  const seeds = Array.from({ length: 40 }, (_, i) => i + 1);

  it.each([8, 12, 16, 24])(
    'D9 partnership: no tile overlaps another or leaves a %i-unit band, whole rounds',
    (width) => {
      for (const seed of seeds) {
        const states = roundStates('partnership', 4, seed);
        const { placements, ends } = boardOf(states.at(-1)!);
        const layout = layoutFor(placements, ends, 'line', width);
        expect(layout.tiles).toHaveLength(placements.length);
        // The whole chain stays within a band `width` units wide (plus at most one corner column).
        const left = Math.min(...layout.tiles.map((t) => t.x));
        const right = Math.max(...layout.tiles.map((t) => t.x + t.w));
        expect(right - left).toBeLessThanOrEqual(width + 1e-9);
        for (let i = 0; i < layout.tiles.length; i++)
          for (let j = i + 1; j < layout.tiles.length; j++)
            expect(overlap(layout.tiles[i]!, layout.tiles[j]!)).toBeLessThan(1e-9);
      }
    },
  );

  it('D9: every tile touches the tile it was laid against, and shows the touching number next to it', () => {
    for (const seed of seeds) {
      const { placements, ends } = boardOf(roundStates('partnership', 4, seed).at(-1)!);
      const layout = layoutFor(placements, ends, 'line', 12);
      const byIndex = new Map<number, LaidTile>(layout.tiles.map((t) => [t.index, t]));
      const lastOnEnd = new Map<string, number>([
        ['left', 0],
        ['right', 0],
      ]);
      placements.forEach((p, i) => {
        if (i === 0) return;
        const previous = byIndex.get(lastOnEnd.get(p.end!)!)!;
        const tile = byIndex.get(i)!;
        expect(touch(previous, tile)).toBe(true);
        expect([tile.a, tile.b]).toContain(p.tile[0]);
        lastOnEnd.set(p.end!, i);
      });
    }
  });

  it('F4 five-tile: crossed doubles branch, no overlaps in whole rounds of 2 to 4 seats', () => {
    let branched = 0;
    for (const seats of [2, 3, 4]) {
      for (const seed of seeds) {
        const { placements, ends } = boardOf(roundStates('five-tile', seats, seed).at(-1)!);
        const layout = layoutBoard(placements, ends, 'cross', { width: 360, height: 420, maxUnit: 24 });
        expect(layout.tiles).toHaveLength(placements.length);
        branched += placements.filter((p) => p.crossed).length;
        let overlaps = 0;
        for (let i = 0; i < layout.tiles.length; i++)
          for (let j = i + 1; j < layout.tiles.length; j++)
            if (overlap(layout.tiles[i]!, layout.tiles[j]!) > 1e-9) overlaps++;
        expect(overlaps).toBe(0);
        // Every open end has a marker: the player can be shown where a tile would go.
        expect(layout.ends.map((e) => e.id).sort()).toEqual(ends.map((e) => e.id).sort());
      }
    }
    expect(branched).toBeGreaterThan(0);
  });

  it('F4: every five-tile placement touches the tile of the end it was laid on (branches touch their double)', () => {
    for (const seats of [2, 4]) {
      for (const seed of seeds) {
        const { placements, ends } = boardOf(roundStates('five-tile', seats, seed).at(-1)!);
        const layout = layoutBoard(placements, ends, 'cross', { width: 880, height: 560, maxUnit: 40 });
        const byIndex = new Map<number, LaidTile>(layout.tiles.map((t) => [t.index, t]));
        const lastOnEnd = new Map<string, number>(placements[0]!.opens.map((id) => [id, 0]));
        placements.forEach((p, i) => {
          if (i === 0) return;
          const previous = byIndex.get(lastOnEnd.get(p.end!)!)!;
          expect(touch(previous, byIndex.get(i)!)).toBe(true);
          lastOnEnd.set(p.end!, i);
          for (const id of p.opens) lastOnEnd.set(id, i);
        });
      }
    }
  });

  it('fits a phone and a desktop: the drawing is inside the space and tiles stay readable', () => {
    for (const seed of seeds) {
      const states = roundStates('partnership', 4, seed);
      for (const state of states.filter((_, i) => i % 5 === 0).concat(states.at(-1)!)) {
        const { placements, ends } = boardOf(state);
        for (const [width, height] of [
          [370, 360],
          [880, 560],
        ] as const) {
          const fitted = layoutBoard(placements, ends, 'line', { width, height, maxUnit: 30 });
          expect(fitted.bounds.w * fitted.unit).toBeLessThanOrEqual(width + 1e-6);
          expect(fitted.bounds.h * fitted.unit).toBeLessThanOrEqual(height + 1e-6);
          // A half-tile square of at least 14 px on a phone keeps the pips readable.
          expect(fitted.unit).toBeGreaterThanOrEqual(14);
        }
      }
    }
  });
});

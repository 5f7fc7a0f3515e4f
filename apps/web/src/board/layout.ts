/**
 * Where every tile of the board is drawn. Pure geometry: no rule of the game lives here, the board's
 * placements (from the server's view) say which tile went on which end; this file only decides where
 * on the screen that end continues.
 *
 * Units: a tile is 2 × 1 units (1 unit = one square half). Coordinates grow right (x) and down (y).
 *
 * - The two-ended chain (partnership, draw game) is a "snake" (D9): the first tile in the middle, the
 *   left arm going left and the right arm going right; when the next tile would cross the edge of the
 *   row, the chain turns: one tile down (the right arm) or up (the left arm), then back the other way
 *   on the next row. The chain never runs off the board, whatever its length.
 * - The five-tile board (F4) is a cross: the opening double in the centre with four arms, and every
 *   crossed double branching perpendicular on both sides. Arms turn at the same kind of bound, and
 *   when the straight way is taken by another arm.
 *
 * The caller gives the size available in pixels; `layoutBoard` tries several row widths and keeps the
 * one that draws the tiles largest, so the same code fits a 390 px phone and a desktop.
 */

export type Dir = 'R' | 'L' | 'U' | 'D';
export type Shape = 'line' | 'cross';

interface Vec {
  readonly x: number;
  readonly y: number;
}

const VEC: Record<Dir, Vec> = {
  R: { x: 1, y: 0 },
  L: { x: -1, y: 0 },
  U: { x: 0, y: -1 },
  D: { x: 0, y: 1 },
};
const OPPOSITE: Record<Dir, Dir> = { R: 'L', L: 'R', U: 'D', D: 'U' };
/** The direction 90° counter-clockwise on screen (R → U). */
const LEFT_OF: Record<Dir, Dir> = { R: 'U', U: 'L', L: 'D', D: 'R' };
const horizontal = (d: Dir): boolean => d === 'R' || d === 'L';

/** One placement as the view gives it: `tile` is [touching half, open half]. */
export interface PlacementInput {
  readonly seat: number;
  readonly tile: readonly [number, number];
  readonly end: string | null;
  readonly crossed: boolean;
  readonly opens: readonly string[];
}

export interface OpenEndInput {
  readonly id: string;
  readonly value: number;
}

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export interface LaidTile extends Rect {
  /** Index in `board.placements`. */
  readonly index: number;
  readonly seat: number;
  /** The value drawn in the left (horizontal) or top (vertical) half. */
  readonly a: number;
  /** The value drawn in the right or bottom half. */
  readonly b: number;
  readonly vertical: boolean;
  /** Drawn across the line (a double shown crosswise). */
  readonly across: boolean;
}

export interface EndMarker {
  readonly id: string;
  readonly value: number;
  /** Centre of the square where the next tile's touching half would go. */
  readonly x: number;
  readonly y: number;
}

export interface BoardLayout {
  readonly tiles: readonly LaidTile[];
  readonly ends: readonly EndMarker[];
  readonly bounds: Rect;
  /** The row width (in units) the layout was made for. */
  readonly rowWidth: number;
}

interface Arm {
  /** Middle of the open edge. */
  p: Vec;
  d: Dir;
  /** Line: the way this arm goes when it turns (right arm down, left arm up). */
  readonly turn: Dir;
  /** Line: the row direction before a corner; set while the corner tile is the last one. */
  pendingRow: Dir | null;
}

const add = (p: Vec, d: Dir, k: number): Vec => ({ x: p.x + VEC[d].x * k, y: p.y + VEC[d].y * k });

/** The rectangle spanned by p + [a0,a1]·d + [b0,b1]·n. */
function span(p: Vec, d: Dir, a0: number, a1: number, n: Dir, b0: number, b1: number): Rect {
  const xs = [a0, a1].flatMap((a) => [b0, b1].map((b) => p.x + VEC[d].x * a + VEC[n].x * b));
  const ys = [a0, a1].flatMap((a) => [b0, b1].map((b) => p.y + VEC[d].y * a + VEC[n].y * b));
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y };
}

/** Half values in drawing order: travelling right or down, the touching half comes first. */
function halves(travel: Dir, touching: number, open: number): [number, number] {
  return travel === 'R' || travel === 'D' ? [touching, open] : [open, touching];
}

interface Step {
  readonly rect: Rect;
  readonly travel: Dir;
  readonly across: boolean;
  readonly next: Vec;
  readonly nextDir: Dir;
}

/** Straight on: 2 units along, or a double across (1 along, 2 across). */
function straight(arm: Arm, across: boolean): Step {
  const n = LEFT_OF[arm.d];
  const rect = across ? span(arm.p, arm.d, 0, 1, n, -1, 1) : span(arm.p, arm.d, 0, 2, n, -0.5, 0.5);
  return { rect, travel: arm.d, across, next: add(arm.p, arm.d, across ? 1 : 2), nextDir: arm.d };
}

/** A corner: the tile lies beside the open half and leaves towards `n`. */
function corner(arm: Arm, n: Dir): Step {
  const rect = span(arm.p, arm.d, 0, 1, n, -0.5, 1.5);
  return { rect, travel: n, across: false, next: add(add(arm.p, arm.d, 0.5), n, 1.5), nextDir: n };
}

/** A small seeded generator (mulberry32): the same board always gets the same drawing. */
function seeded(seed: number): () => number {
  let a = seed * 0x9e3779b9;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EPS = 0.05;
const overlaps = (r: Rect, s: Rect): boolean =>
  r.x + EPS < s.x + s.w && s.x + EPS < r.x + r.w && r.y + EPS < s.y + s.h && s.y + EPS < r.y + r.h;

const within = (r: Rect, half: Vec): boolean =>
  r.x >= -half.x - EPS && r.x + r.w <= half.x + EPS && r.y >= -half.y - EPS && r.y + r.h <= half.y + EPS;

/**
 * Lays out the board for one row width. `rowWidth` bounds the line's rows; for the cross it bounds
 * both axes (scaled by `aspect` = height / width of the space).
 */
export function layoutFor(
  placements: readonly PlacementInput[],
  openEnds: readonly OpenEndInput[],
  shape: Shape,
  rowWidth: number,
  aspect = 1,
  variant = 0,
): BoardLayout {
  // Variant 0 turns away from the centre; others vary the turns (a small seeded search, for the cross).
  const random = variant > 0 ? seeded(variant) : null;
  const turnTowardCentre = variant % 2 === 1;
  const tiles: LaidTile[] = [];
  const rects: Rect[] = [];
  const arms = new Map<string, Arm>();
  const half: Vec = {
    x: rowWidth / 2,
    y: shape === 'cross' ? Math.max(4, (rowWidth / 2) * aspect) : Infinity,
  };
  /** Line: the columns the first row (both arms) covers so far. */
  const row0 = { min: 0, max: 0 };
  /** Line: once an arm has turned, the `rowWidth` columns every row keeps to. */
  let band: { lo: number; hi: number } | null = null;

  const lay = (index: number, seat: number, step: Step, touching: number, open: number) => {
    const [a, b] = step.across ? [touching, touching] : halves(step.travel, touching, open);
    const vertical = step.rect.h > step.rect.w;
    tiles.push({ ...step.rect, index, seat, a, b, vertical, across: step.across });
    rects.push(step.rect);
  };

  const first = placements[0];
  if (first) {
    const [a, b] = first.tile;
    const isDouble = a === b;
    const across = isDouble && (shape === 'line' || first.crossed);
    const rect: Rect = across ? { x: -0.5, y: -1, w: 1, h: 2 } : { x: -1, y: -0.5, w: 2, h: 1 };
    tiles.push({ ...rect, index: 0, seat: first.seat, a, b, vertical: across, across });
    rects.push(rect);
    row0.min = rect.x;
    row0.max = rect.x + rect.w;
    const hw = across ? 0.5 : 1;
    const right: Arm = { p: { x: hw, y: 0 }, d: 'R', turn: 'D', pendingRow: null };
    const left: Arm = { p: { x: -hw, y: 0 }, d: 'L', turn: 'U', pendingRow: null };
    if (shape === 'line') {
      arms.set('left', left);
      arms.set('right', right);
    } else {
      // e0/e1 as the first tile's two halves; a crossed opening double also opens up (e2) and down (e3).
      const ids = first.opens;
      if (ids[0] !== undefined) arms.set(ids[0], left);
      if (ids[1] !== undefined) arms.set(ids[1], right);
      if (ids[2] !== undefined) arms.set(ids[2], { p: { x: 0, y: -1 }, d: 'U', turn: 'L', pendingRow: null });
      if (ids[3] !== undefined) arms.set(ids[3], { p: { x: 0, y: 1 }, d: 'D', turn: 'R', pendingRow: null });
    }
  }

  const nextStep = (arm: Arm, double: boolean, crossed: boolean): Step => {
    if (shape === 'line') {
      if (arm.pendingRow !== null) return corner(arm, OPPOSITE[arm.pendingRow]);
      const s = straight(arm, double);
      let fits: boolean;
      if (band === null) {
        // The first row is shared: with a column kept at each end for a corner tile, it is at most
        // `rowWidth` wide. So it fills the width before either arm turns, wherever the first tile is.
        fits =
          arm.d === 'R'
            ? s.next.x + 2 - row0.min <= rowWidth + EPS
            : row0.max + 2 - s.next.x <= rowWidth + EPS;
      } else {
        // Then every row keeps to the band fixed by the first corner (a column kept for the next one).
        fits = arm.d === 'R' ? s.next.x <= band.hi - 1 + EPS : s.next.x >= band.lo + 1 - EPS;
      }
      return fits ? s : corner(arm, arm.turn);
    }
    const s = straight(arm, crossed);
    if (crossed) return s;
    const free = (r: Rect) => !rects.some((o) => overlaps(o, r));
    const early = random !== null && random() < 0.25;
    if (!early && free(s.rect) && within(s.rect, half)) return s;
    // Turn away from the centre first, then the other way; then accept the straight way.
    const sides = [LEFT_OF[arm.d], OPPOSITE[LEFT_OF[arm.d]]];
    const axis = horizontal(arm.d) ? arm.p.y : arm.p.x;
    const away = (d: Dir) => (horizontal(d) ? VEC[d].x * axis : VEC[d].y * axis);
    sides.sort((m, n) => (turnTowardCentre ? away(m) - away(n) : away(n) - away(m)));
    if (random !== null && random() < 0.5) sides.reverse();
    const options = sides.map((n) => corner(arm, n));
    return (
      options.find((c) => free(c.rect) && within(c.rect, half)) ??
      (free(s.rect) && within(s.rect, half) ? s : undefined) ??
      (free(s.rect) ? s : undefined) ??
      options.find((c) => free(c.rect)) ??
      s
    );
  };

  placements.forEach((pl, index) => {
    if (index === 0 || pl.end === null) return;
    const arm = arms.get(pl.end);
    if (!arm) return;
    const [touching, open] = pl.tile;
    const double = touching === open;
    const step = nextStep(arm, double, pl.crossed);
    lay(index, pl.seat, step, touching, open);
    if (shape === 'line') {
      const turned = step.nextDir !== arm.d;
      if (band === null) {
        row0.min = Math.min(row0.min, step.rect.x);
        row0.max = Math.max(row0.max, step.rect.x + step.rect.w);
        if (turned) {
          band =
            arm.d === 'R'
              ? { lo: step.rect.x + step.rect.w - rowWidth, hi: step.rect.x + step.rect.w }
              : { lo: step.rect.x, hi: step.rect.x + rowWidth };
        }
      }
      arm.pendingRow = turned && !horizontal(step.nextDir) ? arm.d : null;
    }
    if (pl.crossed && step.across) {
      const centre = add(arm.p, arm.d, 0.5);
      const sideA = LEFT_OF[arm.d];
      const sideB = OPPOSITE[sideA];
      const [ida, idb] = pl.opens;
      if (ida !== undefined)
        arms.set(ida, { p: add(centre, sideA, 1), d: sideA, turn: sideA, pendingRow: null });
      if (idb !== undefined)
        arms.set(idb, { p: add(centre, sideB, 1), d: sideB, turn: sideB, pendingRow: null });
    }
    arm.p = step.next;
    arm.d = step.nextDir;
  });

  const ends: EndMarker[] = [];
  for (const end of openEnds) {
    const arm = arms.get(end.id);
    if (!arm) continue;
    // Straight on or turning, the next tile's touching half is centred half a unit past the edge.
    const c = add(arm.p, arm.d, 0.5);
    ends.push({ id: end.id, value: end.value, x: c.x, y: c.y });
  }

  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const r of rects) {
    minX = Math.min(minX, r.x);
    minY = Math.min(minY, r.y);
    maxX = Math.max(maxX, r.x + r.w);
    maxY = Math.max(maxY, r.y + r.h);
  }
  for (const e of ends) {
    minX = Math.min(minX, e.x - 0.5);
    minY = Math.min(minY, e.y - 0.5);
    maxX = Math.max(maxX, e.x + 0.5);
    maxY = Math.max(maxY, e.y + 0.5);
  }
  if (!Number.isFinite(minX)) {
    minX = -1;
    minY = -1;
    maxX = 1;
    maxY = 1;
  }
  return { tiles, ends, bounds: { x: minX, y: minY, w: maxX - minX, h: maxY - minY }, rowWidth };
}

export interface FitOptions {
  /** Pixels available. */
  readonly width: number;
  readonly height: number;
  /** The largest unit (half a tile's length) in pixels. */
  readonly maxUnit: number;
  /** Units of margin around the drawing. */
  readonly margin?: number;
  /** The drawing used last time: kept unless another one draws tiles clearly larger. */
  readonly previous?: { readonly rowWidth: number; readonly variant: number } | null;
}

export interface FittedLayout extends BoardLayout {
  /** Pixels per unit. */
  readonly unit: number;
  readonly variant: number;
  /** Pairs of tiles that overlap: 0 except on the rarest crowded five-tile boards. */
  readonly overlaps: number;
}

const ROW_WIDTHS = [8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 32, 36, 40, 48];
const VARIANTS = 24;

function countOverlaps(tiles: readonly Rect[]): number {
  let n = 0;
  for (let i = 0; i < tiles.length; i++)
    for (let j = i + 1; j < tiles.length; j++) if (overlaps(tiles[i]!, tiles[j]!)) n++;
  return n;
}

/** The layout that draws the tiles largest in `width` × `height` without overlaps, and its scale. */
export function layoutBoard(
  placements: readonly PlacementInput[],
  openEnds: readonly OpenEndInput[],
  shape: Shape,
  fit: FitOptions,
): FittedLayout {
  const margin = fit.margin ?? 0.5;
  const aspect = fit.height / Math.max(1, fit.width);
  const make = (rowWidth: number, variant: number): FittedLayout => {
    const layout = layoutFor(placements, openEnds, shape, rowWidth, aspect, variant);
    const unit = Math.min(
      fit.maxUnit,
      fit.width / (layout.bounds.w + 2 * margin),
      fit.height / (layout.bounds.h + 2 * margin),
    );
    return { ...layout, unit, variant, overlaps: countOverlaps(layout.tiles) };
  };
  const all: FittedLayout[] = ROW_WIDTHS.map((w) => make(w, 0));
  // Crowded five-tile boards: a few other ways of turning, until one has no overlap.
  for (let v = 1; shape === 'cross' && !all.some((c) => c.overlaps === 0) && v < VARIANTS; v++) {
    for (const w of ROW_WIDTHS) all.push(make(w, v));
  }
  const fewest = Math.min(...all.map((c) => c.overlaps));
  const clean = all.filter((c) => c.overlaps === fewest);
  const largest = Math.max(...clean.map((c) => c.unit));
  // Among the drawings (nearly) as large as the largest, the widest rows that still fit the board at
  // the largest size: the chain runs straight to the edge of the board and turns there.
  const natural = fit.width / fit.maxUnit - 2 * margin;
  const near = clean.filter((c) => c.unit >= largest * 0.97);
  const fitting = near.filter((c) => c.rowWidth <= natural + 1e-9);
  const pool = fitting.length > 0 ? fitting : near;
  const best = pool.reduce((a, c) => (c.rowWidth > a.rowWidth ? c : a));
  // Re-flowing the whole board is disorienting: keep the previous drawing while it has no overlap
  // and still draws the tiles nearly as large.
  if (fit.previous) {
    const previous = make(fit.previous.rowWidth, fit.previous.variant);
    if (previous.overlaps <= best.overlaps && previous.unit >= best.unit * 0.88) return previous;
  }
  return best;
}

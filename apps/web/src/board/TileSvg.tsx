/** A domino tile drawn with SVG pips, in unit coordinates (one square half = 1 × 1). */

type Pip = readonly [number, number];

const C = 0.5;
const LO = 0.26;
const HI = 0.74;

/** Pip centres in a unit square; `turned` draws 2, 3 and 6 the other way round. */
function pips(n: number, turned: boolean): Pip[] {
  const base: Record<number, Pip[]> = {
    0: [],
    1: [[C, C]],
    2: [
      [LO, LO],
      [HI, HI],
    ],
    3: [
      [LO, LO],
      [C, C],
      [HI, HI],
    ],
    4: [
      [LO, LO],
      [HI, LO],
      [LO, HI],
      [HI, HI],
    ],
    5: [
      [LO, LO],
      [HI, LO],
      [C, C],
      [LO, HI],
      [HI, HI],
    ],
    6: [
      [LO, 0.22],
      [LO, C],
      [LO, 0.78],
      [HI, 0.22],
      [HI, C],
      [HI, 0.78],
    ],
  };
  const list = base[n] ?? [];
  return turned ? list.map(([x, y]) => [y, 1 - x] as Pip) : list;
}

export interface TileShapeProps {
  readonly x: number;
  readonly y: number;
  readonly vertical: boolean;
  /** Left (or top) half. */
  readonly a: number;
  /** Right (or bottom) half. */
  readonly b: number;
  readonly className?: string;
}

export function TileShape({ x, y, vertical, a, b, className }: TileShapeProps) {
  const w = vertical ? 1 : 2;
  const h = vertical ? 2 : 1;
  const inset = 0.035;
  const halves: [number, number, number][] = vertical
    ? [
        [a, x, y],
        [b, x, y + 1],
      ]
    : [
        [a, x, y],
        [b, x + 1, y],
      ];
  return (
    <g className={className ? `tile ${className}` : 'tile'}>
      <rect
        className="tile-body"
        x={x + inset}
        y={y + inset}
        width={w - 2 * inset}
        height={h - 2 * inset}
        rx={0.14}
        ry={0.14}
      />
      {vertical ? (
        <line className="tile-divider" x1={x + 0.16} x2={x + 0.84} y1={y + 1} y2={y + 1} />
      ) : (
        <line className="tile-divider" x1={x + 1} x2={x + 1} y1={y + 0.16} y2={y + 0.84} />
      )}
      {halves.map(([n, hx, hy], i) =>
        pips(n, !vertical).map(([px, py], j) => (
          <circle key={`${i}-${j}`} className="tile-pip" cx={hx + px} cy={hy + py} r={0.095} />
        )),
      )}
    </g>
  );
}

/** A standalone tile (hand, revealed hands, drag ghost): upright unless `horizontal`. */
export function TileImage({
  tile,
  horizontal = false,
  className,
}: {
  readonly tile: readonly [number, number];
  readonly horizontal?: boolean;
  readonly className?: string;
}) {
  return (
    <svg
      className={className}
      viewBox={horizontal ? '0 0 2 1' : '0 0 1 2'}
      aria-hidden="true"
      focusable="false"
      preserveAspectRatio="xMidYMid meet"
    >
      <TileShape x={0} y={0} vertical={!horizontal} a={tile[0]} b={tile[1]} />
    </svg>
  );
}

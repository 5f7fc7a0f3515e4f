import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { SeatView } from '@dominoes/rules';
import { tileName, useI18n } from '../i18n';
import { layoutBoard, type FittedLayout } from './layout';
import { TileShape } from './TileSvg';

export interface BoardProps {
  readonly game: SeatView;
  /** Ends the player may choose for the tile being played (or dragged); markers are drawn on them. */
  readonly choosableEnds: readonly string[];
  /** The end numbering shown on markers and on the choice buttons. */
  readonly endLabel: (id: string) => string;
  readonly onChooseEnd?: (id: string) => void;
  /** Highlights the end under the dragged tile. */
  readonly hoverEnd?: string | null;
  /** Shown on an empty board (who opens). */
  readonly emptyText?: string;
  /** Where the player of the last tile sits: a tile laid while the board is shown moves in from there. */
  readonly arrivalFrom?: 'bottom' | 'top' | 'left' | 'right';
}

function useSize<T extends HTMLElement>(): [React.RefObject<T | null>, { width: number; height: number }] {
  const ref = useRef<T>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => {
      const r = element.getBoundingClientRect();
      setSize((s) =>
        Math.abs(s.width - r.width) < 1 && Math.abs(s.height - r.height) < 1
          ? s
          : { width: r.width, height: r.height },
      );
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, size];
}

/** The board: the chain (a snake that turns before the edge, D9) or the five-tile cross (F4), scaled to fit. */
export function Board({
  game,
  choosableEnds,
  endLabel,
  onChooseEnd,
  hoverEnd,
  emptyText,
  arrivalFrom,
}: BoardProps) {
  const { t, dir } = useI18n();
  const [ref, size] = useSize<HTMLDivElement>();
  const previous = useRef<{ rowWidth: number; variant: number } | null>(null);
  const placements = game.board.placements;
  const ends = game.board.ends;
  const shape = game.variant === 'five-tile' ? 'cross' : 'line';
  const maxUnit = size.width < 500 ? 26 : 40;
  const roundKey = `${game.roundNumber}`;
  const roundRef = useRef(roundKey);
  /** Tiles from this index on were laid while the board was shown: they move onto it. */
  const shownFrom = useRef(placements.length);
  if (roundRef.current !== roundKey) {
    roundRef.current = roundKey;
    previous.current = null;
    shownFrom.current = placements.length;
  }
  if (placements.length < shownFrom.current) shownFrom.current = placements.length;

  const layout: FittedLayout | null = useMemo(() => {
    if (size.width < 10 || size.height < 10) return null;
    return layoutBoard(placements, ends, shape, {
      width: size.width,
      height: size.height,
      maxUnit,
      margin: 0.6,
      previous: previous.current,
    });
    // previous.current is read on purpose without being a dependency: it only damps re-flows.
  }, [placements, ends, shape, size.width, size.height, maxUnit]);

  useEffect(() => {
    if (layout) previous.current = { rowWidth: layout.rowWidth, variant: layout.variant };
  }, [layout]);

  const endsText = t.andList(ends.map((e) => String(e.value)));
  const summary = placements.length === 0 ? t.boardEmpty : t.boardSummary(placements.length, endsText);
  const last = placements.length - 1;

  let content = null;
  if (layout) {
    const u = layout.unit;
    const vw = size.width / u;
    const vh = size.height / u;
    const cx = layout.bounds.x + layout.bounds.w / 2;
    const cy = layout.bounds.y + layout.bounds.h / 2;
    const viewBox = `${cx - vw / 2} ${cy - vh / 2} ${vw} ${vh}`;
    const choosable = new Set(choosableEnds);
    content = (
      <svg
        className="board-svg"
        width={size.width}
        height={size.height}
        viewBox={viewBox}
        role="img"
        aria-label={summary}
        data-unit={u.toFixed(2)}
        data-tiles={layout.tiles.length}
      >
        {layout.tiles.map((tile) => {
          const p = placements[tile.index];
          const label = p ? tileName(t, p.tile) : '';
          return (
            <g
              key={tile.index}
              data-placement={tile.index}
              aria-label={label}
              className={
                tile.index === last && tile.index >= shownFrom.current
                  ? `arrive from-${arrivalFrom ?? 'bottom'}`
                  : undefined
              }
            >
              <TileShape
                x={tile.x}
                y={tile.y}
                vertical={tile.vertical}
                a={tile.a}
                b={tile.b}
                className={tile.index === last ? 'last' : undefined}
              />
            </g>
          );
        })}
        {layout.ends
          .filter((e) => choosable.has(e.id))
          .map((e) => (
            <g
              key={e.id}
              className={`end-marker${hoverEnd === e.id ? ' hover' : ''}`}
              data-end-id={e.id}
              aria-hidden="true"
              onClick={() => onChooseEnd?.(e.id)}
            >
              <rect className="end-slot" x={e.x - 0.62} y={e.y - 0.62} width={1.24} height={1.24} rx={0.18} />
              <text x={e.x} y={e.y} dy="0.04" textAnchor="middle" dominantBaseline="middle" fontSize={0.62}>
                {`#${endLabel(e.id)}`}
              </text>
            </g>
          ))}
      </svg>
    );
  }

  return (
    <div className="board" ref={ref} data-testid="board" data-board-shape={shape}>
      {placements.length === 0 && (
        <p className="board-empty" dir={dir}>
          {emptyText ?? t.boardEmpty}
        </p>
      )}
      {content}
    </div>
  );
}

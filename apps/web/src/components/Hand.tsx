import { useEffect, useRef, useState } from 'react';
import { tileName, useI18n } from '../i18n';
import { tileKey, type PlayableTile, type Tile } from '../game';
import { TileImage } from '../board/TileSvg';

export interface DragState {
  readonly key: string;
  readonly tile: Tile;
  readonly x: number;
  readonly y: number;
  readonly overEnd: string | null;
}

interface HandProps {
  /** The tiles in the order shown (dealt, or sorted for display). */
  readonly hand: readonly Tile[];
  /** Tiles drawn since the last play: marked as new. */
  readonly newTiles: ReadonlySet<string>;
  readonly playable: ReadonlyMap<string, PlayableTile>;
  readonly myTurn: boolean;
  readonly busy: boolean;
  /** A tile was clicked, or Enter pressed on it. */
  readonly onActivate: (key: string) => void;
  /** A tile was dropped: on an end marker (`end`), on the board (`end` null), or elsewhere (nothing). */
  readonly onDrop: (key: string, end: string | null) => void;
  readonly onDrag: (drag: DragState | null) => void;
  /** The tile whose end is being chosen: keeps its highlight. */
  readonly choosing: string | null;
  readonly focusRequest: number;
}

const DRAG_START_PX = 8;

function endUnder(x: number, y: number): { end: string | null; board: boolean } {
  const element = document.elementFromPoint(x, y);
  const marker = element?.closest('[data-end-id]');
  return {
    end: marker?.getAttribute('data-end-id') ?? null,
    board: Boolean(element?.closest('[data-testid="board"]')),
  };
}

/**
 * The player's tiles as buttons. Tiles listed in `legal` are highlighted, the others dimmed. One tab
 * stop for the whole hand (roving tabindex): arrow keys move, Enter or Space plays. While the clock
 * runs for this seat the keys move among the playable tiles only, so the focus never rests on a tile
 * that cannot be played (with none playable, the hand leaves the tab order). A playable tile can also
 * be dragged onto the board (mouse, pen or touch).
 */
export function Hand({
  hand,
  newTiles,
  playable,
  myTurn,
  busy,
  onActivate,
  onDrop,
  onDrag,
  choosing,
  focusRequest,
}: HandProps) {
  const { t, dir } = useI18n();
  const [focus, setFocus] = useState(0);
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const press = useRef<{
    key: string;
    tile: Tile;
    x: number;
    y: number;
    id: number;
    dragging: boolean;
  } | null>(null);
  const suppressClick = useRef(false);

  const keys = hand.map(tileKey);
  /** The tiles the keys move between: the playable ones during this seat's turn, else all. */
  const restricted = myTurn;
  const stops = keys.flatMap((k, i) => (!restricted || playable.has(k) ? [i] : []));
  const clamped = Math.min(focus, Math.max(0, hand.length - 1));
  const index = stops.includes(clamped) ? clamped : (stops[0] ?? -1);
  useEffect(() => {
    if (index >= 0 && focus !== index) setFocus(index);
  }, [focus, index]);
  // The turn comes while the focus is on a tile that cannot be played: it moves to a playable one.
  const playableKey = stops.join(',');
  useEffect(() => {
    const active = document.activeElement;
    const i = buttons.current.findIndex((b) => b === active);
    if (i >= 0 && !stops.includes(i) && index >= 0) buttons.current[index]?.focus();
    // Only when the turn or the playable tiles change.
  }, [myTurn, playableKey]);
  useEffect(() => {
    if (focusRequest > 0) buttons.current[index]?.focus();
    // Only when asked (after a play or a cancelled choice), not at every render: `index` is left out.
  }, [focusRequest]);

  /** Moves the focus to the `to`-th stop (wrapping). */
  const move = (to: number) => {
    if (stops.length === 0) return;
    const next = stops[(to + stops.length) % stops.length]!;
    setFocus(next);
    buttons.current[next]?.focus();
  };

  const onKeyDown = (event: React.KeyboardEvent, i: number) => {
    const forward = dir === 'rtl' ? 'ArrowLeft' : 'ArrowRight';
    const back = dir === 'rtl' ? 'ArrowRight' : 'ArrowLeft';
    const at = Math.max(0, stops.indexOf(i));
    if (event.key === forward || event.key === 'ArrowDown') move(at + 1);
    else if (event.key === back || event.key === 'ArrowUp') move(at - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(stops.length - 1);
    else return;
    event.preventDefault();
  };

  return (
    <div
      className={hand.length > 9 ? 'hand many' : 'hand'}
      role="toolbar"
      aria-label={t.yourHand}
      aria-describedby="hand-hint"
      data-testid="hand"
    >
      <p id="hand-hint" className="sr-only">
        {t.handHint}
      </p>
      {hand.map((tile, i) => {
        const key = tileKey(tile);
        const can = playable.has(key);
        const name = tileName(t, tile);
        const fresh = newTiles.has(key);
        return (
          <button
            key={key}
            type="button"
            ref={(el) => {
              buttons.current[i] = el;
            }}
            className={`hand-tile${can ? ' playable' : ''}${myTurn && !can ? ' dim' : ''}${!myTurn ? ' idle' : ''}${choosing === key ? ' choosing' : ''}${fresh ? ' new' : ''}`}
            data-testid="hand-tile"
            data-tile={key}
            data-playable={can}
            data-new={fresh}
            aria-label={`${name}, ${can ? t.playable : t.notPlayable}${fresh ? `, ${t.newTile}` : ''}`}
            aria-disabled={!can || busy}
            tabIndex={i === index ? 0 : -1}
            onFocus={() => setFocus(i)}
            onKeyDown={(e) => onKeyDown(e, i)}
            onClick={() => {
              if (suppressClick.current) {
                suppressClick.current = false;
                return;
              }
              if (can && !busy) onActivate(key);
            }}
            onPointerDown={(e) => {
              if (!can || busy || e.button !== 0) return;
              press.current = { key, tile, x: e.clientX, y: e.clientY, id: e.pointerId, dragging: false };
              // Keep the pointer's moves coming here even when it leaves the tile at once.
              e.currentTarget.setPointerCapture?.(e.pointerId);
            }}
            onPointerMove={(e) => {
              const p = press.current;
              if (!p || p.id !== e.pointerId) return;
              if (!p.dragging && Math.hypot(e.clientX - p.x, e.clientY - p.y) < DRAG_START_PX) return;
              p.dragging = true;
              onDrag({
                key: p.key,
                tile: p.tile,
                x: e.clientX,
                y: e.clientY,
                overEnd: endUnder(e.clientX, e.clientY).end,
              });
            }}
            onPointerUp={(e) => {
              const p = press.current;
              press.current = null;
              if (!p || !p.dragging) return;
              suppressClick.current = true;
              onDrag(null);
              const under = endUnder(e.clientX, e.clientY);
              if (under.end !== null || under.board) onDrop(p.key, under.end);
            }}
            onPointerCancel={() => {
              press.current = null;
              onDrag(null);
            }}
          >
            <TileImage tile={tile} />
            {fresh && (
              <span className="new-badge" aria-hidden="true">
                {t.newTile}
              </span>
            )}
          </button>
        );
      })}
    </div>
  );
}

import { useEffect, useRef, useState } from 'react';
import type { TableView } from '@dominoes/protocol';
import { tileName, useI18n, type Dict } from '../i18n';
import { useSession, useStoredFlag } from '../hooks';
import { DISCONNECTED_TURN_MS, newlyDrawn, sameEndPlay, shortenedTurn, sortedHand, soundsFor } from '../feel';
import { isMuted, playSound } from '../sound';
import { Board } from '../board/Board';
import { TileImage } from '../board/TileSvg';
import {
  canDraw,
  canPass,
  describeEntry,
  endsText,
  passEnds,
  placeOf,
  playableTiles,
  seatName,
  type SeatView,
  type Place,
} from '../game';
import { Countdown } from './Countdown';
import { Hand, type DragState } from './Hand';
import { useAnnounce } from './LiveRegion';
import { ResultPanel } from './ResultPanel';
import { Seat } from './Seat';
import { SidePanel } from './SidePanel';
import { SeatReaction } from '../chat/ChatPanel';
import { Avatar } from './Avatar';
import { ScoreStrip } from './ScoreStrip';
import { useWatchTexts } from '../i18n/watch';
import '../watch.css';

interface Choice {
  readonly key: string;
  readonly tile: readonly [number, number];
  readonly ends: readonly string[];
}

/** What changed between two views, in words for the live region. */
function announcements(t: Dict, view: TableView, before: TableView | null): string[] {
  const game = view.game;
  const old = before?.game ?? null;
  if (!game) return [];
  const out: string[] = [];
  const me = view.you.seat;
  const sameRound =
    old !== null && old.roundNumber === game.roundNumber && before?.matchNumber === view.matchNumber;
  if (!sameRound && game.phase === 'playing') out.push(t.annRoundStart(game.roundNumber));
  const from = sameRound && old ? old.log.length : game.log.length;
  const ends = passEnds(game);
  for (let i = from; i < game.log.length; i++) {
    const entry = game.log[i];
    if (!entry) continue;
    if (entry.seat === me && entry.by === 'player') continue;
    const name = seatName(t, view, entry.seat);
    const what =
      entry.type === 'pass'
        ? t.annPass(name, endsText(t, ends.get(i) ?? []))
        : entry.type === 'play'
          ? t.annPlay(name, tileName(t, entry.tile))
          : t.annDraw(name);
    out.push(entry.by === 'deadline' ? t.annByTable(what) : what);
  }
  if (game.roundResult && !(sameRound && old?.roundResult)) {
    out.push(game.phase === 'over' ? t.matchOver : t.roundOver(game.roundNumber));
  }
  const turnChanged = !sameRound || old?.turn !== game.turn || (old?.log.length ?? 0) !== game.log.length;
  if (game.phase === 'playing' && game.turn !== null && turnChanged) {
    out.push(game.turn === me ? t.annYourTurn : t.annTurn(seatName(t, view, game.turn)));
  }
  return out;
}

function endLabelOf(game: SeatView) {
  const order = game.board.ends.map((e) => e.id);
  return (id: string) => String(order.indexOf(id) + 1);
}

function endChoiceText(t: Dict, game: SeatView, id: string): string {
  const end = game.board.ends.find((e) => e.id === id);
  const value = end?.value ?? 0;
  const n = game.board.ends.findIndex((e) => e.id === id) + 1;
  if (id === 'left') return t.endLeft(value);
  if (id === 'right') return t.endRight(value);
  return t.endN(n, value);
}

/**
 * The table in play. `spectating` (decision 0018): drawn for a spectator, from seat 0, with no hand
 * and no control (the view holds no hand to show); nobody's turn is "yours".
 */
export function GameTable({
  view,
  version,
  spectating = false,
}: {
  view: TableView;
  version: number;
  spectating?: boolean;
}) {
  const { t } = useI18n();
  const [state, session] = useSession();
  const announce = useAnnounce();
  const game = view.game as SeatView;
  const me = view.you.seat;
  const [choice, setChoice] = useState<Choice | null>(null);
  const [drag, setDrag] = useState<DragState | null>(null);
  const [collapsed, setCollapsed] = useState(false);
  const [focusRequest, setFocusRequest] = useState(0);
  const previous = useRef<TableView | null>(null);
  const choiceRef = useRef<HTMLDivElement>(null);
  const [sorted, setSorted] = useStoredFlag('dominoes.sortHand');
  const [shortTurn, setShortTurn] = useState(false);
  /** True until the first view after the page (re)connected: then a shortened turn (P17) is told. */
  const comeback = useRef(true);

  const playable = playableTiles(game);
  const myTurn = !spectating && game.phase === 'playing' && game.turn === me;
  const watchTexts = useWatchTexts();
  const busy = state.pending || state.status !== 'online';
  const passable = canPass(game);
  const drawable = canDraw(game);
  const boneyardGame = view.variant !== 'partnership';
  const endLabel = endLabelOf(game);

  useEffect(() => {
    if (state.status !== 'online') comeback.current = true;
  }, [state.status]);

  // Speak what changed, sound it; forget a choice the view no longer allows.
  useEffect(() => {
    // A spectator hears every seat as another's: nothing is "your turn".
    const heard = spectating ? { ...view, you: { ...view.you, seat: -1 } } : view;
    for (const text of announcements(t, heard, previous.current)) announce(text);
    for (const kind of soundsFor(heard, previous.current)) playSound(kind);
    const before = previous.current?.game;
    previous.current = view;
    if (comeback.current && state.status === 'online') {
      comeback.current = false;
      setShortTurn(shortenedTurn(view, session.serverNow()));
    } else if (
      view.game?.turn !== view.you.seat ||
      view.game.phase !== 'playing' ||
      before?.roundNumber !== view.game.roundNumber
    )
      setShortTurn(false);
    setChoice((c) => {
      if (!c) return c;
      const still = playableTiles(view.game).get(c.key);
      return still && still.ends.length > 1 ? c : null;
    });
    // `t` is left out on purpose: switching the language must not repeat the announcements.
  }, [view, announce]);

  // The tab's title says when it is your turn (for a player looking at another tab); in the
  // background it blinks, and a phone vibrates once when the turn comes.
  useEffect(() => {
    const still = myTurn ? `● ${t.yourTurn} · ${t.appName}` : `${t.tableOf(view.tableId)} · ${t.appName}`;
    document.title = still;
    if (!myTurn) return () => void (document.title = t.appName);
    let on = false;
    const blink = setInterval(() => {
      on = document.hidden ? !on : false;
      document.title = on ? `🔔 ${t.yourTurnAlert} · ${t.appName}` : still;
    }, 1_000);
    return () => {
      clearInterval(blink);
      document.title = t.appName;
    };
  }, [myTurn, t, view.tableId]);
  const turnKey = `${game.roundNumber}:${game.log.length}`;
  useEffect(() => {
    if (myTurn && document.hidden && !isMuted()) navigator.vibrate?.([150, 80, 150]);
  }, [myTurn, turnKey]);

  // While the clock runs, the focus is never on a tile that cannot be played: with none playable
  // it goes to the draw or pass button.
  useEffect(() => {
    const active = document.activeElement;
    if (!myTurn || playable.size > 0 || !active?.closest('[data-testid="hand"]')) return;
    const next = document.querySelector<HTMLButtonElement>(
      drawable ? '[data-testid="draw"]' : '[data-testid="pass"]',
    );
    if (next && !next.disabled) next.focus();
    else (active as HTMLElement).blur();
  }, [myTurn, playable.size, drawable, turnKey]);

  useEffect(() => {
    if (game.phase === 'playing') setCollapsed(false);
  }, [game.phase, game.roundNumber]);

  useEffect(() => {
    if (choice) choiceRef.current?.querySelector('button')?.focus();
  }, [choice]);

  const play = async (tile: readonly [number, number], end: string | undefined) => {
    setChoice(null);
    const ok = await session.play(tile, end);
    if (ok) setFocusRequest((n) => n + 1);
  };

  const activate = (key: string) => {
    const p = playable.get(key);
    if (!p || busy) return;
    const same = sameEndPlay(game, key);
    if (same !== null) void play(p.tile, same);
    else if (p.ends.length > 1) setChoice({ key, tile: p.tile, ends: p.ends });
    else void play(p.tile, p.ends[0]);
  };

  const drop = (key: string, end: string | null) => {
    const p = playable.get(key);
    if (!p || busy) return;
    if (end !== null && p.ends.includes(end)) void play(p.tile, end);
    else activate(key);
  };

  const cancelChoice = () => {
    setChoice(null);
    setFocusRequest((n) => n + 1);
  };

  const others = Array.from({ length: view.seatCount }, (_, s) => s).filter((s) => s !== me);
  const placeOfSeat = new Map<number, Place>(others.map((s) => [s, placeOf(s, me, view.seatCount)]));
  const seatAt = (place: Place) => others.find((s) => placeOfSeat.get(s) === place);
  const dragEnds = drag ? (playable.get(drag.key)?.ends ?? []) : [];
  const markerEnds = choice ? choice.ends : dragEnds;
  const showResult = game.roundResult !== null && game.phase !== 'playing';
  const clock = view.clock;
  const turnName = seatName(t, view, game.turn);
  const mySide = game.sideOfSeat[me] ?? me;
  const myInfo = view.seats[me];

  let status: React.ReactNode = null;
  if (game.phase === 'playing' && game.turn !== null) {
    status = (
      <>
        <span className={myTurn ? 'turn-text mine' : 'turn-text'} data-testid="turn-text">
          {myTurn ? t.yourTurn : t.turnOf(turnName)}
        </span>
        {clock?.kind === 'turn' && (
          <Countdown deadline={clock.deadline} label={myTurn ? t.yourTurn : t.turnOf(turnName)} />
        )}
      </>
    );
  } else if (game.phase === 'over') {
    status = (
      <span className="turn-text" data-testid="status-title">
        {t.matchOver}
      </span>
    );
  } else if (clock?.kind === 'break') {
    status = (
      <span className="turn-text" data-testid="status-title">
        {t.roundOver(game.roundNumber)}
      </span>
    );
  }
  const lastPlay = [...game.log].reverse().find((e) => e.type === 'play');
  const arrivalFrom = lastPlay ? placeOf(lastPlay.seat, me, view.seatCount) : undefined;
  const handShown = sorted ? sortedHand(game.hand) : game.hand;
  const lastIndex = game.log.length - 1;
  const lastEntry = game.log[lastIndex];
  const lastText = lastEntry ? describeEntry(t, view, lastEntry, passEnds(game).get(lastIndex)) : null;

  return (
    <main
      className={`game${showResult ? ' with-result' : ''}${state.status === 'online' ? '' : ' stale'}`}
      id="main"
      data-testid="game"
      data-version={version}
      data-seat={me}
      data-phase={game.phase}
      data-round={game.roundNumber}
      data-turn={game.turn ?? ''}
    >
      <div className="table-column">
        {showResult && !collapsed && (
          <div className="result-layer">
            <ResultPanel
              view={view}
              game={game}
              collapsed={false}
              onToggle={() => setCollapsed(true)}
              spectating={spectating}
            />
          </div>
        )}
        <div className={`play-area seats-${view.seatCount}`} dir="ltr">
          {(['top', 'left', 'right'] as const).map((place) => {
            const seat = seatAt(place);
            return seat === undefined ? (
              <div key={place} className={`seat-slot place-${place}`} />
            ) : (
              <div key={place} className={`seat-slot place-${place}`}>
                <Seat view={view} game={game} seat={seat} place={place} />
              </div>
            );
          })}
          <div className="board-slot">
            <Board
              game={game}
              choosableEnds={markerEnds}
              endLabel={endLabel}
              onChooseEnd={(id) => choice && void play(choice.tile, id)}
              hoverEnd={drag?.overEnd ?? null}
              arrivalFrom={arrivalFrom}
              emptyText={
                game.phase !== 'playing' || game.turn === null
                  ? undefined
                  : myTurn
                    ? t.youOpen
                    : t.waitingForOpener(turnName)
              }
            />
          </div>
        </div>

        <div className="status-bar" data-testid="status">
          <div className="status-main">{status}</div>
          {showResult && collapsed && (
            <ResultPanel
              view={view}
              game={game}
              collapsed
              onToggle={() => setCollapsed(false)}
              spectating={spectating}
            />
          )}
          <ScoreStrip view={view} game={game} />
          {shortTurn && myTurn && (
            <p className="short-turn" role="alert" data-testid="short-turn">
              <span aria-hidden="true">⚠ </span>
              {t.shortTurn(Math.round(DISCONNECTED_TURN_MS / 1000))}
            </p>
          )}
          {lastText && !(shortTurn && myTurn) && (
            <div className={`last-move by-${lastEntry?.by}`} data-testid="last-move">
              {lastEntry?.by === 'deadline' && <span aria-hidden="true">⏱ </span>}
              {lastText}
              {lastEntry?.by === 'deadline' && <span className="by-table"> · {t.byTable}</span>}
            </div>
          )}
          {boneyardGame && game.phase === 'playing' && (
            <span className="boneyard">{t.boneyard(game.stockCount)}</span>
          )}
          {(view.watchers ?? 0) > 0 && (
            <span className="watchers" data-testid="watchers">
              <span aria-hidden="true">👁 </span>
              {watchTexts.watchers(view.watchers ?? 0)}
            </span>
          )}
        </div>

        {spectating && (
          <section className="spectator-area" aria-label={watchTexts.watchingTitle(view.tableId)}>
            <Seat view={view} game={game} seat={me} place="bottom" />
            <p className="hint" data-testid="watching-note">
              {watchTexts.watchingNote}
            </p>
          </section>
        )}
        {!spectating && (
          <section
            className={`my-area side-${view.variant === 'partnership' ? mySide : me}${myTurn ? ' turn' : ''}`}
            aria-label={t.yourHand}
          >
            <div className="my-head">
              <span className="me-name">
                <span className="avatar-wrap">
                  <Avatar name={seatName(t, view, me)} size="sm" />
                  <span
                    className={myInfo?.connected && state.status === 'online' ? 'dot on' : 'dot off'}
                    aria-hidden="true"
                  />
                </span>
                {seatName(t, view, me)} ({t.you})
                <SeatReaction seat={me} />
                {view.hostSeat === me && <span className="badge host">★ {t.host}</span>}
                {view.variant === 'partnership' && (
                  <span className={`team-tag team-${mySide}`}>{t.team(mySide)}</span>
                )}
              </span>
              <div className="controls">
                {boneyardGame && (
                  <button
                    type="button"
                    data-testid="draw"
                    disabled={!drawable || busy}
                    onClick={() => void session.draw()}
                  >
                    {t.draw}
                  </button>
                )}
                <button
                  type="button"
                  data-testid="pass"
                  disabled={!passable || busy}
                  onClick={() => void session.pass()}
                >
                  {t.pass}
                </button>
                <button
                  type="button"
                  role="switch"
                  className="switch"
                  aria-checked={view.you.autoPass}
                  aria-describedby="autopass-hint"
                  data-testid="autopass"
                  disabled={state.status !== 'online'}
                  onClick={() => void session.autoPass(!view.you.autoPass)}
                >
                  <span className="knob" aria-hidden="true" />
                  {t.autoPass}
                </button>
                <span id="autopass-hint" className="sr-only">
                  {t.autoPassHint}
                </span>
                <button
                  type="button"
                  role="switch"
                  className="switch"
                  aria-checked={sorted}
                  aria-label={t.sortHand}
                  aria-describedby="sort-note"
                  data-testid="sort-hand"
                  onClick={() => setSorted(!sorted)}
                >
                  <span className="knob" aria-hidden="true" />
                  <span className="long-label">{t.sortHand}</span>
                  <span className="short-label" aria-hidden="true">
                    {t.sortShort}
                  </span>
                </button>
                <span id="sort-note" className={sorted ? 'sort-note' : 'sr-only'} data-testid="sort-note">
                  {t.sortHandNote}
                </span>
              </div>
            </div>
            {choice && (
              <div
                className="end-choice"
                role="group"
                aria-label={t.chooseEnd(tileName(t, choice.tile))}
                ref={choiceRef}
                data-testid="end-choice"
                onKeyDown={(e) => {
                  if (e.key === 'Escape') {
                    e.preventDefault();
                    cancelChoice();
                  }
                }}
              >
                <span className="choice-title">{t.chooseEnd(tileName(t, choice.tile))}</span>
                {choice.ends.map((id) => (
                  <button
                    key={id}
                    type="button"
                    className="primary"
                    data-end={id}
                    onClick={() => void play(choice.tile, id)}
                  >
                    <span className="end-no" aria-hidden="true">
                      #{endLabel(id)}
                    </span>
                    {endChoiceText(t, game, id)}
                  </button>
                ))}
                <button type="button" className="ghost" onClick={cancelChoice}>
                  {t.cancel}
                </button>
              </div>
            )}
            <Hand
              hand={handShown}
              newTiles={newlyDrawn(game, me)}
              playable={playable}
              myTurn={myTurn}
              busy={busy}
              onActivate={activate}
              onDrop={drop}
              onDrag={setDrag}
              choosing={choice?.key ?? null}
              focusRequest={focusRequest}
            />
            {state.actionProblem && (
              <p className="hint error" role="alert" data-testid="action-problem">
                {t.errorText(state.actionProblem.code, state.actionProblem.message)}
              </p>
            )}
          </section>
        )}
      </div>
      <SidePanel view={view} game={game} spectating={spectating} />
      {drag && (
        <div className="drag-ghost" style={{ left: drag.x, top: drag.y }} aria-hidden="true">
          <TileImage tile={drag.tile} />
        </div>
      )}
    </main>
  );
}

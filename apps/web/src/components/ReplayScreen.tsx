import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { getReplay, parseMatchId, type MatchReplayResponse } from '@dominoes/protocol';
import { rulesOf, seatView, type Tile } from '@dominoes/rules';
import { useI18n, type Dict } from '../i18n';
import { useHistoryTexts, type HistoryDict } from '../i18n/history';
import { copyText } from '../hooks';
import { Board } from '../board/Board';
import { TileImage } from '../board/TileSvg';
import { MoveMark } from './MoveMark';
import { describeEntry, passEnds, placeOf, seatName, sideName, type NamedSeats } from '../game';
import { replaySteps, roundStart, type ReplayStep } from '../replay';
import { problemOf } from '../session';
import '../history.css';

type Loaded =
  | { readonly kind: 'loading' }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'loaded'; readonly replay: MatchReplayResponse; readonly steps: ReplayStep[] };

function refusalText(h: HistoryDict, t: Dict, error: unknown): string {
  const p = problemOf(error);
  if (p.code === 'MATCH_NOT_OVER') return h.notOver;
  if (p.code === 'MATCH_NOT_FOUND') return h.notFound;
  return t.errorText(p.code, p.message);
}

/** One seat of the replay: its name, side, and its whole hand face up (the match is over). */
function ReplaySeat({
  names,
  seat,
  hand,
  turn,
  place,
}: {
  names: NamedSeats;
  seat: number;
  hand: readonly Tile[];
  turn: boolean;
  place: string;
}) {
  const { t } = useI18n();
  const partnership = names.variant === 'partnership';
  const side = rulesOf(names.variant).sideOf(seat);
  const name = seatName(t, names, seat);
  return (
    <section
      className={`seat replay-seat place-${place}${turn ? ' turn' : ''} side-${partnership ? side : seat}`}
      aria-label={`${name}${partnership ? `, ${t.team(side)}` : ''}: ${t.tilesInHand(hand.length)}`}
      data-testid={`replay-seat-${seat}`}
      data-tiles={hand.length}
    >
      <div className="seat-head">
        <span className="seat-name" title={name}>
          {name}
        </span>
        {partnership && <span className={`team-tag team-${side}`}>{t.team(side)}</span>}
      </div>
      <div className="replay-hand">
        {hand.length === 0 ? (
          <span className="muted">{t.emptyHand}</span>
        ) : (
          hand.map((tile) => <TileImage key={`${tile[0]}-${tile[1]}`} tile={tile} className="replay-tile" />)
        )}
      </div>
    </section>
  );
}

/** The replay of a finished match at /replay/:matchId: every move of every round, forward and back. */
export function ReplayScreen({ id }: { readonly id: string }) {
  const { t, dir } = useI18n();
  const h = useHistoryTexts();
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  const [at, setAt] = useState(0);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    document.title = `${h.replayTitle} · ${t.appName}`;
  }, [h, t]);

  useEffect(() => {
    if (!parseMatchId(id)) {
      setLoaded({ kind: 'failed', message: h.badId });
      return;
    }
    let live = true;
    setLoaded({ kind: 'loading' });
    getReplay(location.origin, id).then(
      (replay) => {
        if (!live) return;
        const steps = replaySteps(replay);
        if (steps) setLoaded({ kind: 'loaded', replay, steps });
        else setLoaded({ kind: 'failed', message: t.errorText('INTERNAL', 'the replay does not replay') });
      },
      (error: unknown) => live && setLoaded({ kind: 'failed', message: refusalText(h, t, error) }),
    );
    return () => {
      live = false;
    };
  }, [id, h, t]);

  const steps = loaded.kind === 'loaded' ? loaded.steps : [];
  const last = Math.max(0, steps.length - 1);
  const go = useCallback((to: number) => setAt(Math.min(Math.max(0, to), last)), [last]);

  useEffect(() => {
    // Forward is the reading direction: → in English, ← in Arabic (the buttons are mirrored too).
    const forwardKey = dir === 'rtl' ? 'ArrowLeft' : 'ArrowRight';
    const backKey = dir === 'rtl' ? 'ArrowRight' : 'ArrowLeft';
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === forwardKey) go(at + 1);
      else if (e.key === backKey) go(at - 1);
      else if (e.key === 'Home') go(0);
      else if (e.key === 'End') go(last);
      else if (e.key === 'PageDown') go(roundStart(steps, at, 1));
      else if (e.key === 'PageUp') go(roundStart(steps, at, -1));
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [at, dir, go, last, steps]);

  // The current move stays in sight in the round's list (the list scrolls, not the page).
  const moveList = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const list = moveList.current;
    const current = list?.querySelector<HTMLElement>('[aria-current="step"]');
    if (!list || !current) return;
    const top = current.offsetTop; // the list is positioned: its items' offsets are inside it
    if (top < list.scrollTop || top + current.offsetHeight > list.scrollTop + list.clientHeight)
      list.scrollTop = Math.max(0, top - list.clientHeight / 2);
  }, [at]);

  const names: NamedSeats | null = useMemo(
    () =>
      loaded.kind === 'loaded'
        ? {
            variant: loaded.replay.variant,
            seats: loaded.replay.players.map((name) => (name === null ? null : { name })),
          }
        : null,
    [loaded],
  );

  if (loaded.kind !== 'loaded' || !names) {
    return (
      <main className="lobby" id="main">
        <section className="card">
          <h1>{h.replayTitle}</h1>
          {loaded.kind !== 'failed' ? (
            <p aria-live="polite">{h.loading}</p>
          ) : (
            <p role="alert" data-testid="replay-problem">
              {loaded.message}
            </p>
          )}
        </section>
      </main>
    );
  }

  const { replay } = loaded;
  const step = steps[Math.min(at, last)]!;
  const round = step.state.round!;
  const game = seatView(step.state, 0);
  const ends = passEnds(game);
  const partnership = replay.variant === 'partnership';
  const sides = partnership ? [0, 1] : replay.players.map((_, s) => s);
  const roundOver = round.result !== null;
  const when = new Date(replay.endedAt ?? replay.startedAt).toLocaleString(undefined, {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  const outcome =
    replay.status === 'abandoned'
      ? h.abandonedNote
      : replay.winnerSide === null
        ? h.nobodyWon
        : h.winnerIs(sideName(t, names, replay.winnerSide));
  const moveText = step.entry ? describeEntry(t, names, step.entry, ends.get(step.move - 1)) : h.dealt;
  const roundSummary = replay.rounds[step.round];
  // The scores as the page's own replay (libs/rules) makes them: after each round's last move, and at the end.
  const scoresAfter = replay.rounds.map(
    (_, r) => steps.filter((s) => s.round === r).at(-1)?.state.scores ?? [],
  );
  const finalScores = steps[last]!.state.scores;

  return (
    <main className="game replay" id="main" data-testid="replay">
      <div className="table-column">
        <header className="card compact replay-head">
          <div>
            <h1>
              {h.replayTitle}: {t.variantName(replay.variant)} ·{' '}
              {replay.oneRound ? t.oneRound : t.targetIs(replay.target)}
            </h1>
            <p className="muted">
              <time dateTime={replay.endedAt ?? replay.startedAt}>{when}</time> ·{' '}
              <span data-testid="replay-outcome" data-status={replay.status}>
                {outcome}
              </span>
            </p>
          </div>
          <button
            type="button"
            className="ghost small"
            onClick={() => void copyText(location.href).then((ok) => setCopied(ok))}
          >
            {copied ? t.copied : h.share}
          </button>
        </header>
        <div className={`play-area replay-area seats-${replay.seats}`}>
          {replay.players.map((_, seat) => {
            const place = placeOf(seat, 0, replay.seats);
            return (
              <div key={seat} className={`seat-slot place-${place}`}>
                <ReplaySeat
                  names={names}
                  seat={seat}
                  hand={round.hands[seat] ?? []}
                  turn={!roundOver && round.turn === seat}
                  place={place}
                />
              </div>
            );
          })}
          <div className="board-slot">
            <Board
              game={game}
              choosableEnds={[]}
              endLabel={(end) => end}
              emptyText={t.waitingForOpener(seatName(t, names, round.opener))}
            />
          </div>
        </div>
      </div>
      <aside className="side-panel">
        <section className="card compact replay-controls" aria-label={h.replayTitle}>
          <div className="replay-buttons">
            <button
              type="button"
              onClick={() => go(0)}
              disabled={at === 0}
              aria-label={h.toStart}
              title={h.toStart}
            >
              <span aria-hidden="true">⏮</span>
            </button>
            <button
              type="button"
              onClick={() => go(roundStart(steps, at, -1))}
              disabled={at === 0}
              aria-label={h.prevRound}
              title={h.prevRound}
            >
              <span aria-hidden="true">⏪</span>
            </button>
            <button
              type="button"
              onClick={() => go(at - 1)}
              disabled={at === 0}
              aria-label={h.back}
              title={h.back}
              data-testid="replay-back"
            >
              <span aria-hidden="true">◀</span>
            </button>
            <button
              type="button"
              className="primary"
              onClick={() => go(at + 1)}
              disabled={at === last}
              aria-label={h.forward}
              title={h.forward}
              data-testid="replay-forward"
            >
              <span aria-hidden="true">▶</span>
            </button>
            <button
              type="button"
              onClick={() => go(roundStart(steps, at, 1))}
              disabled={at === last}
              aria-label={h.nextRound}
              title={h.nextRound}
            >
              <span aria-hidden="true">⏩</span>
            </button>
            <button
              type="button"
              onClick={() => go(last)}
              disabled={at === last}
              aria-label={h.toEnd}
              title={h.toEnd}
            >
              <span aria-hidden="true">⏭</span>
            </button>
          </div>
          <p
            className="replay-step"
            data-testid="replay-step"
            data-step={at}
            data-steps={steps.length}
            data-round={step.round}
            data-move={step.move}
          >
            {h.stepOf(step.round + 1, step.move, step.moves)}
          </p>
          <p
            className="replay-move"
            aria-live="polite"
            data-testid="replay-move-now"
            data-by={step.entry?.by ?? ''}
          >
            {moveText} <MoveMark by={step.entry?.by} />
          </p>
          {roundOver && roundSummary && roundSummary.points !== null && (
            <p className="replay-round-result" data-testid="replay-round-result">
              {t.historyRow(step.round + 1, sideName(t, names, roundSummary.winnerSide), roundSummary.points)}
            </p>
          )}
          <p className="hint">{h.keysHint}</p>
        </section>
        <section className="card compact moves" aria-labelledby="replay-moves-title">
          <h2 id="replay-moves-title">
            {t.moves} · {t.roundN(step.round + 1)}
          </h2>
          <ol className="move-list replay-moves" data-testid="replay-moves" ref={moveList}>
            {round.log.map((entry, i) => (
              <li
                key={i}
                data-testid="replay-move"
                data-by={entry.by}
                aria-current={i === step.move - 1 ? 'step' : undefined}
                className={i < step.move ? 'done' : 'later'}
              >
                <button type="button" className="link" onClick={() => go(at - step.move + i + 1)}>
                  {describeEntry(t, names, entry, ends.get(i))}
                </button>
                <MoveMark by={entry.by} />
              </li>
            ))}
          </ol>
        </section>
        <section className="card compact" aria-labelledby="replay-scores-title">
          <h2 id="replay-scores-title">{h.scoreAfter}</h2>
          <table className="replay-scores" data-testid="replay-scores">
            <thead>
              <tr>
                <th scope="col">{h.roundCol}</th>
                {sides.map((side) => (
                  <th key={side} scope="col">
                    {sideName(t, names, side)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {replay.rounds.map((r, i) => (
                <tr
                  key={i}
                  className={i === step.round ? 'current' : i > step.round ? 'later' : ''}
                  data-testid="replay-score-row"
                >
                  <th scope="row">
                    {i + 1}
                    {!r.complete && <span className="muted"> ({h.unfinished})</span>}
                  </th>
                  {(scoresAfter[i] ?? []).map((score, side) => (
                    <td key={side}>{score}</td>
                  ))}
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr data-testid="replay-final-scores" data-scores={finalScores.join(',')}>
                <th scope="row">{t.scores}</th>
                {finalScores.map((score, side) => (
                  <td key={side}>
                    <strong>{score}</strong>
                  </td>
                ))}
              </tr>
            </tfoot>
          </table>
        </section>
      </aside>
    </main>
  );
}

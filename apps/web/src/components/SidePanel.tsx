import type { TableView } from '@dominoes/protocol';
import { ChatPanel } from '../chat/ChatPanel';
import { useI18n } from '../i18n';
import { describeEntry, passEnds, seatName, sideName, type SeatView } from '../game';
import { MoveMark } from './MoveMark';

/** Scores, the rounds played, and this round's moves (the table's own moves marked as such). */
/** `spectating`: a spectator's side panel, whose chat it reads but does not write in (decision 0018). */
export function SidePanel({
  view,
  game,
  spectating = false,
}: {
  view: TableView;
  game: SeatView;
  spectating?: boolean;
}) {
  const { t } = useI18n();
  const ends = passEnds(game);
  const partnership = view.variant === 'partnership';
  const entries = game.log.map((entry, i) => ({ entry, i })).reverse();
  return (
    <aside className="side-panel" aria-label={t.scoreboard}>
      <section className="card compact">
        <h2>{t.scoreboard}</h2>
        <p className="muted">
          {t.variantName(view.variant)} · {t.targetIs(view.target)}
          {game.roundNumber > 0 && ` · ${t.roundN(game.roundNumber)}`}
        </p>
        <ol className="score-list" data-testid="scoreboard">
          {game.scores.map((score, side) => (
            <li key={side} className={`side-${side}`}>
              <span>
                {sideName(t, view, side)}
                {partnership && (
                  <span className="members">
                    {' '}
                    (
                    {t.andList(
                      game.sideOfSeat.flatMap((s, seat) => (s === side ? [seatName(t, view, seat)] : [])),
                    )}
                    )
                  </span>
                )}
              </span>
              <strong>{score}</strong>
            </li>
          ))}
        </ol>
        {game.history.length > 0 && (
          <details className="history">
            <summary>{t.historyTitle}</summary>
            <ol>
              {game.history.map((h) => (
                <li key={h.number}>{t.historyRow(h.number, sideName(t, view, h.winnerSide), h.points)}</li>
              ))}
            </ol>
          </details>
        )}
      </section>
      <section className="card compact moves" aria-labelledby="moves-title">
        <h2 id="moves-title">{t.moves}</h2>
        {entries.length === 0 ? (
          <p className="muted">{t.noMoves}</p>
        ) : (
          <ol reversed className="move-list" data-testid="moves">
            {entries.map(({ entry, i }) => (
              <li key={i} data-testid="move" data-by={entry.by} data-type={entry.type}>
                <span>{describeEntry(t, view, entry, ends.get(i))}</span>
                <MoveMark by={entry.by} />
              </li>
            ))}
          </ol>
        )}
      </section>
      <ChatPanel mySeat={spectating ? null : view.you.seat} />
    </aside>
  );
}

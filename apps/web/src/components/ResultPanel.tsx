import { useEffect, useRef } from 'react';
import type { TableView } from '@dominoes/protocol';
import { tileName, useI18n } from '../i18n';
import { navigate, useNow, useSession } from '../hooks';
import { explainRound, pipsOf, seatName, sideName, type SeatView } from '../game';
import { TileImage } from '../board/TileSvg';
import { Countdown } from './Countdown';

/**
 * The end of a round (P12: every hand revealed, the score worked out, the break counting down, the
 * host's "start now") and of a match (the winner, the final scores, the host's "new match").
 */
export function ResultPanel({
  view,
  game,
  collapsed,
  onToggle,
  spectating = false,
}: {
  view: TableView;
  game: SeatView;
  collapsed: boolean;
  onToggle: () => void;
  /** A spectator's (decision 0018): no seat is "you", nobody here starts the next round. */
  spectating?: boolean;
}) {
  const { t } = useI18n();
  const [state, session] = useSession();
  const heading = useRef<HTMLHeadingElement>(null);
  const result = game.roundResult;
  const explanation = explainRound(t, view, game);
  const isHost = !spectating && view.hostSeat === view.you.seat;
  const over = game.phase === 'over';
  const match = game.matchResult;
  const partnership = view.variant === 'partnership';
  const mySide = spectating ? -1 : (game.sideOfSeat[view.you.seat] ?? view.you.seat);

  useEffect(() => {
    heading.current?.focus();
  }, [game.roundNumber, over]);

  if (!result || !explanation) return null;

  let winnerLine: string | null = null;
  if (over && match) {
    if (match.winnerSide === null) winnerLine = t.matchDrawn;
    else if (match.winnerSide === mySide) winnerLine = partnership ? t.yourTeamWins : t.youWin;
    else winnerLine = t.wins(sideName(t, view, match.winnerSide));
  }

  if (collapsed) {
    return (
      <div className="result-collapsed">
        <button type="button" className="primary small" onClick={onToggle} data-testid="show-result">
          {t.showResult}
        </button>
        {view.clock?.kind === 'break' && (
          <Countdown deadline={view.clock.deadline} label={t.nextRoundIn(0)} compact />
        )}
      </div>
    );
  }

  const sides = game.scores.map((score, side) => ({ side, score }));
  return (
    <section
      className="result-panel"
      aria-labelledby="result-title"
      data-testid="round-result"
      data-over={over}
    >
      <div className="result-head">
        <h2 id="result-title" ref={heading} tabIndex={-1} data-testid="result-title">
          {over ? t.matchOver : t.roundOver(game.roundNumber)}
        </h2>
        <button type="button" className="ghost" onClick={onToggle}>
          {t.showBoard}
        </button>
      </div>
      {winnerLine && (
        <p className="winner" data-testid="match-winner">
          {winnerLine}
        </p>
      )}
      <p className="headline" data-testid="result-headline">
        {explanation.headline}
      </p>
      <ul className="explain" data-testid="result-explain">
        {explanation.lines.map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ul>

      <h3>{t.revealedHands}</h3>
      <ul className="revealed">
        {result.finalHands.map((hand, seat) => (
          <li
            key={seat}
            className={`revealed-hand side-${partnership ? (game.sideOfSeat[seat] ?? 0) : seat}${result.dominoSeat === seat ? ' domino' : ''}`}
            data-testid="revealed-hand"
            data-seat={seat}
            data-count={hand.length}
          >
            <span className="who">
              {seatName(t, view, seat)}
              {!spectating && seat === view.you.seat && ` (${t.you})`}
              {partnership && (
                <span className={`team-tag team-${game.sideOfSeat[seat] ?? 0}`}>
                  {t.team(game.sideOfSeat[seat] ?? 0)}
                </span>
              )}
            </span>
            <span className="tiles" role="list">
              {hand.length === 0 ? (
                <span className="empty" role="listitem">
                  {t.emptyHand}
                </span>
              ) : (
                hand.map((tile, i) => (
                  <span key={i} role="listitem" aria-label={tileName(t, tile)} className="reveal-tile">
                    <TileImage tile={tile} />
                  </span>
                ))
              )}
            </span>
            <span className="pips">{t.pipsLeft(pipsOf(hand))}</span>
          </li>
        ))}
      </ul>

      <h3>{over ? t.finalScores : t.scores}</h3>
      <ol className="score-list" data-testid="scores">
        {sides.map(({ side, score }) => (
          <li key={side} className={`side-${side}${result.winnerSide === side ? ' scored' : ''}`}>
            <span>{sideName(t, view, side)}</span>
            <strong>
              {score}
              {result.winnerSide === side && result.points > 0 && (
                <>
                  {' '}
                  <bdi className="plus" dir="ltr">
                    (+{result.points})
                  </bdi>
                </>
              )}
            </strong>
          </li>
        ))}
      </ol>

      {!over && view.clock?.kind === 'break' && (
        <div className="break-row" data-testid="break">
          <Countdown deadline={view.clock.deadline} label={t.nextRoundIn(0)} />
          <BreakText deadline={view.clock.deadline} />
          {isHost ? (
            <button
              type="button"
              className="primary"
              data-testid="start-now"
              disabled={state.pending}
              onClick={() => void session.startRound()}
            >
              {t.startNow}
            </button>
          ) : (
            <span className="hint">{t.hostCanStart}</span>
          )}
        </div>
      )}
      {over && (
        <div className="row">
          {isHost ? (
            <button
              type="button"
              className="primary"
              data-testid="new-match"
              disabled={state.pending}
              onClick={() => void session.newMatch()}
            >
              {t.newMatch}
            </button>
          ) : (
            <span className="hint">{t.waitingNewMatch}</span>
          )}
          <button type="button" className="ghost" onClick={() => navigate('/')}>
            {t.backToLobby}
          </button>
        </div>
      )}
    </section>
  );
}

function BreakText({ deadline }: { deadline: number }) {
  const { t } = useI18n();
  const [, session] = useSession();
  useNow(250);
  const seconds = Math.max(0, Math.ceil((deadline - session.serverNow()) / 1000));
  return <span className="break-text">{t.nextRoundIn(seconds)}</span>;
}

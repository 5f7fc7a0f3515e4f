import type { TableView } from '@dominoes/protocol';
import { useI18n } from '../i18n';
import { seatName, sideName, type SeatView } from '../game';
import { Avatar } from './Avatar';

/** The scores in one line on the status bar, for a phone (where the scoreboard sits below the table). */
export function ScoreStrip({ view, game }: { view: TableView; game: SeatView }) {
  const { t } = useI18n();
  const partnership = view.variant === 'partnership';
  return (
    <ol className="score-strip" aria-label={t.scoreStrip} data-testid="score-strip" dir="ltr">
      {game.scores.map((score, side) => (
        <li key={side} className={`side-${side}`} data-side={side} data-score={score}>
          {partnership ? (
            <span className="strip-name">{sideName(t, view, side)}</span>
          ) : (
            <Avatar name={seatName(t, view, side)} size="sm" />
          )}
          <strong>{score}</strong>
          <span className="sr-only">{partnership ? '' : seatName(t, view, side)}</span>
        </li>
      ))}
      <li className="strip-target" aria-hidden="true">
        /{view.target}
      </li>
    </ol>
  );
}

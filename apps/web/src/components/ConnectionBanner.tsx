import { useEffect, useRef } from 'react';
import { useI18n } from '../i18n';
import { useNow, useSession } from '../hooks';
import { useAnnounce } from './LiveRegion';
import { DISCONNECTED_TURN_MS } from '../feel';

/** An honest connection state: shown while connecting or reconnecting, with the next try's time. */
export function ConnectionBanner() {
  const { t } = useI18n();
  const [state, session] = useSession();
  const announce = useAnnounce();
  const now = useNow(500);
  const was = useRef(state.status);
  useEffect(() => {
    if (was.current === 'reconnecting' && state.status === 'online') announce(t.reconnected);
    if (was.current !== 'reconnecting' && state.status === 'reconnecting') announce(t.reconnecting);
    was.current = state.status;
  }, [state.status, announce, t]);

  const show =
    state.table !== null &&
    state.identity !== null &&
    (state.status === 'reconnecting' || state.status === 'connecting');
  if (!show) return <div className="connection-slot" data-testid="connection" data-status={state.status} />;
  const seconds = state.retryAt ? Math.max(0, Math.ceil((state.retryAt - now) / 1000)) : 0;
  const game = state.view?.game;
  // The last view said it is this seat's turn: away, it lasts only a disconnected seat's turn (P17).
  const myTurn = game?.phase === 'playing' && game.turn === state.view?.you.seat;
  return (
    <div className="connection-slot" data-testid="connection" data-status={state.status}>
      <div className={`connection-banner ${state.status}`} role="status">
        <span className="spinner" aria-hidden="true" />
        <span>
          {state.status === 'connecting'
            ? t.connecting
            : seconds > 0
              ? t.reconnectingIn(seconds)
              : t.reconnecting}
        </span>
        {state.status === 'reconnecting' && myTurn && (
          <strong className="away-turn" data-testid="away-turn">
            {t.awayTurn(Math.round(DISCONNECTED_TURN_MS / 1000))}
          </strong>
        )}
        {state.status === 'reconnecting' && seconds > 0 && (
          <button type="button" className="ghost small" onClick={() => session.connectNow()}>
            {t.retryNow}
          </button>
        )}
      </div>
    </div>
  );
}

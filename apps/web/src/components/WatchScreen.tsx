import { useI18n } from '../i18n';
import { navigate, useSession } from '../hooks';
import { useChatStore } from '../chat/ChatPanel';
import { useWatchTexts } from '../i18n/watch';
import { asTableView } from '../watch';
import { Avatar } from './Avatar';
import { GameTable } from './GameTable';
import { NameForm } from './NameForm';

/**
 * The page of `/t/:code?watch=1` (decision 0018): a table watched, not joined. The board, the tile
 * counts, passes, the clock, the scores and each round's reveal; no hand, nothing to act on.
 */
export function WatchScreen({ code }: { readonly code: string }) {
  const { t } = useI18n();
  const w = useWatchTexts();
  const [state] = useSession();
  // Made before the table answers, so its chat history is not missed (spectators read it).
  useChatStore();

  if (!state.identity) {
    return (
      <main className="lobby" id="main">
        <section className="hero">
          <h1>{w.watchingTitle(code)}</h1>
        </section>
        <NameForm intro={t.needName} />
      </main>
    );
  }
  if (state.joinProblem && !state.watchView) {
    return (
      <main className="lobby" id="main">
        <section className="card" role="alert" data-testid="join-problem">
          <h1>{w.watchingTitle(code)}</h1>
          <p>
            {state.joinProblem.code === 'TABLE_NOT_FOUND'
              ? t.tableNotFound
              : t.errorText(state.joinProblem.code, state.joinProblem.message)}
          </p>
          <button type="button" className="primary" onClick={() => navigate('/')}>
            {t.backToLobby}
          </button>
        </section>
      </main>
    );
  }
  const view = state.watchView;
  if (!view) {
    return (
      <main className="lobby" id="main" aria-busy="true">
        <p className="joining" data-testid="joining">
          {w.watchingTitle(code)}
        </p>
      </main>
    );
  }
  if (view.status === 'waiting' || !view.game) {
    const seated = view.seats.filter((s) => s !== null).length;
    return (
      <main className="lobby" id="main" data-testid="watch-waiting">
        <section className="card">
          <h1>{w.watchingTitle(code)}</h1>
          <p>{w.waitingPlayers(seated, view.seatCount)}</p>
          <ul className="watch-seats">
            {view.seats.map((s, i) =>
              s === null ? null : (
                <li key={i}>
                  <Avatar name={s.name} size="sm" /> {s.name}
                </li>
              ),
            )}
          </ul>
          <p className="hint">{w.watchers(view.watchers)}</p>
          <button type="button" className="primary" onClick={() => navigate(`/t/${code}`)}>
            {w.playInstead}
          </button>
        </section>
      </main>
    );
  }
  return <GameTable view={asTableView(view)} version={state.version} spectating />;
}

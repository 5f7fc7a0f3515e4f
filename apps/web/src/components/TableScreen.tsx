import { useI18n } from '../i18n';
import { navigate, useSession } from '../hooks';
import { useChatStore } from '../chat/ChatPanel';
import { GameTable } from './GameTable';
import { NameForm } from './NameForm';
import { WaitingRoom } from './WaitingRoom';
import { useWatchTexts } from '../i18n/watch';
import { watchPath } from '../watch';

/** The page of `/t/:code`: the name prompt, joining, the waiting room, or the game. */
export function TableScreen({ code }: { readonly code: string }) {
  const { t } = useI18n();
  const [state] = useSession();
  const watchTexts = useWatchTexts();
  // Made before the table answers, so its chat history is not missed.
  useChatStore();

  if (!state.identity) {
    return (
      <main className="lobby" id="main">
        <section className="hero">
          <h1>{t.tableOf(code)}</h1>
        </section>
        <NameForm intro={t.needName} />
      </main>
    );
  }

  if (state.joinProblem && !state.view) {
    const text =
      state.joinProblem.code === 'TABLE_NOT_FOUND'
        ? t.tableNotFound
        : state.joinProblem.code === 'TABLE_FULL'
          ? t.tableFull
          : t.errorText(state.joinProblem.code, state.joinProblem.message);
    return (
      <main className="lobby" id="main">
        <section className="card" role="alert" data-testid="join-problem">
          <h1>{t.tableOf(code)}</h1>
          <p>{text}</p>
          {state.joinProblem.code === 'TABLE_FULL' && (
            <button type="button" data-testid="watch-instead" onClick={() => navigate(watchPath(code))}>
              {watchTexts.watchTable}
            </button>
          )}
          <button type="button" className="primary" onClick={() => navigate('/')}>
            {t.backToLobby}
          </button>
        </section>
      </main>
    );
  }

  const view = state.view;
  if (!view) {
    return (
      <main className="lobby" id="main" aria-busy="true">
        <p className="joining" data-testid="joining">
          {t.joining(code)}
        </p>
      </main>
    );
  }
  if (view.status === 'waiting' || !view.game) return <WaitingRoom view={view} />;
  return <GameTable view={view} version={state.version} />;
}

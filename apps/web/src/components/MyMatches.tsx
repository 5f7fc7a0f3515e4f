import { useEffect, useState } from 'react';
import { getMyMatches, type MatchListEntry, type MatchListResponse } from '@dominoes/protocol';
import { rulesOf } from '@dominoes/rules';
import { useI18n } from '../i18n';
import { useHistoryTexts } from '../i18n/history';
import { navigate, useSession } from '../hooks';
import { problemOf } from '../session';
import { NameForm } from './NameForm';
import '../history.css';

type Loaded =
  | { readonly kind: 'loading' }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'loaded'; readonly list: MatchListResponse };

const link = (path: string) => ({
  href: path,
  onClick: (e: React.MouseEvent) => {
    e.preventDefault();
    navigate(path);
  },
});

function names(list: readonly (string | null)[], empty: string): string {
  const known = list.map((n) => n ?? '?');
  return known.length > 0 ? known.join(', ') : empty;
}

function MatchRow({ match }: { readonly match: MatchListEntry }) {
  const { t, lang } = useI18n();
  const h = useHistoryTexts();
  const when = new Date(match.endedAt ?? match.startedAt).toLocaleString(lang, {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  const game = `${t.variantName(match.variant)} · ${match.oneRound ? t.oneRound : t.targetIs(match.target)}`;
  // Your side's score first, then the others' in order.
  const side = rulesOf(match.variant).sideOf(match.seat);
  const scores = match.scores
    ? [match.scores[side], ...match.scores.filter((_, s) => s !== side)].join(' – ')
    : '';
  const over = match.status !== 'playing';
  return (
    <li className={`match-row outcome-${match.outcome}`} data-testid="match-row" data-match={match.matchId}>
      <span className="match-date" data-label={h.colDate}>
        <time dateTime={match.endedAt ?? match.startedAt}>{when}</time>
      </span>
      <span className="match-game" data-label={h.colRuleSet}>
        {game}
      </span>
      {match.variant === 'partnership' && (
        <span className="match-partners" data-label={h.colPartners}>
          {names(match.partners, h.nobodyShort)}
        </span>
      )}
      <span className="match-opponents" data-label={h.colOpponents}>
        {names(match.opponents, h.nobodyShort)}
      </span>
      <span className="match-result" data-label={h.colResult}>
        <strong data-testid="match-outcome">{h.outcome(match.outcome)}</strong>
        {scores && <span className="match-scores"> {scores}</span>}
      </span>
      <span className="match-go">
        {over ? (
          <a className="button-link" {...link(`/replay/${match.matchId}`)} data-testid="open-replay">
            {h.openReplay}
          </a>
        ) : (
          <a className="button-link ghost" {...link(`/t/${match.tableId}`)}>
            {h.backToTable}
          </a>
        )}
      </span>
    </li>
  );
}

/** "Your matches": the identity's matches, newest first, a page at a time (the token says whose). */
export function MyMatches() {
  const { t } = useI18n();
  const h = useHistoryTexts();
  const [state] = useSession();
  const token = state.identity?.token ?? null;
  const [page, setPage] = useState(0);
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });

  useEffect(() => {
    document.title = `${h.yourMatches} · ${t.appName}`;
  }, [h, t]);

  useEffect(() => {
    if (!token) return;
    let live = true;
    setLoaded({ kind: 'loading' });
    getMyMatches(location.origin, token, page).then(
      (list) => live && setLoaded({ kind: 'loaded', list }),
      (error: unknown) => {
        const p = problemOf(error);
        if (live) setLoaded({ kind: 'failed', message: t.errorText(p.code, p.message) });
      },
    );
    return () => {
      live = false;
    };
  }, [token, page, t]);

  return (
    <main className="lobby history-page" id="main">
      <section className="card">
        <h1>{h.yourMatches}</h1>
        {!token ? (
          <>
            <p className="muted">{h.needIdentity}</p>
            <NameForm />
          </>
        ) : (
          <>
            <p className="muted">{h.yourMatchesIntro}</p>
            {loaded.kind === 'loading' && <p aria-live="polite">{h.loading}</p>}
            {loaded.kind === 'failed' && (
              <p role="alert" className="error">
                {h.loadFailed(loaded.message)}
              </p>
            )}
            {loaded.kind === 'loaded' && loaded.list.matches.length === 0 && (
              <p data-testid="no-matches">{h.noMatches}</p>
            )}
            {loaded.kind === 'loaded' && loaded.list.matches.length > 0 && (
              <ol className="match-list" data-testid="match-list">
                {loaded.list.matches.map((m) => (
                  <MatchRow key={m.matchId} match={m} />
                ))}
              </ol>
            )}
            {loaded.kind === 'loaded' && (page > 0 || loaded.list.nextPage !== null) && (
              <nav className="pager" aria-label={h.pageN(page + 1)}>
                <button
                  type="button"
                  className="ghost"
                  disabled={page === 0}
                  onClick={() => setPage(page - 1)}
                >
                  {h.newer}
                </button>
                <span>{h.pageN(page + 1)}</span>
                <button
                  type="button"
                  className="ghost"
                  disabled={loaded.list.nextPage === null}
                  onClick={() => setPage(loaded.list.nextPage ?? page)}
                >
                  {h.older}
                </button>
              </nav>
            )}
          </>
        )}
      </section>
    </main>
  );
}

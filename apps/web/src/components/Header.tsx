import { useI18n, LANGS, DICTS, type Lang } from '../i18n';
import { navigate, useSession } from '../hooks';
import { setMuted, useMuted } from '../sound';
import { useHistoryTexts } from '../i18n/history';

export function Header({ onRules }: { readonly onRules: () => void }) {
  const { t, lang, setLang } = useI18n();
  const h = useHistoryTexts();
  const [state] = useSession();
  const muted = useMuted();
  return (
    <header className="app-header">
      <a
        href="/"
        className="brand"
        onClick={(e) => {
          e.preventDefault();
          // Leaving a match in play: the seat plays on by the clock (P16/P17) until the player returns.
          if (state.view?.status === 'playing' && !window.confirm(t.leaveConfirm)) return;
          navigate('/');
        }}
      >
        <svg viewBox="0 0 2 1" aria-hidden="true" className="brand-tile">
          <rect x="0.04" y="0.04" width="1.92" height="0.92" rx="0.14" />
          <line x1="1" x2="1" y1="0.16" y2="0.84" />
          <circle cx="0.5" cy="0.5" r="0.1" />
          <circle cx="1.26" cy="0.26" r="0.1" />
          <circle cx="1.74" cy="0.74" r="0.1" />
        </svg>
        <span>{t.appName}</span>
      </a>
      <nav aria-label={t.mainNav} className="header-tools">
        {state.identity && <span className="who">{t.playingAs(state.identity.name)}</span>}
        {state.identity && (
          <a
            href="/matches"
            className="header-link"
            data-testid="your-matches"
            onClick={(e) => {
              e.preventDefault();
              if (state.view?.status === 'playing' && !window.confirm(t.leaveConfirm)) return;
              navigate('/matches');
            }}
          >
            <svg viewBox="0 0 24 24" aria-hidden="true" className="icon">
              <path d="M13 3a9 9 0 0 0-9 9H1l3.9 3.9L9 12H6a7 7 0 1 1 2.05 4.95l-1.42 1.42A9 9 0 1 0 13 3Zm-1 5v5l4.25 2.52.77-1.28-3.52-2.09V8H12Z" />
            </svg>
            <span className="label">{h.yourMatches}</span>
          </a>
        )}
        <button type="button" className="ghost" onClick={onRules}>
          {t.rules}
        </button>
        <button
          type="button"
          role="switch"
          className="ghost sound-switch"
          aria-checked={!muted}
          aria-label={t.sound}
          title={t.soundHint}
          data-testid="sound"
          onClick={() => setMuted(!muted)}
        >
          <svg viewBox="0 0 24 24" aria-hidden="true" className="icon speaker">
            <path d="M3 9v6h4l5 4V5L7 9H3Z" />
            {muted ? (
              <path d="m16 9 5 6m0-6-5 6" className="stroke" />
            ) : (
              <path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12" className="stroke" />
            )}
          </svg>
        </button>
        <label className="lang-switch">
          <span className="sr-only">{t.language}</span>
          <svg viewBox="0 0 24 24" aria-hidden="true" className="icon">
            <path d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20Zm6.9 6h-3a15.7 15.7 0 0 0-1.4-3.9A8 8 0 0 1 18.9 8ZM12 4a13.6 13.6 0 0 1 1.9 4h-3.8A13.6 13.6 0 0 1 12 4ZM4.3 14a8.2 8.2 0 0 1 0-4h3.4a16.5 16.5 0 0 0 0 4Zm.8 2h3a15.7 15.7 0 0 0 1.4 3.9A8 8 0 0 1 5.1 16Zm3-8h-3a8 8 0 0 1 4.4-3.9A15.7 15.7 0 0 0 8.1 8ZM12 20a13.6 13.6 0 0 1-1.9-4h3.8A13.6 13.6 0 0 1 12 20Zm2.3-6H9.7a14.7 14.7 0 0 1 0-4h4.6a14.7 14.7 0 0 1 0 4Zm.3 5.9a15.7 15.7 0 0 0 1.4-3.9h3a8 8 0 0 1-4.4 3.9Zm1.7-5.9a16.5 16.5 0 0 0 0-4h3.4a8.2 8.2 0 0 1 0 4Z" />
          </svg>
          <select value={lang} onChange={(e) => setLang(e.target.value as Lang)} data-testid="lang">
            {LANGS.map((l) => (
              <option key={l} value={l} lang={l}>
                {DICTS[l].langName}
              </option>
            ))}
          </select>
        </label>
      </nav>
    </header>
  );
}

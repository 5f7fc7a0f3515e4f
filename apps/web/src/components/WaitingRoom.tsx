import { useState } from 'react';
import type { TableView } from '@dominoes/protocol';
import { ChatPanel } from '../chat/ChatPanel';
import { useI18n } from '../i18n';
import { copyText, navigate, useSession } from '../hooks';
import { Avatar } from './Avatar';

/** A table waiting for its players: the code and link to share, and who has sat down, in seat order. */
export function WaitingRoom({ view }: { readonly view: TableView }) {
  const { t } = useI18n();
  const [, session] = useSession();
  const [copied, setCopied] = useState<'code' | 'link' | null>(null);
  const link = `${location.origin}/t/${view.tableId}`;
  const seated = view.seats.filter(Boolean).length;
  const missing = view.seatCount - seated;

  const copy = async (what: 'code' | 'link') => {
    if (await copyText(what === 'code' ? view.tableId : link)) {
      setCopied(what);
      setTimeout(() => setCopied(null), 2000);
    }
  };

  return (
    <main className="waiting-room" id="main" data-testid="waiting" data-version={view.matchNumber}>
      <section className="card share">
        <h1>{t.tableOf(view.tableId)}</h1>
        <p className="variant-line">
          {t.variantName(view.variant)}
          {view.variant !== 'five-tile' && ` · ${t.targetIs(view.target)}`}
          {view.oneRound && ` · ${t.oneRound}`}
        </p>
        <div className="code-box">
          <span className="label">{t.tableCode}</span>
          <span className="code" dir="ltr" data-testid="table-code">
            {view.tableId}
          </span>
        </div>
        <div className="link-box">
          <input
            readOnly
            value={link}
            aria-label={t.copyLink}
            dir="ltr"
            onFocus={(e) => e.target.select()}
            data-testid="table-link"
          />
        </div>
        <div className="row">
          <button type="button" onClick={() => void copy('code')}>
            {copied === 'code' ? t.copied : t.copyCode}
          </button>
          <button type="button" onClick={() => void copy('link')}>
            {copied === 'link' ? t.copied : t.copyLink}
          </button>
          {typeof navigator.share === 'function' && (
            <button
              type="button"
              onClick={() =>
                void navigator.share({ title: t.tableOf(view.tableId), url: link }).catch(() => undefined)
              }
            >
              {t.share}
            </button>
          )}
        </div>
        <p className="hint" aria-live="polite">
          {copied ? t.copied : t.shareHint}
        </p>
      </section>
      <section className="card seats-list" aria-labelledby="seats-title">
        <h2 id="seats-title">{t.seatsTitle}</h2>
        <ol data-testid="seats">
          {view.seats.map((s, i) => (
            <li key={i} className={s ? 'taken' : 'empty'} data-seat={i}>
              <span className="seat-no">{t.seatN(i + 1)}</span>
              {s && <Avatar name={s.name} size="sm" />}
              <span className="seat-name">
                {s ? s.name : t.emptySeat}
                {i === view.you.seat && ` (${t.you})`}
              </span>
              {view.variant === 'partnership' && (
                <span className={`team-tag team-${i % 2}`}>{t.team(i % 2)}</span>
              )}
              {view.hostSeat === i && <span className="badge host">{t.host}</span>}
              {s && (
                <span
                  className={s.connected ? 'dot on' : 'dot off'}
                  role="img"
                  aria-label={s.connected ? t.connected : t.disconnected}
                />
              )}
            </li>
          ))}
        </ol>
        <p className="waiting-note" aria-live="polite">
          {t.waitingFor(missing)}
        </p>
        <p className="hint">{t.startsWhenFull}</p>
        <div className="row">
          <button
            type="button"
            className="ghost"
            onClick={() => {
              void session.leave().then(() => navigate('/'));
            }}
          >
            {t.leaveTable}
          </button>
        </div>
      </section>
      <ChatPanel mySeat={view.you.seat} />
    </main>
  );
}

import { useId, useState } from 'react';
import type { CreateTableRequest } from '@dominoes/protocol';
import { useI18n } from '../i18n';
import { codeFrom, navigate, useSession } from '../hooks';
import { problemOf } from '../session';
import { HOST_TARGET_RANGE, RULE_SETS, VARIANTS, type Variant } from '@dominoes/rules';
import { ChatOption } from '../chat/ChatOption';
import { NameForm } from './NameForm';
import { FindGame } from './FindGame';
import { VisibilityOption } from './VisibilityOption';
import { Avatar } from './Avatar';

/** The choices offered, from the rules (P19); the server (libs/rules) has the last word and refuses anything else. */
const targetsOf = (variant: Variant): number[] => [...RULE_SETS[variant].targets].sort((a, b) => a - b);
const seatCountsOf = (variant: Variant): number[] => {
  const { minSeats, maxSeats } = RULE_SETS[variant];
  return Array.from({ length: maxSeats - minSeats + 1 }, (_, i) => minSeats + i);
};

export function Lobby({ onRules }: { readonly onRules: (variant: Variant) => void }) {
  const { t } = useI18n();
  const [state, session] = useSession();
  const id = useId();
  const [variant, setVariant] = useState<Variant>('partnership');
  const [target, setTarget] = useState<number>(HOST_TARGET_RANGE.default);
  const [seats, setSeats] = useState(4);
  const [oneRound, setOneRound] = useState(false);
  const [isPublic, setPublic] = useState(false);
  const [chat, setChat] = useState(true);
  const [busy, setBusy] = useState(false);
  const [openError, setOpenError] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [joinError, setJoinError] = useState<string | null>(null);

  const open = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setOpenError(null);
    const base: CreateTableRequest =
      variant === 'partnership'
        ? { variant, target }
        : variant === 'draw'
          ? { variant, seats, target, oneRound }
          : { variant, seats };
    // Private (link only) unless the host chose public (issue 12).
    const request: CreateTableRequest = isPublic ? { ...base, public: true } : base;
    try {
      const table = await session.openTable(chat ? request : { ...request, chat: false });
      navigate(`/t/${table}`);
    } catch (e) {
      const p = problemOf(e);
      setOpenError(t.errorText(p.code, p.message));
    } finally {
      setBusy(false);
    }
  };

  const join = (event: React.FormEvent) => {
    event.preventDefault();
    const parsed = codeFrom(code);
    if (!parsed) {
      setJoinError(t.badCode);
      return;
    }
    setJoinError(null);
    navigate(`/t/${parsed}`);
  };

  return (
    <main className="lobby" id="main">
      <section className="hero">
        <h1>{t.lobbyTitle}</h1>
        <p>{t.lobbyIntro}</p>
      </section>
      {state.identity && <FindGame />}
      {!state.identity ? (
        <NameForm />
      ) : (
        <div className="lobby-grid">
          <form className="card" onSubmit={open} aria-labelledby={`${id}-open`} data-testid="open-form">
            <h2 id={`${id}-open`}>{t.openTableTitle}</h2>
            <fieldset className="variants">
              <legend>{t.ruleSet}</legend>
              {VARIANTS.map((v) => (
                <label key={v} className={v === variant ? 'variant selected' : 'variant'}>
                  <input
                    type="radio"
                    name="variant"
                    value={v}
                    checked={v === variant}
                    onChange={() => setVariant(v)}
                  />
                  <span className="variant-name">{t.variantName(v)}</span>
                  <span className="variant-blurb">{t.variantBlurb(v)}</span>
                </label>
              ))}
            </fieldset>
            {variant !== 'five-tile' && (
              <div className="field">
                <label htmlFor={`${id}-target`}>{t.target}</label>
                <select
                  id={`${id}-target`}
                  data-testid="target-select"
                  value={target}
                  onChange={(e) => setTarget(Number(e.target.value))}
                  aria-describedby={`${id}-target-hint`}
                >
                  {targetsOf(variant).map((n) => (
                    <option key={n} value={n}>
                      {t.points(n)}
                    </option>
                  ))}
                </select>
                <p id={`${id}-target-hint`} className="hint">
                  {t.targetHint}
                </p>
              </div>
            )}
            {variant !== 'partnership' && (
              <div className="field">
                <label htmlFor={`${id}-seats`}>{t.seats}</label>
                <select
                  id={`${id}-seats`}
                  data-testid="seats-select"
                  value={seats}
                  onChange={(e) => setSeats(Number(e.target.value))}
                >
                  {seatCountsOf(variant).map((n) => (
                    <option key={n} value={n}>
                      {t.seatsOption(n)}
                    </option>
                  ))}
                </select>
              </div>
            )}
            {variant === 'draw' && (
              <label className="check">
                <input type="checkbox" checked={oneRound} onChange={(e) => setOneRound(e.target.checked)} />
                {t.oneRound}
              </label>
            )}
            <ChatOption checked={chat} onChange={setChat} />
            <VisibilityOption value={isPublic} onChange={setPublic} />
            {openError && (
              <p className="hint error" role="alert">
                {openError}
              </p>
            )}
            <div className="row">
              <button type="submit" className="primary" disabled={busy} data-testid="open-table">
                {busy ? t.opening : t.open}
              </button>
              <button type="button" className="link" onClick={() => onRules(variant)}>
                {t.howToPlay}
              </button>
            </div>
          </form>

          <div className="lobby-side">
            <form className="card" onSubmit={join} aria-labelledby={`${id}-join`} data-testid="join-form">
              <h2 id={`${id}-join`}>{t.joinTitle}</h2>
              <div className="field">
                <label htmlFor={`${id}-code`}>{t.codeOrLink}</label>
                <input
                  id={`${id}-code`}
                  data-testid="join-code"
                  value={code}
                  autoCapitalize="characters"
                  autoComplete="off"
                  spellCheck={false}
                  placeholder={t.codePlaceholder}
                  aria-invalid={joinError !== null}
                  aria-describedby={`${id}-code-hint`}
                  onChange={(e) => setCode(e.target.value)}
                  dir="ltr"
                />
                <p
                  id={`${id}-code-hint`}
                  className={joinError ? 'hint error' : 'hint'}
                  role={joinError ? 'alert' : undefined}
                >
                  {joinError ?? t.joinHint}
                </p>
              </div>
              <button type="submit" className="primary" data-testid="join-table">
                {t.join}
              </button>
            </form>

            <section className="card you-card" aria-label={t.yourName}>
              <p className="you-line">
                <Avatar name={state.identity.name} />
                {t.playingAs(state.identity.name)}
              </p>
              <button type="button" className="ghost" onClick={() => session.forgetIdentity()}>
                {t.changeName}
              </button>
            </section>
          </div>
        </div>
      )}
    </main>
  );
}

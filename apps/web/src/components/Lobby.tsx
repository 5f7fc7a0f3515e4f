import { useId, useState } from 'react';
import type { CreateTableRequest } from '@dominoes/protocol';
import { useI18n } from '../i18n';
import { codeFrom, navigate, useSession } from '../hooks';
import { HOST_TARGET_RANGE, VARIANTS, type Variant } from '@dominoes/rules';
import { ChatOption } from '../chat/ChatOption';
import { NameForm } from './NameForm';
import { FindGame } from './FindGame';
import { VisibilityOption } from './VisibilityOption';
import { Avatar } from './Avatar';
import { SeatsChoice, TargetChoice } from './RuleChoices';
import { useBusyAction } from './use-busy-action';

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
  const { busy, error: openError, run } = useBusyAction();
  const [code, setCode] = useState('');
  const [joinError, setJoinError] = useState<string | null>(null);

  const open = async (event: React.FormEvent) => {
    event.preventDefault();
    const base: CreateTableRequest =
      variant === 'partnership'
        ? { variant, target }
        : variant === 'draw'
          ? { variant, seats, target, oneRound }
          : { variant, seats };
    // Private (link only) unless the host chose public (issue 12).
    const request: CreateTableRequest = isPublic ? { ...base, public: true } : base;
    await run(async () => {
      const table = await session.openTable(chat ? request : { ...request, chat: false });
      navigate(`/t/${table}`);
    });
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
              <TargetChoice
                formId={id}
                variant={variant}
                value={target}
                onChange={setTarget}
                testId="target-select"
                hint={t.targetHint}
              />
            )}
            {variant !== 'partnership' && (
              <SeatsChoice
                formId={id}
                variant={variant}
                value={seats}
                onChange={setSeats}
                testId="seats-select"
              />
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

import { useId, useState } from 'react';
import { PlayerNameSchema } from '@dominoes/protocol';
import { useI18n } from '../i18n';
import { useSession } from '../hooks';
import { useBusyAction } from './use-busy-action';

/** The name prompt of a first visit: POST /api/identity, then the token lives in localStorage. */
export function NameForm({ intro }: { readonly intro?: string }) {
  const { t } = useI18n();
  const [state, session] = useSession();
  const [name, setName] = useState(state.identity?.name ?? '');
  const { busy, error, setError, run } = useBusyAction();
  const id = useId();

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const parsed = PlayerNameSchema.safeParse(name);
    if (!parsed.success) {
      setError(t.nameHint);
      return;
    }
    await run(() => session.register(parsed.data));
  };

  return (
    <form
      className="card name-form"
      onSubmit={submit}
      aria-labelledby={`${id}-title`}
      data-testid="name-form"
    >
      <h2 id={`${id}-title`}>{t.yourName}</h2>
      {intro && <p>{intro}</p>}
      <div className="field">
        <label htmlFor={`${id}-name`}>{t.yourName}</label>
        <input
          id={`${id}-name`}
          name="name"
          autoComplete="nickname"
          maxLength={24}
          required
          value={name}
          placeholder={t.namePlaceholder}
          aria-describedby={`${id}-hint`}
          aria-invalid={error !== null}
          onChange={(e) => setName(e.target.value)}
        />
        <p id={`${id}-hint`} className={error ? 'hint error' : 'hint'} role={error ? 'alert' : undefined}>
          {error ?? t.nameHint}
        </p>
      </div>
      <button type="submit" className="primary" disabled={busy}>
        {t.continue}
      </button>
    </form>
  );
}

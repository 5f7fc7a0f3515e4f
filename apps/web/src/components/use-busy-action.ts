import { useState } from 'react';
import { useI18n } from '../i18n';
import { problemOf } from '../session';

/**
 * A form's submit that calls the server: busy while it runs, and the server's problem, in the
 * player's language, as the form's error when it fails.
 */
export function useBusyAction() {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (action: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      const p = problemOf(e);
      setError(t.errorText(p.code, p.message));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

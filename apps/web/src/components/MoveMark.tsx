import type { ActionOrigin } from '@dominoes/rules';
import { useI18n } from '../i18n';

/** How a move was made, when not by its player: ⏱ the table at the deadline (P16), or automatically. */
export function MoveMark({ by }: { readonly by: ActionOrigin | undefined }) {
  const { t } = useI18n();
  if (by === 'deadline')
    return (
      <span className="by-table">
        <span aria-hidden="true">⏱ </span>
        {t.byTable}
      </span>
    );
  if (by === 'auto') return <span className="by-auto">{t.byAuto}</span>;
  return null;
}

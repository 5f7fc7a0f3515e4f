import { useEffect, useRef, useState } from 'react';
import { useI18n } from '../i18n';
import { VARIANTS, type Variant } from '@dominoes/rules';
import { RULES_TEXT } from '../rules/texts';

/** The short rules of each rule set, in the page's language, as a modal dialog with one tab per game. */
export function RulesDialog({
  open,
  initial,
  onClose,
}: {
  readonly open: boolean;
  readonly initial: Variant;
  readonly onClose: () => void;
}) {
  const { t, lang } = useI18n();
  const ref = useRef<HTMLDialogElement>(null);
  const [variant, setVariant] = useState<Variant>(initial);
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      setVariant(initial);
      dialog.showModal();
    } else if (!open && dialog.open) dialog.close();
  }, [open, initial]);

  const book = RULES_TEXT[lang];
  const page = book[variant];
  const onTabKey = (event: React.KeyboardEvent, index: number) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const rtl = document.documentElement.dir === 'rtl';
    const next = (index + (rtl ? -step : step) + VARIANTS.length) % VARIANTS.length;
    setVariant(VARIANTS[next] as Variant);
    tabs.current[next]?.focus();
  };

  return (
    <dialog
      ref={ref}
      className="rules-dialog"
      aria-labelledby="rules-title"
      onClose={onClose}
      data-testid="rules"
    >
      <div className="dialog-head">
        <h2 id="rules-title">{t.rules}</h2>
        <button type="button" className="ghost" onClick={onClose}>
          {t.close}
        </button>
      </div>
      <div role="tablist" aria-label={t.ruleSet} className="tabs">
        {VARIANTS.map((v, i) => (
          <button
            key={v}
            type="button"
            role="tab"
            id={`rules-tab-${v}`}
            aria-selected={v === variant}
            aria-controls="rules-panel"
            tabIndex={v === variant ? 0 : -1}
            ref={(el) => {
              tabs.current[i] = el;
            }}
            onClick={() => setVariant(v)}
            onKeyDown={(e) => onTabKey(e, i)}
          >
            {t.variantName(v)}
          </button>
        ))}
      </div>
      <section
        id="rules-panel"
        role="tabpanel"
        aria-labelledby={`rules-tab-${variant}`}
        className="rules-body"
      >
        <p className="rules-intro">{page.intro}</p>
        <ol>
          {page.points.map((point, i) => (
            <li key={i}>{point}</li>
          ))}
        </ol>
        <p>{book.clock}</p>
        {variant === 'five-tile' && <p className="note">{book.readingNote}</p>}
      </section>
    </dialog>
  );
}

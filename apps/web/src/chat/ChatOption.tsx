import { useChatTexts } from '../i18n/chat';

/** The host's choice when opening a table: text chat on (the default) or off (decision 0020). */
export function ChatOption({
  checked,
  onChange,
}: {
  readonly checked: boolean;
  readonly onChange: (on: boolean) => void;
}) {
  const t = useChatTexts();
  return (
    <label className="check" title={t.optionHint}>
      <input
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        data-testid="chat-option"
      />
      {t.optionLabel}
    </label>
  );
}

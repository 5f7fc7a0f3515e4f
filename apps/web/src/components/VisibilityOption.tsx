import { useId } from 'react';
import { useLobbyTexts } from '../i18n/lobby';

/** Opening a table: private (link only, the default) or public (listed in the lobby). */
export function VisibilityOption({
  value,
  onChange,
}: {
  readonly value: boolean;
  readonly onChange: (isPublic: boolean) => void;
}) {
  const l = useLobbyTexts();
  const id = useId();
  return (
    <fieldset className="variants visibility" data-testid="visibility">
      <legend>{l.visibility}</legend>
      {[false, true].map((isPublic) => (
        <label
          key={String(isPublic)}
          className={isPublic === value ? 'variant visibility-choice selected' : 'variant visibility-choice'}
        >
          <input
            type="radio"
            name={`${id}-visibility`}
            value={isPublic ? 'public' : 'private'}
            checked={isPublic === value}
            onChange={() => onChange(isPublic)}
            data-testid={isPublic ? 'visibility-public' : 'visibility-private'}
          />
          <span className="visibility-name">{isPublic ? l.publicTable : l.privateTable}</span>
          <span className="visibility-hint">{isPublic ? l.publicHint : l.privateHint}</span>
        </label>
      ))}
    </fieldset>
  );
}

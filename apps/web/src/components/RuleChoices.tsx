import { RULE_SETS, type Variant } from '@dominoes/rules';
import { useI18n } from '../i18n';

/** The choices offered, from the rules (P19); the server (libs/rules) has the last word and refuses anything else. */
export const targetsOf = (variant: Variant): number[] =>
  [...RULE_SETS[variant].targets].sort((a, b) => a - b);
export const seatCountsOf = (variant: Variant): number[] => {
  const { minSeats, maxSeats } = RULE_SETS[variant];
  return Array.from({ length: maxSeats - minSeats + 1 }, (_, i) => minSeats + i);
};

interface NumberChoiceProps {
  /** The form's useId(); the select is `${formId}-${kind}`. */
  readonly formId: string;
  readonly variant: Variant;
  readonly value: number;
  readonly onChange: (value: number) => void;
  readonly testId: string;
  /** A hint below the select, tied to it with aria-describedby. */
  readonly hint?: string;
}

/** A field choosing a number the variant allows: the target score or the seat count. */
function NumberChoice({
  kind,
  label,
  options,
  format,
  formId,
  value,
  onChange,
  testId,
  hint,
}: Omit<NumberChoiceProps, 'variant'> & {
  readonly kind: 'target' | 'seats';
  readonly label: string;
  readonly options: readonly number[];
  readonly format: (n: number) => string;
}) {
  const id = `${formId}-${kind}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        data-testid={testId}
        value={value}
        onChange={(e) => onChange(Number(e.target.value))}
        aria-describedby={hint === undefined ? undefined : `${id}-hint`}
      >
        {options.map((n) => (
          <option key={n} value={n}>
            {format(n)}
          </option>
        ))}
      </select>
      {hint !== undefined && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
    </div>
  );
}

/** The target score select: the targets the variant allows. */
export function TargetChoice(props: NumberChoiceProps) {
  const { t } = useI18n();
  return (
    <NumberChoice
      {...props}
      kind="target"
      label={t.target}
      options={targetsOf(props.variant)}
      format={t.points}
    />
  );
}

/** The seat count select: minSeats..maxSeats of the variant. */
export function SeatsChoice(props: NumberChoiceProps) {
  const { t } = useI18n();
  return (
    <NumberChoice
      {...props}
      kind="seats"
      label={t.seats}
      options={seatCountsOf(props.variant)}
      format={t.seatsOption}
    />
  );
}

import { useRef } from 'react';
import { useI18n } from '../i18n';
import { useNow, useSession } from '../hooks';

/**
 * Seconds left until `deadline` (server epoch ms), against the server's clock as estimated from the
 * frames' `serverTime`. A ring shows the part of the time that is left.
 */
export function Countdown({
  deadline,
  label,
  compact = false,
}: {
  deadline: number;
  label: string;
  compact?: boolean;
}) {
  const { t } = useI18n();
  const [, session] = useSession();
  useNow(200);
  const remaining = Math.max(0, deadline - session.serverNow());
  const seconds = Math.ceil(remaining / 1000);
  const first = useRef({ deadline, total: Math.max(remaining, 1) });
  if (first.current.deadline !== deadline) first.current = { deadline, total: Math.max(remaining, 1) };
  const fraction = Math.min(1, remaining / first.current.total);
  const urgent = remaining <= 5000;
  const r = 15.9;
  const circumference = 2 * Math.PI * r;
  return (
    <span
      className={`countdown${urgent ? ' urgent' : ''}${compact ? ' compact' : ''}`}
      role="timer"
      aria-label={`${label}: ${t.secondsLeft(seconds)}`}
      data-testid={compact ? 'seat-countdown' : 'countdown'}
      data-remaining-ms={Math.round(remaining)}
    >
      <svg viewBox="0 0 36 36" aria-hidden="true">
        <circle className="track" cx="18" cy="18" r={r} />
        <circle
          className="left"
          cx="18"
          cy="18"
          r={r}
          strokeDasharray={circumference}
          strokeDashoffset={circumference * (1 - fraction)}
          transform="rotate(-90 18 18)"
        />
      </svg>
      <span className="seconds" aria-hidden="true">
        {seconds}
      </span>
    </span>
  );
}

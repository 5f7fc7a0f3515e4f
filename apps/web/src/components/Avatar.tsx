import { avatarOf } from '../feel';

/** Initials on a colour from the name (the same on every page); decorative: the name is said beside it. */
export function Avatar({ name, size = 'md' }: { readonly name: string; readonly size?: 'sm' | 'md' }) {
  const a = avatarOf(name);
  return (
    <span
      className={`avatar ${size}`}
      style={{ background: a.color }}
      aria-hidden="true"
      data-testid="avatar"
      data-name={name}
      data-hue={a.hue}
    >
      {a.initials}
    </span>
  );
}

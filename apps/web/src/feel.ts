import type { TableView } from '@dominoes/protocol';
import { RULE_DURATIONS, type SeatView, type Tile } from '@dominoes/rules';

/**
 * Pure helpers for how the game feels (avatars, sounds, the sorted hand, the same-end play, the
 * disconnected-turn notice). None of them decides what is legal: plays come from `game.legal` only.
 */

const tileKeyOf = (tile: Tile): string => `${Math.min(tile[0], tile[1])}-${Math.max(tile[0], tile[1])}`;

/* -------- avatars -------- */

export interface Avatar {
  /** One or two letters: the first letter of the first two words of the name. */
  readonly initials: string;
  /** A hue (0–359) from the name: the same name has the same colour on every page. */
  readonly hue: number;
  /** A CSS background colour, dark enough for white initials. */
  readonly color: string;
}

/** FNV-1a over the name's UTF-16 code units: deterministic and spread well enough for colours. */
export function nameHash(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function avatarOf(name: string): Avatar {
  const words = name.trim().split(/\s+/u).filter(Boolean);
  const first = (word: string | undefined) => (word ? (Array.from(word)[0] ?? '') : '');
  const initials =
    words.length === 0
      ? '?'
      : (first(words[0]) + (words.length > 1 ? first(words[1]) : '')).toLocaleUpperCase();
  const hue = nameHash(name.trim()) % 360;
  return { initials, hue, color: `hsl(${hue} 55% 38%)` };
}

/* -------- the hand -------- */

/** The hand shown sorted (display only: the hand's order for the deadline move, P16, stays the dealt one). */
export function sortedHand(hand: readonly Tile[]): Tile[] {
  const lo = (t: Tile) => Math.min(t[0], t[1]);
  const hi = (t: Tile) => Math.max(t[0], t[1]);
  return [...hand].sort((a, b) => lo(a) - lo(b) || hi(a) - hi(b));
}

/**
 * The tiles drawn since this seat's last play of the round, from the log (a draw entry of one's own
 * seat carries the tile drawn): they are marked as new in the hand.
 */
export function newlyDrawn(game: SeatView, seat: number): Set<string> {
  const out = new Set<string>();
  for (let i = game.log.length - 1; i >= 0; i--) {
    const entry = game.log[i];
    if (!entry || entry.seat !== seat) continue;
    if (entry.type === 'play') break;
    if (entry.type === 'draw' && entry.drawn) out.add(tileKeyOf(entry.drawn));
  }
  return out;
}

/* -------- the same-end play -------- */

/**
 * When both ends of the board show the same number and `legal` lists a tile on both, the two plays
 * lead to the same board (the same two numbers at its ends): the page plays it on the first listed
 * end without asking. Returns that end, or null when the player must choose (or there is no choice).
 * Decided from `legal` and the ends' numbers only.
 */
export function sameEndPlay(game: SeatView, key: string): string | null {
  if (game.board.ends.length !== 2) return null;
  const ends = game.legal.flatMap((a) =>
    a.type === 'play' && a.end !== undefined && tileKeyOf(a.tile) === key ? [a.end] : [],
  );
  const listed = [...new Set(ends)];
  if (listed.length !== 2) return null;
  const values = listed.map((id) => game.board.ends.find((e) => e.id === id)?.value);
  if (values[0] === undefined || values[0] !== values[1]) return null;
  return listed[0] ?? null;
}

/* -------- sounds -------- */

export type SoundKind = 'place' | 'turn' | 'pass' | 'round';

/** What to sound for the change from `before` to `view` (nothing on the first view or a new round's deal). */
export function soundsFor(view: TableView, before: TableView | null): SoundKind[] {
  const game = view.game;
  const old = before?.game ?? null;
  if (!game || !old) return [];
  if (old.roundNumber !== game.roundNumber || before?.matchNumber !== view.matchNumber) return [];
  const out: SoundKind[] = [];
  const fresh = game.log.slice(old.log.length);
  if (fresh.some((e) => e.type === 'play')) out.push('place');
  if (fresh.some((e) => e.type === 'pass')) out.push('pass');
  if (game.roundResult && !old.roundResult) out.push('round');
  else if (
    game.phase === 'playing' &&
    game.turn === view.you.seat &&
    (old.turn !== game.turn || fresh.length > 0)
  )
    out.push('turn');
  return out;
}

/* -------- the disconnected turn (P17) -------- */

/** The turn of a disconnected seat (P17), in the rules' durations. */
export const DISCONNECTED_TURN_MS = RULE_DURATIONS.disconnectedTurnMs;

/**
 * On the first view after coming back (a reload, a reconnection): is it this seat's turn, cut to a
 * disconnected seat's 5 s by the drop (P17)? The table-service says so in the clock (`shortened`),
 * so the page tells it plainly, and says nothing for a turn that merely had little time left.
 */
export function shortenedTurn(view: TableView, serverNow: number): boolean {
  const clock = view.clock;
  if (!clock || clock.kind !== 'turn' || clock.seat !== view.you.seat || clock.shortened !== true)
    return false;
  if (view.game?.phase !== 'playing' || view.game.turn !== view.you.seat) return false;
  return clock.deadline > serverNow;
}

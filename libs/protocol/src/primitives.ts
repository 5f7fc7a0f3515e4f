import { z } from 'zod';
import { VARIANTS } from '@dominoes/rules';

export const TileSchema = z
  .tuple([z.number().int().min(0).max(6), z.number().int().min(0).max(6)])
  .describe('A tile [a, b], each half 0..6');

/** The rules' variants (libs/rules `VARIANTS`). */
export const VariantSchema = z.enum(VARIANTS);

/** A client-made id for an intent: repeated ids are applied at most once. */
export const IntentIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only');

/** Join codes: TABLE_CODE_LENGTH characters from an alphabet without look-alikes (no 0/O, 1/I/L). */
export const TABLE_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
/**
 * 31^12 ≈ 7.9e17 codes: at 30 failed lookups a minute from each of 1,000 addresses (500 guesses/s)
 * and 100,000 waiting tables, finding one takes 31^12 / (1e5 × 500) s ≈ 500 years on average.
 */
export const TABLE_CODE_LENGTH = 12;
export const TableCodeSchema = z
  .string()
  .length(TABLE_CODE_LENGTH, `a ${TABLE_CODE_LENGTH}-character table code`)
  .regex(new RegExp(`^[${TABLE_CODE_ALPHABET}]+$`), `a ${TABLE_CODE_LENGTH}-character table code`);

/** A display name: at most this many characters as people see them (grapheme clusters). */
export const PLAYER_NAME_MAX_CHARACTERS = 24;
/** ...and at most this many bytes of UTF-8 (a letter may carry marks: the byte cap bounds the rest). */
export const PLAYER_NAME_MAX_BYTES = 96;
/** Marks (accents) one character may carry: enough for any script, not for a tower that spills over the page. */
const MAX_MARKS_PER_CHARACTER = 4;

/** Characters that draw nothing yet are letters or symbols, so a name of them alone looks empty. */
const BLANK_FILLERS = /\u115F|\u1160|\u17B4|\u17B5|\u2800|\u3164|\uFFA0/u;

/** How a name compares with the page's words: compatibility forms folded, accents gone, lower case. */
const skeleton = (name: string): string =>
  name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().normalize('NFC');

/**
 * What the page writes next to names (apps/web/src/i18n, all four languages): "(you)" after one's
 * own name, "Host" for the host, and the words "System" and "Server". A name must not pose as them.
 */
const UI_WORDS = [
  ...['you', 'host', 'system', 'server'],
  ...['أنت', 'المضيف'], // ar
  ...['ти', 'домакин'], // bg
  ...['εσύ', 'οικοδεσπότης'], // el
].map((word) => skeleton(word));
const UI_WORD = UI_WORDS.join('|');
const UI_MARKER = new RegExp(`[(\\[{<⟨]\\s*(?:${UI_WORD})\\s*[)\\]}>⟩]`, 'u');
const UI_SUFFIX = new RegExp(`[,،]\\s*(?:${UI_WORD})$`, 'u');

const graphemes = (name: string): string[] => {
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(segmenter.segment(name), (s) => s.segment);
};

/** Why a (normalised) name is refused, or null when it is fine. */
export function playerNameProblem(name: string): string | null {
  const length = `a name is 1 to ${PLAYER_NAME_MAX_CHARACTERS} characters`;
  if (name === '') return length;
  if (/\p{Cc}/u.test(name)) return 'no control characters';
  if (/\p{Cf}/u.test(name))
    return 'no invisible formatting characters (zero-width joiners and spaces, direction overrides or isolates)';
  if (/[\p{Zl}\p{Zp}]/u.test(name)) return 'no line breaks';
  if (/\p{C}/u.test(name)) return 'no unassigned, private-use or broken (surrogate) characters';
  if (BLANK_FILLERS.test(name)) return 'no blank filler characters (such as U+3164 or U+2800)';
  if (/^\p{M}/u.test(name)) return 'a name may not start with an accent or mark';
  if (!/[\p{L}\p{N}\p{P}\p{S}]/u.test(name))
    return 'a name needs at least one visible letter, digit or symbol';
  const characters = graphemes(name);
  if (characters.length > PLAYER_NAME_MAX_CHARACTERS) return length;
  if (characters.some((c) => (c.normalize('NFD').match(/\p{M}/gu)?.length ?? 0) > MAX_MARKS_PER_CHARACTER))
    return `a character may carry at most ${MAX_MARKS_PER_CHARACTER} accents or marks`;
  if (new TextEncoder().encode(name).length > PLAYER_NAME_MAX_BYTES)
    return `a name is at most ${PLAYER_NAME_MAX_BYTES} bytes of UTF-8`;
  const plain = skeleton(name);
  const bare = plain.replace(/[^\p{L}\p{N}]/gu, '');
  if (UI_WORDS.includes(bare) || UI_MARKER.test(plain) || UI_SUFFIX.test(plain) || name.includes('\u2605'))
    return 'a name may not look like the page\u2019s own labels, such as "(you)", "Host" or "System"';
  return null;
}

/**
 * Text a person typed (a name, a chat message): at most `maxUnits` UTF-16 units as sent, then put in NFC
 * with every run of spaces (any Unicode space) one ASCII space, trimmed, and refused with the reason
 * `problemOf` gives for it, if any.
 */
export function typedTextSchema(
  maxUnits: number,
  tooLong: string,
  problemOf: (text: string) => string | null,
) {
  return z
    .string()
    .max(maxUnits, tooLong)
    .transform((raw) =>
      raw
        .normalize('NFC')
        .replace(/\p{Zs}+/gu, ' ')
        .replace(/^ | $/g, ''),
    )
    .superRefine((text, ctx) => {
      const problem = problemOf(text);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    });
}

/**
 * A player's display name, as the identity endpoint takes it and tokens carry it. It is put in NFC
 * and its runs of spaces (any Unicode space) become one ASCII space, trimmed; then it must be 1 to 24
 * characters as people see them (and at most 96 bytes), hold no control, format (Cf: zero-width,
 * bidi overrides and isolates) or unassigned characters, not render as nothing, and not pose as a label
 * of the page. Parsing an accepted name again gives it back unchanged.
 */
export const PlayerNameSchema = typedTextSchema(
  4 * PLAYER_NAME_MAX_BYTES,
  `a name is at most ${PLAYER_NAME_MAX_BYTES} bytes of UTF-8`,
  playerNameProblem,
).describe(
  `A display name: NFC, spaces collapsed and trimmed; 1 to ${PLAYER_NAME_MAX_CHARACTERS} characters as seen (grapheme clusters), at most ${PLAYER_NAME_MAX_BYTES} bytes of UTF-8; no control, format (zero-width, bidi) or unassigned characters, no blank fillers, nothing that poses as the page's labels ("(you)", "Host", "System", "Server")`,
);

export const EndIdSchema = z.string().min(1).max(8);

import { z } from 'zod';
import type { ClientMessage } from './messages';
import { TableCodeSchema, typedTextSchema } from './primitives';

/*
 * Talking at a table (issue 12, decision 0020). Chat is not the game log: it never goes through the
 * table-service, never changes a table's state, version or replay. The gateway checks the sender is
 * seated at the table (its socket's seat binding), counts the player's messages in Redis, and
 * publishes on the table's chat channel (`names.chatChannel`); every gateway passes it on to the
 * sockets of that table's players and spectators. The last CHAT_HISTORY_KEPT messages are kept
 * (`names.chatRecent`, with a TTL) so that a reload shows recent chat.
 */

/** Quick phrases: the wire carries the id, and every reader sees it in their own language. */
export const CHAT_PHRASES = [
  'hello',
  'goodLuck',
  'goodGame',
  'wellPlayed',
  'niceMove',
  'thanks',
  'sorry',
  'hurryUp',
  'oneMoment',
  'rematch',
  'bye',
] as const;
export type ChatPhrase = (typeof CHAT_PHRASES)[number];

/** Emoji reactions, a fixed set: the wire carries the id; shown briefly by the sender's seat. */
export const CHAT_REACTIONS = ['thumbsUp', 'clap', 'laugh', 'wow', 'sad', 'angry', 'heart', 'fire'] as const;
export type ChatReaction = (typeof CHAT_REACTIONS)[number];
export const REACTION_EMOJI: Readonly<Record<ChatReaction, string>> = {
  thumbsUp: '👍',
  clap: '👏',
  laugh: '😂',
  wow: '😮',
  sad: '😢',
  angry: '😠',
  heart: '❤️',
  fire: '🔥',
};

/** A text message: at most this many characters as people see them (grapheme clusters). */
export const CHAT_TEXT_MAX_CHARACTERS = 200;
/** ...and at most this many UTF-16 units before it is looked at (well under MAX_FRAME_BYTES). */
const CHAT_TEXT_MAX_UNITS = 4 * CHAT_TEXT_MAX_CHARACTERS;
/** Marks one character may carry (as in names): no tower of accents spilling over the panel. */
const MAX_MARKS_PER_CHARACTER = 4;
/** How many messages of a table are kept for a reload, and for how long after the last one. */
export const CHAT_HISTORY_KEPT = 50;
export const CHAT_HISTORY_TTL_MS = 6 * 3600 * 1000;
/** Default of CHAT_RATE_MESSAGES / CHAT_RATE_WINDOW_MS: messages one player may send per window, on every gateway together. */
export const DEFAULT_CHAT_RATE = { messages: 5, windowMs: 10_000 } as const;

const ZWJ = '\u200d';

/** Why a (normalised, trimmed) chat text is refused, or null when it is fine. */
export function chatTextProblem(text: string): string | null {
  if (text === '') return 'a message may not be empty';
  if (/\p{Cc}/u.test(text)) return 'no control characters (line breaks and tabs included)';
  // Zero-width joiners hold emoji sequences together (👨‍👩‍👧); every other format character
  // (direction overrides and isolates, zero-width spaces) could disguise a message.
  const joined = text.replaceAll(ZWJ, '');
  if (/\p{Cf}/u.test(joined))
    return 'no invisible formatting characters (direction overrides or isolates, zero-width spaces)';
  if (/[\p{Zl}\p{Zp}]/u.test(text)) return 'no line breaks';
  if (/\p{C}/u.test(joined)) return 'no unassigned, private-use or broken (surrogate) characters';
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const characters = Array.from(segmenter.segment(text), (s) => s.segment);
  if (characters.length > CHAT_TEXT_MAX_CHARACTERS)
    return `a message is at most ${CHAT_TEXT_MAX_CHARACTERS} characters`;
  if (characters.some((c) => (c.normalize('NFD').match(/\p{M}/gu)?.length ?? 0) > MAX_MARKS_PER_CHARACTER))
    return `a character may carry at most ${MAX_MARKS_PER_CHARACTER} accents or marks`;
  return null;
}

/**
 * A text message as a player types it: put in NFC, runs of spaces made one, trimmed; then it must be
 * 1 to CHAT_TEXT_MAX_CHARACTERS characters with no control or invisible formatting characters. It is
 * shown as text only, never as HTML (docs/security.md).
 */
export const ChatTextSchema = typedTextSchema(
  CHAT_TEXT_MAX_UNITS,
  `a message is at most ${CHAT_TEXT_MAX_CHARACTERS} characters`,
  chatTextProblem,
);

export const ChatPhraseSchema = z.enum(CHAT_PHRASES);
export const ChatReactionSchema = z.enum(CHAT_REACTIONS);

/** What was said: a text, a quick phrase (its id) or a reaction (its id). */
export const ChatBodySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string() }),
  z.object({ kind: z.literal('phrase'), phrase: ChatPhraseSchema }),
  z.object({ kind: z.literal('reaction'), reaction: ChatReactionSchema }),
]);
export type ChatBody = z.infer<typeof ChatBodySchema>;

/** One message at a table, as the gateway publishes it and every reader receives it. */
export const ChatMessageSchema = z.object({
  /** Made by the gateway; unique, so a message seen in the history and live is shown once. */
  id: z.string().max(64),
  tableId: TableCodeSchema,
  /** The sender's seat (only seated players write). */
  seat: z.number().int().min(0),
  playerId: z.string(),
  /** The sender's name from their token: shown as text only. */
  name: z.string(),
  /** When the gateway accepted it (epoch ms). */
  at: z.number(),
  body: ChatBodySchema,
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** The client frames that talk: they never reach the table-service. */
export const TALK_MESSAGE_TYPES = ['chat', 'phrase', 'react'] as const;
export type TalkMessageType = (typeof TALK_MESSAGE_TYPES)[number];
export type TalkMessage = Extract<ClientMessage, { type: TalkMessageType }>;

export const isTalkMessage = (message: ClientMessage): message is TalkMessage =>
  (TALK_MESSAGE_TYPES as readonly string[]).includes(message.type);

/** A talk frame's body as it goes out (the schema's normalised text, or the ids). */
export function chatBodyOf(message: TalkMessage): ChatBody {
  switch (message.type) {
    case 'chat':
      return { kind: 'text', text: message.text };
    case 'phrase':
      return { kind: 'phrase', phrase: message.phrase };
    case 'react':
      return { kind: 'reaction', reaction: message.reaction };
  }
}

/** A `chat` frame's text around a message that is already JSON (passed on by the gateway unparsed). */
export function chatFrameText(messageJson: string): string {
  return `{"type":"chat","message":${messageJson}}`;
}

import { z } from 'zod';
import { ChatMessageSchema, ChatPhraseSchema, ChatReactionSchema, ChatTextSchema } from './chat';
import { ERROR_CODES } from './errors';
import {
  EndIdSchema,
  IntentIdSchema,
  PlayerNameSchema,
  TableCodeSchema,
  TileSchema,
  VariantSchema,
} from './primitives';
import { TableStatusSchema, TableViewSchema } from './views';
import { LobbyFrameSchema, LobbyRequestSchema, LobbyUpdateFrameSchema, QuickPlayFrameSchema } from './lobby';
import { SpectatorViewSchema } from './spectators';
import { ViewChangeSchema } from './view-changes';

/* ------------------------------------------------------------------ */
/* Browser → gateway (WebSocket frames, JSON text)                      */
/* ------------------------------------------------------------------ */

const intent = <K extends string, T extends z.ZodRawShape>(type: K, shape: T) =>
  z.object({ type: z.literal(type), id: IntentIdSchema, ...shape }).strict();

export const ClientMessageSchemas = {
  /** The first frame of every socket: who you are (a token from POST /api/identity). */
  hello: z.object({ type: z.literal('hello'), token: z.string().min(1).max(2048) }).strict(),
  /** Take a seat at a table (P3: seats by arrival), or return to your seat. */
  join: intent('join', { table: TableCodeSchema }),
  /** Leave: before the start it frees the seat; after it, the seat plays on by the clock. */
  leave: intent('leave', {}),
  /**
   * The moves: one of your seat's legal actions (`view.game.legal`, the rules' `Action`) without its
   * seat, which is your socket's (`messageOfAction` / `actionOfMessage` translate).
   */
  play: intent('play', { tile: TileSchema, end: EndIdSchema.optional() }),
  pass: intent('pass', {}),
  draw: intent('draw', {}),
  autoPass: intent('autoPass', { on: z.boolean() }),
  /** Host only: start the next round during the break (P18). */
  startRound: intent('startRound', {}),
  /** Host only: a new match at the same table with the same seats, once the match is over. */
  newMatch: intent('newMatch', {}),
  /** Ask for the whole current view again (a watching socket: the spectator's view). */
  sync: intent('sync', {}),
  /** Talk (seated players only; never through the table-service): a text, when the host left chat on. */
  chat: intent('chat', { text: ChatTextSchema }),
  /** A quick phrase by its id: every reader sees it in their own language. */
  phrase: intent('phrase', { phrase: ChatPhraseSchema }),
  /** An emoji reaction by its id, shown briefly by the sender's seat. */
  react: intent('react', { reaction: ChatReactionSchema }),
  /**
   * Watch a table, seated or not, by its code (decision 0018): `watchView` frames follow, the
   * public view only. A socket watches one table at a time and leaves its seat, or the table it
   * watched, for it; it acts on nothing while watching (SPECTATORS_CANNOT_ACT).
   */
  watch: intent('watch', { table: TableCodeSchema }),
  /** Stop watching (a `join`, another `watch` or closing the socket stop it too). */
  unwatch: intent('unwatch', {}),
  ping: z.object({ type: z.literal('ping'), id: IntentIdSchema.optional() }).strict(),
  /** Subscribe to the lobby's public tables (`on: true`) or stop (lib/protocol/src/lobby.ts). */
  lobby: LobbyRequestSchema,
  /** Quick play on this socket: seated with it at the oldest open public table of that game, or a new one. */
  quickPlay: QuickPlayFrameSchema,
} as const;

export type ClientMessageType = keyof typeof ClientMessageSchemas;
export const CLIENT_MESSAGE_TYPES = Object.keys(ClientMessageSchemas) as ClientMessageType[];
export type ClientMessage = {
  [K in ClientMessageType]: z.infer<(typeof ClientMessageSchemas)[K]>;
}[ClientMessageType];
export type ClientIntent = Exclude<ClientMessage, { type: 'hello' | 'ping' | 'lobby' | 'quickPlay' }>;
export type LobbyRequest = Extract<ClientMessage, { type: 'lobby' | 'quickPlay' }>;

/* ------------------------------------------------------------------ */
/* Gateway → browser                                                    */
/* ------------------------------------------------------------------ */

export const ErrorCodeSchema = z.enum(ERROR_CODES);

export const ServerMessageSchemas = {
  welcome: z.object({
    type: z.literal('welcome'),
    playerId: z.string(),
    name: z.string(),
    serverTime: z.number(),
  }),
  /**
   * The whole view of your seat: on a join, a sync, when the seat changed hands (a `viewChange` after
   * the other changes); `version` grows with each stored change of the table.
   */
  view: z.object({
    type: z.literal('view'),
    version: z.number().int(),
    serverTime: z.number(),
    view: TableViewSchema,
  }),
  /**
   * What changed in your seat's view since the one at `base` (decision 0036): apply `change` to the
   * view you hold at version `base` (`applyViewChange`) and you hold the view at `version`. A socket is
   * sent a change only on top of the view it was sent last; a `view` frame (a join, a sync, a seat
   * that changed hands) replaces the whole view. A change that does not fit: send `sync`.
   */
  viewChange: z.object({
    type: z.literal('viewChange'),
    version: z.number().int(),
    base: z.number().int(),
    serverTime: z.number(),
    change: ViewChangeSchema,
  }),
  /** A watching socket's view of the table (no hand, no hidden tile), after every change and at the watch. */
  watchView: z.object({
    type: z.literal('watchView'),
    version: z.number().int(),
    serverTime: z.number(),
    view: SpectatorViewSchema,
  }),
  ack: z.object({ type: z.literal('ack'), id: IntentIdSchema, version: z.number().int().nullable() }),
  error: z.object({
    type: z.literal('error'),
    id: IntentIdSchema.nullable(),
    code: ErrorCodeSchema,
    message: z.string(),
  }),
  pong: z.object({ type: z.literal('pong'), id: IntentIdSchema.nullable(), serverTime: z.number() }),
  /** One message of the table's chat (a text, a phrase or a reaction), to its players and spectators. */
  chat: z.object({ type: z.literal('chat'), message: ChatMessageSchema }),
  /**
   * On joining or watching a table: its recent chat (oldest first, reactions left out) and whether the
   * host left text chat on.
   */
  chatHistory: z.object({
    type: z.literal('chatHistory'),
    tableId: z.string(),
    enabled: z.boolean(),
    messages: z.array(ChatMessageSchema),
  }),
  /** The server is going away: reconnect (to any gateway) after `afterMs`. */
  reconnect: z.object({ type: z.literal('reconnect'), afterMs: z.number().int() }),
  /** The lobby, whole, after a `lobby` subscription; then a `lobbyUpdate` per change of a public table. */
  lobby: LobbyFrameSchema,
  lobbyUpdate: LobbyUpdateFrameSchema,
} as const;

export type ServerMessageType = keyof typeof ServerMessageSchemas;

/**
 * A `view` frame's text around a view that is already JSON (the seat event's view, passed through
 * by the gateway): the same text as `JSON.stringify` of the frame object, keys in schema order.
 */
export function viewFrameText(version: number, serverTime: number, viewJson: string): string {
  return `{"type":"view","version":${version},"serverTime":${serverTime},"view":${viewJson}}`;
}

/** A `viewChange` frame's text around a change that is already JSON (as `viewFrameText`). */
export function viewChangeFrameText(
  version: number,
  base: number,
  serverTime: number,
  changeJson: string,
): string {
  return `{"type":"viewChange","version":${version},"base":${base},"serverTime":${serverTime},"change":${changeJson}}`;
}
export type ServerMessage = {
  [K in ServerMessageType]: z.infer<(typeof ServerMessageSchemas)[K]>;
}[ServerMessageType];
export const ServerMessageSchema = z.discriminatedUnion(
  'type',
  Object.values(ServerMessageSchemas) as unknown as [
    (typeof ServerMessageSchemas)['welcome'],
    ...(typeof ServerMessageSchemas)[ServerMessageType][],
  ],
);

/* ------------------------------------------------------------------ */
/* HTTP API (gateway)                                                   */
/* ------------------------------------------------------------------ */

export const IdentityRequestSchema = z.object({ name: PlayerNameSchema }).strict();
export const IdentityResponseSchema = z.object({ token: z.string(), playerId: z.string(), name: z.string() });

/** P19: partnership targets 50..500 in steps of 50 (default 100); the rules library has the last word. */
export const CreateTableRequestSchema = z
  .object({
    variant: VariantSchema.default('partnership'),
    target: z.number().int().optional(),
    seats: z.number().int().optional(),
    oneRound: z.boolean().optional(),
    /** Listed in the lobby for anyone to join (issue 12); private (link only) when left out. */
    public: z.boolean().optional(),
    /** false: the table's text chat is off (quick phrases and reactions stay); default on. */
    chat: z.boolean().optional(),
  })
  .strict();
export const CreateTableResponseSchema = z.object({ tableId: TableCodeSchema, link: z.string() });

export const TableSummarySchema = z.object({
  tableId: TableCodeSchema,
  variant: VariantSchema,
  seatCount: z.number().int(),
  target: z.number().int(),
  oneRound: z.boolean(),
  status: TableStatusSchema,
  players: z.array(z.string().nullable()),
});

export const HttpErrorSchema = z.object({ error: z.object({ code: ErrorCodeSchema, message: z.string() }) });

export type IdentityRequest = z.infer<typeof IdentityRequestSchema>;
export type IdentityResponse = z.infer<typeof IdentityResponseSchema>;
export type CreateTableRequest = z.infer<typeof CreateTableRequestSchema>;
export type CreateTableResponse = z.infer<typeof CreateTableResponseSchema>;
export type TableSummary = z.infer<typeof TableSummarySchema>;

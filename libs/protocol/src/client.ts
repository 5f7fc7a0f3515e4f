import type { Action } from '@dominoes/rules';
import { messageOfAction } from './actions';
import type { ErrorCode } from './errors';
import {
  MatchListResponseSchema,
  MatchReplayResponseSchema,
  type MatchListResponse,
  type MatchReplayResponse,
} from './history';
import {
  CreateTableResponseSchema,
  IdentityResponseSchema,
  ServerMessageSchema,
  TableSummarySchema,
  type ClientIntent,
  type ClientMessage,
  type CreateTableRequest,
  type CreateTableResponse,
  type IdentityResponse,
  type LobbyRequest,
  type ServerMessage,
  type TableSummary,
} from './messages';
import { TableViewSchema, type TableView } from './views';
import { applyViewChange } from './view-changes';
import type { SpectatorView } from './spectators';
import { QuickPlayResponseSchema, type QuickPlayRequest, type QuickPlayResponse } from './lobby';

/** The part of a WebSocket the client uses: the browser's and `ws`'s both fit. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
}

export type SocketFactory = (url: string) => SocketLike;

/** An error frame, or a failure to get one, as a rejected promise. */
export class ProtocolError extends Error {
  constructor(
    readonly code: ErrorCode | 'CLOSED' | 'TIMEOUT',
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = 'ProtocolError';
  }
}

export interface Ack {
  readonly id: string;
  readonly version: number | null;
}

type IntentOf<T extends ClientIntent['type']> = Extract<ClientIntent, { type: T }>;
/** An intent's own fields: without type, id, and the index signature strict schemas add. */
type IntentBody<T extends ClientIntent['type']> = {
  [K in keyof IntentOf<T> as K extends 'type' | 'id' ? never : string extends K ? never : K]: IntentOf<T>[K];
};

interface Pending {
  resolve: (ack: Ack) => void;
  reject: (error: ProtocolError) => void;
  timer: ReturnType<typeof setTimeout>;
}

export interface DominoesClientOptions {
  readonly socketFactory: SocketFactory;
  /** How long to wait for an ack before rejecting with TIMEOUT. */
  readonly replyTimeoutMs?: number;
}

/**
 * A typed WebSocket client of the gateway: one method per intent, each resolving on its ack and
 * rejecting with the error frame's code. Every view frame is checked against the schema; a
 * `viewChange` frame is applied to the view held, and the view it makes is checked and given to the
 * view listeners like a whole one (decision 0036).
 */
export class DominoesClient {
  private socket: SocketLike | null = null;
  private readonly pending = new Map<string, Pending>();
  private readonly viewListeners = new Set<(view: TableView, version: number, serverTime: number) => void>();
  private readonly messageListeners = new Set<(message: ServerMessage) => void>();
  private readonly closeListeners = new Set<(code: number) => void>();
  private counter = 0;
  private readonly prefix = Math.floor(Date.now() % 1e9).toString(36);
  /** The latest view received, and its version. */
  view: TableView | null = null;
  /** The latest spectator view of the table this socket watches (decision 0018), and its version. */
  watchView: SpectatorView | null = null;
  watchVersion = -1;
  private readonly watchListeners = new Set<(view: SpectatorView, version: number) => void>();
  version = -1;
  /** A sync asked for because a change did not fit the view held: one at a time. */
  private resyncing = false;

  constructor(private readonly options: DominoesClientOptions) {}

  /** Opens the socket and says hello; resolves with the welcome frame. */
  connect(url: string, token: string): Promise<Extract<ServerMessage, { type: 'welcome' }>> {
    return new Promise((resolve, reject) => {
      const socket = this.options.socketFactory(url);
      this.socket = socket;
      let welcomed = false;
      socket.onopen = () => this.sendRaw({ type: 'hello', token });
      socket.onerror = () => {
        if (!welcomed) reject(new ProtocolError('CLOSED', 'The connection failed.'));
      };
      socket.onclose = (ev) => {
        for (const [, p] of this.pending) {
          clearTimeout(p.timer);
          p.reject(new ProtocolError('CLOSED', 'The connection closed.'));
        }
        this.pending.clear();
        if (!welcomed) reject(new ProtocolError('CLOSED', `Closed before welcome (${ev.code}).`));
        for (const listener of this.closeListeners) listener(ev.code);
      };
      socket.onmessage = (ev) => {
        const message = this.decode(ev.data);
        if (message === null) return;
        if (message.type === 'welcome') {
          welcomed = true;
          resolve(message);
        } else if (message.type === 'error' && !welcomed && message.id === null) {
          reject(new ProtocolError(message.code, message.message));
        }
        this.route(message);
      };
    });
  }

  private decode(data: unknown): ServerMessage | null {
    try {
      const parsed = ServerMessageSchema.safeParse(JSON.parse(String(data)));
      return parsed.success ? (parsed.data as ServerMessage) : null;
    } catch {
      return null;
    }
  }

  /** A server frame to whoever waits for it: the view listeners, the intent it answers. */
  private route(message: ServerMessage): void {
    if (message.type === 'watchView' && message.version >= this.watchVersion) {
      this.watchView = message.view;
      this.watchVersion = message.version;
      for (const listener of this.watchListeners) listener(message.view, message.version);
    }
    if (message.type === 'view' && message.version >= this.version)
      this.show(message.view, message.version, message.serverTime);
    if (message.type === 'viewChange' && message.version > this.version) this.applyChange(message);
    if ((message.type === 'ack' || message.type === 'error') && message.id !== null) {
      const pending = this.pending.get(message.id);
      if (pending) {
        this.pending.delete(message.id);
        clearTimeout(pending.timer);
        if (message.type === 'ack') pending.resolve({ id: message.id, version: message.version });
        else pending.reject(new ProtocolError(message.code, message.message));
      }
    }
    for (const listener of this.messageListeners) listener(message);
  }

  private show(view: TableView, version: number, serverTime: number): void {
    this.view = view;
    this.version = version;
    for (const listener of this.viewListeners) listener(view, version, serverTime);
  }

  /**
   * A change on top of the view held; one that does not fit it (the gateway sends none such, but a
   * client does not count on it) asks for the whole view again instead.
   */
  private applyChange(message: Extract<ServerMessage, { type: 'viewChange' }>): void {
    const parsed =
      this.view !== null && message.base === this.version
        ? TableViewSchema.safeParse(safely(() => applyViewChange(this.view, message.change)))
        : null;
    if (parsed?.success) {
      this.show(parsed.data, message.version, message.serverTime);
      return;
    }
    if (this.resyncing) return;
    this.resyncing = true;
    this.sync()
      .catch(() => undefined)
      .finally(() => {
        this.resyncing = false;
      });
  }

  /** Sends any frame as is (tests use it to send bad input). */
  sendRaw(frame: ClientMessage | Record<string, unknown> | string): void {
    if (!this.socket) throw new ProtocolError('CLOSED', 'Not connected.');
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  nextId(): string {
    this.counter += 1;
    return `${this.prefix}-${this.counter}`;
  }

  /** Sends an intent and waits for its ack; a repeated `id` is applied at most once. */
  request<T extends ClientIntent['type']>(type: T, body: IntentBody<T>, id = this.nextId()): Promise<Ack> {
    return this.ask({ type, id, ...body } as ClientIntent);
  }

  /** Sends one of the seat's legal actions (`view.game.legal`) as its frame, and waits for its ack. */
  act(action: Action, id = this.nextId()): Promise<Ack> {
    return this.ask(messageOfAction(action, id));
  }

  /** Subscribes this socket to the lobby (`lobby` frame, then `lobbyUpdate`s), or stops. */
  lobby(on: boolean, id = this.nextId()): Promise<Ack> {
    return this.ask({ type: 'lobby', id, on });
  }

  /** Quick play on this socket: resolves once seated (the seat's view follows on `onView`). */
  quickPlay(request: QuickPlayRequest, id = this.nextId()): Promise<Ack> {
    return this.ask({ type: 'quickPlay', id, ...request });
  }

  private ask(message: ClientIntent | LobbyRequest): Promise<Ack> {
    const { type, id } = message;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ProtocolError('TIMEOUT', `No reply to ${type} ${id}.`));
      }, this.options.replyTimeoutMs ?? 10_000);
      this.pending.set(id, { resolve, reject, timer });
      try {
        this.sendRaw(message);
      } catch (error) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(error);
      }
    });
  }

  join(table: string): Promise<Ack> {
    return this.request('join', { table });
  }
  leave(): Promise<Ack> {
    return this.request('leave', {});
  }
  play(tile: readonly [number, number], end?: string): Promise<Ack> {
    const body: IntentBody<'play'> = { tile: [tile[0], tile[1]] };
    return this.request('play', end === undefined ? body : { ...body, end });
  }
  pass(): Promise<Ack> {
    return this.request('pass', {});
  }
  draw(): Promise<Ack> {
    return this.request('draw', {});
  }
  autoPass(on: boolean): Promise<Ack> {
    return this.request('autoPass', { on });
  }
  startRound(): Promise<Ack> {
    return this.request('startRound', {});
  }
  newMatch(): Promise<Ack> {
    return this.request('newMatch', {});
  }
  sync(): Promise<Ack> {
    return this.request('sync', {});
  }
  /** Watches a table (its `watchView` frames follow); a new watch starts from no view. */
  watch(table: string): Promise<Ack> {
    this.watchView = null;
    this.watchVersion = -1;
    return this.request('watch', { table });
  }
  unwatch(): Promise<Ack> {
    return this.request('unwatch', {});
  }
  onWatchView(listener: (view: SpectatorView, version: number) => void): () => void {
    this.watchListeners.add(listener);
    return () => this.watchListeners.delete(listener);
  }
  /** Resolves with the first spectator view (current or future) that satisfies `predicate`. */
  waitForWatchView(predicate: (view: SpectatorView) => boolean, timeoutMs = 10_000): Promise<SpectatorView> {
    if (this.watchView && predicate(this.watchView)) return Promise.resolve(this.watchView);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new ProtocolError('TIMEOUT', 'The expected spectator view did not arrive.'));
      }, timeoutMs);
      const off = this.onWatchView((view) => {
        if (predicate(view)) {
          clearTimeout(timer);
          off();
          resolve(view);
        }
      });
    });
  }

  onView(listener: (view: TableView, version: number, serverTime: number) => void): () => void {
    this.viewListeners.add(listener);
    return () => this.viewListeners.delete(listener);
  }
  onMessage(listener: (message: ServerMessage) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }
  onClose(listener: (code: number) => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** Resolves with the first view (current or future) that satisfies `predicate`. */
  waitForView(predicate: (view: TableView) => boolean, timeoutMs = 10_000): Promise<TableView> {
    if (this.view && predicate(this.view)) return Promise.resolve(this.view);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new ProtocolError('TIMEOUT', 'The expected view did not arrive.'));
      }, timeoutMs);
      const off = this.onView((view) => {
        if (predicate(view)) {
          clearTimeout(timer);
          off();
          resolve(view);
        }
      });
    });
  }

  close(): void {
    this.socket?.close(1000, 'bye');
  }
}

/* HTTP helpers: the same calls the web page makes. */

/** `run()`, or undefined if it throws. */
function safely<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    return undefined;
  }
}

async function postJson(url: string, body: unknown, token?: string): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { error?: { code: ErrorCode; message: string } };
  if (!response.ok)
    throw new ProtocolError(json.error?.code ?? 'INTERNAL', json.error?.message ?? response.statusText);
  return json;
}

export async function requestIdentity(baseUrl: string, name: string): Promise<IdentityResponse> {
  return IdentityResponseSchema.parse(await postJson(`${baseUrl}/api/identity`, { name }));
}

export async function createTable(
  baseUrl: string,
  token: string,
  request: CreateTableRequest,
): Promise<CreateTableResponse> {
  return CreateTableResponseSchema.parse(await postJson(`${baseUrl}/api/tables`, request, token));
}

async function getJson(url: string, token?: string): Promise<unknown> {
  const response = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const json = (await response.json()) as { error?: { code: ErrorCode; message: string } };
  if (!response.ok)
    throw new ProtocolError(json.error?.code ?? 'INTERNAL', json.error?.message ?? response.statusText);
  return json;
}

/** POST /api/quick-play: a seat at the oldest open public table of the configuration, or a new one. */
export async function quickPlay(
  baseUrl: string,
  token: string,
  request: QuickPlayRequest,
): Promise<QuickPlayResponse> {
  return QuickPlayResponseSchema.parse(await postJson(`${baseUrl}/api/quick-play`, request, token));
}

export async function getTable(baseUrl: string, tableId: string): Promise<TableSummary> {
  return TableSummarySchema.parse(await getJson(`${baseUrl}/api/tables/${encodeURIComponent(tableId)}`));
}

/** Page `page` (from 0) of the token's player's matches, newest first. */
export async function getMyMatches(baseUrl: string, token: string, page = 0): Promise<MatchListResponse> {
  return MatchListResponseSchema.parse(await getJson(`${baseUrl}/api/matches?page=${page}`, token));
}

/** The replay of a finished or abandoned match (anyone with its id may see it). */
export async function getReplay(baseUrl: string, matchId: string): Promise<MatchReplayResponse> {
  return MatchReplayResponseSchema.parse(
    await getJson(`${baseUrl}/api/replays/${encodeURIComponent(matchId)}`),
  );
}

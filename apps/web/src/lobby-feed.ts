import { useEffect, useState, useSyncExternalStore } from 'react';
import {
  DominoesClient,
  LOBBY_MAX_TABLES,
  type LobbyTable,
  type QuickPlayRequest,
  type ServerMessage,
  type SocketLike,
} from '@dominoes/protocol';

/**
 * The live lobby (issue 12, decision 0019): a socket of its own while the lobby page is shown, subscribed
 * with a `lobby` frame. The whole lobby comes first, then one `lobbyUpdate` per change of a public
 * table; the newest version of each table wins, so an update older than the list changes nothing.
 * Reconnects with backoff, and reads the whole lobby again each time.
 */

export interface LobbyState {
  readonly status: 'connecting' | 'live' | 'offline';
  /** Public tables: waiting ones oldest first, then those in play, newest first. */
  readonly tables: readonly LobbyTable[];
  readonly counts: { readonly waiting: number; readonly playing: number };
  readonly yours: readonly LobbyTable[];
  /** Server clock − local clock, for the tables' ages. */
  readonly offsetMs: number;
}

const EMPTY: LobbyState = {
  status: 'connecting',
  tables: [],
  counts: { waiting: 0, playing: 0 },
  yours: [],
  offsetMs: 0,
};

/** Waiting tables oldest first, then tables in play newest first (as the server lists them). */
export function sortLobby(tables: Iterable<LobbyTable>): LobbyTable[] {
  const all = [...tables];
  const waiting = all.filter((t) => t.status === 'waiting').sort((a, b) => a.openedAt - b.openedAt);
  const playing = all.filter((t) => t.status === 'playing').sort((a, b) => b.openedAt - a.openedAt);
  return [...waiting, ...playing];
}

/** The lobby after one update: the newest version of each table; a table that left the lobby (null) is removed. */
export function applyLobbyUpdate(
  state: LobbyState,
  update: { tableId: string; version: number; table: LobbyTable | null },
): LobbyState {
  const known = state.tables.find((t) => t.tableId === update.tableId);
  const mine = state.yours.find((t) => t.tableId === update.tableId);
  if ((known && known.version > update.version) || (mine && mine.version > update.version)) return state;
  const counts = { ...state.counts };
  if (known) counts[known.status] = Math.max(0, counts[known.status] - 1);
  if (update.table) counts[update.table.status] += 1;
  const others = state.tables.filter((t) => t.tableId !== update.tableId);
  // A new table beyond the list's size is counted, not listed: the page stays bounded.
  const listed =
    update.table && (known || others.length < LOBBY_MAX_TABLES) ? [...others, update.table] : others;
  const yours = mine
    ? update.table
      ? state.yours.map((t) => (t.tableId === update.tableId ? update.table! : t))
      : state.yours.filter((t) => t.tableId !== update.tableId)
    : state.yours;
  return { ...state, tables: sortLobby(listed), counts, yours };
}

/**
 * After quick play on the lobby's socket, that socket sits on the seat: it stays open this long after the
 * lobby closes, while the table page's own socket joins, so the seat is never without a connection (P17).
 */
const PARK_MS = 10_000;
/**
 * The whole lobby is read again this often: an update lost on its way (Redis away for a moment) is
 * healed within it, and the counts made exact again.
 */
const REFRESH_MS = 60_000;

const browserSocket = (url: string): SocketLike => new WebSocket(url) as unknown as SocketLike;

export class LobbyFeed {
  private state: LobbyState = EMPTY;
  private readonly listeners = new Set<() => void>();
  private client: DominoesClient | null = null;
  private token: string | null = null;
  private attempt = 0;
  private retry: ReturnType<typeof setTimeout> | null = null;
  /** The socket that quick play seated: closed PARK_MS after the lobby stops, not at once. */
  private seated: DominoesClient | null = null;
  private refresh: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`,
  ) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getState = (): LobbyState => this.state;

  private set(next: LobbyState): void {
    this.state = next;
    for (const listener of this.listeners) listener();
  }

  /** Opens the lobby's socket for the identity `token` (again after a change of name). */
  start(token: string): void {
    if (this.token === token && this.client) return;
    this.stop();
    this.token = token;
    this.connect();
  }

  stop(): void {
    this.token = null;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    if (this.refresh) clearInterval(this.refresh);
    this.refresh = null;
    const client = this.client;
    this.client = null;
    if (client !== null && client === this.seated) {
      this.seated = null;
      setTimeout(() => client.close(), PARK_MS);
    } else client?.close();
    this.state = EMPTY;
  }

  /**
   * Quick play on the lobby's socket (its connection sits on the seat from the first moment); resolves
   * with the table's code. Null when the lobby is not live: the caller uses POST /api/quick-play.
   */
  async quickPlay(request: QuickPlayRequest): Promise<string | null> {
    const client = this.client;
    if (client === null || this.state.status !== 'live') return null;
    await client.quickPlay(request);
    const view = client.view ?? (await client.waitForView(() => true));
    this.seated = client;
    return view.tableId;
  }

  private connect(): void {
    const token = this.token;
    if (token === null) return;
    const client = new DominoesClient({ socketFactory: browserSocket, replyTimeoutMs: 10_000 });
    this.client = client;
    client.onMessage((message) => {
      if (client === this.client) this.onMessage(message);
    });
    client.onClose(() => {
      if (client === this.client) this.reconnectLater();
    });
    client.connect(this.wsUrl, token).then(
      () => {
        if (client !== this.client) return;
        this.attempt = 0;
        client.lobby(true).catch(() => this.reconnectLater());
        if (this.refresh) clearInterval(this.refresh);
        this.refresh = setInterval(() => {
          // Off, then on: the gateway reads the whole lobby again for this socket.
          if (client === this.client)
            void client
              .lobby(false)
              .then(() => client.lobby(true))
              .catch(() => undefined);
        }, REFRESH_MS);
      },
      () => {
        if (client === this.client) this.reconnectLater();
      },
    );
  }

  private reconnectLater(): void {
    const client = this.client;
    this.client = null;
    client?.close();
    if (this.token === null) return;
    this.set({ ...this.state, status: 'offline' });
    const delay = Math.min(8_000, 500 * 2 ** this.attempt);
    this.attempt += 1;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect();
    }, delay);
  }

  private onMessage(message: ServerMessage): void {
    if (message.type === 'lobby') {
      this.set({
        status: 'live',
        tables: sortLobby(message.tables),
        counts: message.counts,
        yours: message.yours,
        offsetMs: message.serverTime - Date.now(),
      });
    } else if (message.type === 'lobbyUpdate') {
      this.set(applyLobbyUpdate(this.state, message));
    }
  }
}

const feed = typeof window === 'undefined' ? null : new LobbyFeed();

/** Quick play through the lobby's socket (null when it is not live). */
export const quickPlayOnLobby = (request: QuickPlayRequest): Promise<string | null> =>
  feed ? feed.quickPlay(request) : Promise.resolve(null);

/** The live lobby while the calling component is shown, for the identity `token` (null: none yet). */
export function useLobby(token: string | null): LobbyState {
  const live = feed!;
  useEffect(() => {
    if (token === null) return;
    live.start(token);
    return () => live.stop();
  }, [live, token]);
  return useSyncExternalStore(live.subscribe, live.getState);
}

/** Minutes since `openedAt` (server time), refreshed every 20 s. */
export function useMinutesSince(openedAt: number, offsetMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 20_000);
    return () => clearInterval(timer);
  }, []);
  return Math.max(0, Math.floor((now + offsetMs - openedAt) / 60_000));
}

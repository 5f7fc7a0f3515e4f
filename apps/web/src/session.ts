import {
  DominoesClient,
  ProtocolError,
  createTable,
  requestIdentity,
  type CreateTableRequest,
  type ErrorCode,
  type IdentityResponse,
  type ServerMessage,
  type SocketLike,
  type SpectatorView,
  type TableView,
} from '@dominoes/protocol';

/**
 * The page's one connection to the gateway: the identity (kept in localStorage), the socket, and
 * the latest view of the table in the address bar. Reconnects with backoff whenever the socket
 * closes, and joins the table again after every `welcome`, so a reload or a lost network returns the
 * player to the same seat with the whole current view.
 */

export type ConnectionStatus = 'idle' | 'connecting' | 'online' | 'reconnecting';

export interface Identity {
  readonly token: string;
  readonly playerId: string;
  readonly name: string;
}

export interface Problem {
  readonly code: ErrorCode | 'CLOSED' | 'TIMEOUT' | 'NETWORK';
  readonly message: string;
  readonly at: number;
}

export interface SessionState {
  readonly identity: Identity | null;
  readonly status: ConnectionStatus;
  /** The table in the address bar (`/t/:code`), or null in the lobby. */
  readonly table: string | null;
  readonly view: TableView | null;
  readonly version: number;
  /** The page watches the table instead of joining it (`/t/:code?watch=1`, decision 0018). */
  readonly watching: boolean;
  /** The spectator's view of the watched table (its version in `version`). */
  readonly watchView: SpectatorView | null;
  /** Why joining the table failed (not found, full): the page shows it instead of the table. */
  readonly joinProblem: Problem | null;
  /** The last refused action, shown briefly. */
  readonly actionProblem: Problem | null;
  /** An intent is on its way: the hand waits for its answer. */
  readonly pending: boolean;
  /** When the next reconnection attempt happens (local ms), while reconnecting. */
  readonly retryAt: number | null;
}

const IDENTITY_KEY = 'dominoes.identity';
const PING_EVERY_MS = 10_000;
/** No frame at all for this long (pongs included) means the network is gone. */
const SILENCE_MS = 25_000;

function readIdentity(): Identity | null {
  try {
    const raw = localStorage.getItem(IDENTITY_KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<Identity>;
    return typeof parsed.token === 'string' &&
      typeof parsed.playerId === 'string' &&
      typeof parsed.name === 'string'
      ? { token: parsed.token, playerId: parsed.playerId, name: parsed.name }
      : null;
  } catch {
    return null;
  }
}

/** Jitter from the platform's CSPRNG (the project's lint keeps Math.random out of the code). */
function jitter(): number {
  const buffer = new Uint32Array(1);
  crypto.getRandomValues(buffer);
  return 0.75 + ((buffer[0] ?? 0) / 2 ** 32) * 0.5;
}

const browserSocket = (url: string): SocketLike => new WebSocket(url) as unknown as SocketLike;

export const problemOf = (error: unknown): Problem => {
  const at = Date.now();
  if (error instanceof ProtocolError) return { code: error.code, message: error.message, at };
  return { code: 'NETWORK', message: error instanceof Error ? error.message : String(error), at };
};

export class Session {
  private state: SessionState;
  private readonly listeners = new Set<() => void>();
  private client: DominoesClient | null = null;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private lastFrameAt = 0;
  /** Lower bounds of (server clock − local clock), one per frame; their maximum is the estimate. */
  private offsetSamples: number[] = [];
  private offset = 0;
  /** Every frame of the page's socket, to whoever reads its own kinds (the table's chat). */
  private readonly frameListeners = new Set<(message: ServerMessage) => void>();

  constructor(
    private readonly baseUrl = location.origin,
    private readonly wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`,
  ) {
    this.state = {
      identity: readIdentity(),
      status: 'idle',
      table: null,
      view: null,
      version: -1,
      watching: false,
      watchView: null,
      joinProblem: null,
      actionProblem: null,
      pending: false,
      retryAt: null,
    };
    window.addEventListener('online', () => {
      if (this.state.status === 'reconnecting') this.connectNow();
    });
    window.addEventListener('offline', () => {
      // The socket may take a long time to notice: say so now, and start over.
      if (this.client) this.dropSocket();
    });
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible' && this.state.status === 'reconnecting') this.connectNow();
    });
  }

  /* -------- store (useSyncExternalStore) -------- */

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getState = (): SessionState => this.state;

  private set(change: Partial<SessionState>): void {
    this.state = { ...this.state, ...change };
    for (const listener of this.listeners) listener();
  }

  /* -------- time -------- */

  /** The server's clock now, estimated from the `serverTime` of the frames received. */
  serverNow(): number {
    return Date.now() + this.offset;
  }

  private sample(serverTime: number): void {
    // A frame is received after it was sent, so serverTime − receivedAt is at most the true offset.
    this.offsetSamples.push(serverTime - Date.now());
    if (this.offsetSamples.length > 40) this.offsetSamples.shift();
    this.offset = Math.max(...this.offsetSamples);
  }

  /* -------- identity -------- */

  async register(name: string): Promise<void> {
    const identity: IdentityResponse = await requestIdentity(this.baseUrl, name);
    const value: Identity = { token: identity.token, playerId: identity.playerId, name: identity.name };
    localStorage.setItem(IDENTITY_KEY, JSON.stringify(value));
    this.dropSocket(false);
    this.set({ identity: value, joinProblem: null });
    if (this.state.table) this.connectNow();
  }

  forgetIdentity(): void {
    localStorage.removeItem(IDENTITY_KEY);
    this.closeQuietly();
    this.set({ identity: null, view: null, version: -1, status: 'idle' });
  }

  /* -------- tables -------- */

  async openTable(request: CreateTableRequest): Promise<string> {
    const identity = this.state.identity;
    if (!identity) throw new Error('no identity');
    const { tableId } = await createTable(this.baseUrl, identity.token, request);
    return tableId;
  }

  /**
   * Shows the table `code` (or the lobby for null): joins it, or with `watch` watches it, connecting
   * first if needed.
   */
  showTable(code: string | null, watch = false): void {
    if (code === this.state.table && watch === this.state.watching) return;
    const previous = this.state.table;
    this.set({
      table: code,
      view: null,
      version: -1,
      watching: code !== null && watch,
      watchView: null,
      joinProblem: null,
      actionProblem: null,
      pending: false,
    });
    if (code === null) {
      if (previous !== null) {
        this.closeQuietly();
        this.set({ status: 'idle', retryAt: null });
      }
      return;
    }
    if (!this.state.identity) return;
    if (this.client && this.state.status === 'online') {
      this.set({ status: 'connecting' });
      void this.join(this.client, code);
    } else this.connectNow();
  }

  /* -------- connection -------- */

  connectNow(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.connect();
  }

  private connect(): void {
    const identity = this.state.identity;
    if (!identity || this.state.table === null) return;
    this.closeQuietly();
    const client = new DominoesClient({ socketFactory: browserSocket, replyTimeoutMs: 12_000 });
    this.client = client;
    this.set({
      status: this.attempt === 0 && this.state.view === null ? 'connecting' : 'reconnecting',
      retryAt: null,
    });
    client.onMessage((message) => this.onMessage(client, message));
    client.onView((view, version, serverTime) => {
      if (client !== this.client) return;
      this.sample(serverTime);
      if (view.tableId !== this.state.table) return;
      this.set({ view, version, joinProblem: null });
    });
    client.onWatchView((view, version) => {
      if (client !== this.client || !this.state.watching || view.tableId !== this.state.table) return;
      this.set({ watchView: view, version, joinProblem: null });
    });
    client.onClose(() => {
      if (client !== this.client) return;
      this.scheduleReconnect();
    });
    client.connect(this.wsUrl, identity.token).then(
      (welcome) => {
        if (client !== this.client) return;
        this.attempt = 0;
        this.sample(welcome.serverTime);
        this.startHeartbeat(client);
        const table = this.state.table;
        // Online once the table has answered the join (and its whole view is on its way).
        if (table) void this.join(client, table);
        else this.set({ status: 'online', retryAt: null });
      },
      (error: unknown) => {
        if (client !== this.client) return;
        const problem = problemOf(error);
        if (problem.code === 'TOKEN_INVALID' || problem.code === 'TOKEN_EXPIRED') {
          // The identity is no longer good: ask for a name again.
          this.forgetIdentity();
          return;
        }
        this.scheduleReconnect();
      },
    );
  }

  private async join(client: DominoesClient, table: string): Promise<void> {
    try {
      if (this.state.watching) await client.watch(table);
      else await client.join(table);
      if (client === this.client && this.state.table === table) this.set({ status: 'online', retryAt: null });
    } catch (error) {
      if (client !== this.client || this.state.table !== table) return;
      const problem = problemOf(error);
      if (problem.code === 'CLOSED' || problem.code === 'TIMEOUT' || problem.code === 'UNAVAILABLE') {
        this.dropSocket();
        return;
      }
      this.set({ status: 'online', retryAt: null, joinProblem: problem });
    }
  }

  private onMessage(client: DominoesClient, message: ServerMessage): void {
    if (client !== this.client) return;
    this.lastFrameAt = Date.now();
    for (const listener of this.frameListeners) listener(message);
    if (message.type === 'pong' || message.type === 'welcome') this.sample(message.serverTime);
    if (message.type === 'reconnect') {
      // The gateway is going away: come back (to any gateway) after the delay it asks for.
      this.closeQuietly();
      this.set({ status: 'reconnecting', retryAt: Date.now() + message.afterMs });
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.connect();
      }, message.afterMs);
    }
  }

  private startHeartbeat(client: DominoesClient): void {
    this.lastFrameAt = Date.now();
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (client !== this.client) return;
      if (Date.now() - this.lastFrameAt > SILENCE_MS) {
        this.dropSocket();
        return;
      }
      try {
        client.sendRaw({ type: 'ping', id: client.nextId() });
      } catch {
        this.dropSocket();
      }
    }, PING_EVERY_MS);
  }

  /** Closes the socket and (by default) reconnects with backoff. */
  private dropSocket(reconnect = true): void {
    this.closeQuietly();
    if (reconnect) this.scheduleReconnect();
  }

  private closeQuietly(): void {
    const client = this.client;
    this.client = null;
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    try {
      client?.close();
    } catch {
      // already closed
    }
  }

  private scheduleReconnect(): void {
    this.closeQuietly();
    if (!this.state.identity || this.state.table === null) {
      this.set({ status: 'idle', retryAt: null });
      return;
    }
    const delay = Math.min(8000, 400 * 2 ** this.attempt) * jitter();
    this.attempt += 1;
    this.set({ status: 'reconnecting', retryAt: Date.now() + delay, pending: false });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
  }

  /* -------- intents -------- */

  private async act(run: (client: DominoesClient) => Promise<unknown>): Promise<boolean> {
    const client = this.client;
    if (!client || this.state.status !== 'online') return false;
    this.set({ pending: true, actionProblem: null });
    try {
      await run(client);
      if (client === this.client) this.set({ pending: false });
      return true;
    } catch (error) {
      if (client === this.client) this.set({ pending: false, actionProblem: problemOf(error) });
      return false;
    }
  }

  play(tile: readonly [number, number], end: string | undefined): Promise<boolean> {
    return this.act((c) => c.play(tile, end));
  }
  pass(): Promise<boolean> {
    return this.act((c) => c.pass());
  }
  draw(): Promise<boolean> {
    return this.act((c) => c.draw());
  }
  autoPass(on: boolean): Promise<boolean> {
    return this.act((c) => c.autoPass(on));
  }
  startRound(): Promise<boolean> {
    return this.act((c) => c.startRound());
  }
  newMatch(): Promise<boolean> {
    return this.act((c) => c.newMatch());
  }
  async leave(): Promise<void> {
    await this.act((c) => c.leave());
  }
  /** Listens to every frame of the current socket (and of the ones after it). */
  onFrame(listener: (message: ServerMessage) => void): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  /** A talk frame (chat, phrase, react; decision 0020): resolves with why it was refused, or null. */
  async talk(send: (client: DominoesClient) => Promise<unknown>): Promise<Problem | null> {
    const client = this.client;
    if (!client || this.state.status !== 'online')
      return { code: 'CLOSED', message: 'Not connected.', at: Date.now() };
    try {
      await send(client);
      return null;
    } catch (error) {
      return problemOf(error);
    }
  }

  clearActionProblem(): void {
    this.set({ actionProblem: null });
  }
}

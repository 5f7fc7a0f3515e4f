import WebSocket from 'ws';
import {
  createTable,
  DominoesClient,
  requestIdentity,
  type CreateTableRequest,
  type ServerMessage,
  type SocketLike,
  type TableView,
} from '@dominoes/protocol';

export const nodeSocket = (url: string): SocketLike => new WebSocket(url) as unknown as SocketLike;

/** Where players find the system: a TestSystem, or any gateway (a container's, the compose stack's). */
export interface PlayerEndpoints {
  readonly httpUrl: string;
  readonly wsUrl: string;
}

/** A player as a browser would be: an identity, a socket, and every frame it was sent. */
export class TestPlayer {
  readonly frames: ServerMessage[] = [];
  /**
   * Whether view frames are kept in `frames` (for `views()`). Many-table tests turn it off: a
   * player's whole-match views are megabytes, and hundreds of tables ran the test process out of heap.
   */
  recordViews = true;
  client: DominoesClient;
  private readonly viewListeners = new Set<(view: TableView, version: number) => void>();
  private rejoin: { tableId: string; wsUrls: () => string[] } | null = null;
  private wsUrl: string;
  reconnects = 0;

  constructor(
    readonly name: string,
    readonly token: string,
    readonly playerId: string,
    private readonly system: PlayerEndpoints,
  ) {
    this.wsUrl = system.wsUrl;
    this.client = this.newClient();
  }

  private newClient(): DominoesClient {
    const client = new DominoesClient({ socketFactory: nodeSocket, replyTimeoutMs: 15_000 });
    // Views are recorded as the client holds them: a change applied makes a whole view (decision 0036).
    client.onMessage((m) => {
      if (m.type !== 'view' && m.type !== 'viewChange') this.frames.push(m);
    });
    client.onView((view, version, serverTime) => {
      if (this.recordViews) this.frames.push({ type: 'view', version, serverTime, view });
      for (const listener of this.viewListeners) listener(view, version);
    });
    client.onClose(() => {
      if (this.rejoin && this.client === client) void this.failover();
    });
    return client;
  }

  /** Views of this player, whichever socket they come on (reconnects included). */
  onView(listener: (view: TableView, version: number) => void): () => void {
    this.viewListeners.add(listener);
    return () => this.viewListeners.delete(listener);
  }

  /** Like a browser: when the socket drops, reconnect to a gateway that answers and take the seat again. */
  keepSeat(tableId: string, wsUrls: () => string[]): void {
    this.rejoin = { tableId, wsUrls };
  }

  /** Leaves for good: no more reconnects, the socket closed (end of a test). */
  close(): void {
    this.rejoin = null;
    this.client.close();
  }

  /** True while `failover` runs: a socket that fails during it must not start a second loop. */
  private failingOver = false;

  private async failover(): Promise<void> {
    if (this.failingOver) return;
    this.failingOver = true;
    const rejoin = this.rejoin!;
    try {
      for (let attempt = 0; attempt < 50 && this.rejoin === rejoin; attempt++) {
        const urls = rejoin.wsUrls();
        this.wsUrl = urls[attempt % urls.length]!;
        const client = this.newClient();
        this.client = client;
        try {
          await client.connect(this.wsUrl, this.token);
          if (this.rejoin !== rejoin) return client.close();
          // Counted before the rejoin's view arrives, so a player looks at that view afresh.
          this.reconnects++;
          await this.join(rejoin.tableId);
          return;
        } catch {
          // This attempt's socket goes (a connected one whose join failed too), then a new one.
          client.close();
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    } finally {
      this.failingOver = false;
    }
  }

  static async create(system: PlayerEndpoints, name: string): Promise<TestPlayer> {
    const identity = await requestIdentity(system.httpUrl, name);
    return new TestPlayer(name, identity.token, identity.playerId, system);
  }

  async connect(wsUrl = this.wsUrl): Promise<void> {
    this.wsUrl = wsUrl;
    await this.client.connect(wsUrl, this.token);
  }

  /** A new socket with the same identity (a reload, a lost network). */
  async reconnect(): Promise<void> {
    const old = this.client;
    this.client = this.newClient();
    old.close();
    await this.connect();
  }

  /**
   * Takes (or returns to) a seat and waits for the view of it, as the page does. The wait allows a
   * loaded CI machine (a Redis Cluster's six nodes and two replicas of each service on 2 cores):
   * 10 s ran out there once while seating 30 tables.
   */
  async join(tableId: string): Promise<TableView> {
    const ack = await this.client.join(tableId);
    return this.client.waitForView(
      (v) =>
        this.client.version >= (ack.version ?? 0) &&
        v.tableId === tableId &&
        v.seats[v.you.seat]?.name === this.name,
      30_000,
    );
  }

  get view(): TableView | null {
    return this.client.view;
  }

  get seat(): number {
    return this.client.view?.you.seat ?? -1;
  }

  openTable(request: CreateTableRequest) {
    return createTable(this.system.httpUrl, this.token, request);
  }

  views(): TableView[] {
    return this.frames.flatMap((f) => (f.type === 'view' ? [f.view] : []));
  }
}

/** Opens the table the players are seated at: the host's new table by default. */
export type TableOpener = (host: TestPlayer, request: CreateTableRequest) => Promise<string>;

const hostsTable: TableOpener = async (host, request) => (await host.openTable(request)).tableId;

export async function seatPlayers(
  system: PlayerEndpoints,
  names: string[],
  request: CreateTableRequest,
  wsUrlOf: (index: number) => string = () => system.wsUrl,
  open: TableOpener = hostsTable,
) {
  const players = await Promise.all(names.map((n) => TestPlayer.create(system, n)));
  const host = players[0]!;
  const tableId = await open(host, request);
  for (const [i, p] of players.entries()) {
    await p.connect(wsUrlOf(i));
    await p.join(tableId);
  }
  return { players, tableId };
}

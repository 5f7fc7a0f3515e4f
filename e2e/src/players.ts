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
import type { TestSystem } from './system';

export const nodeSocket = (url: string): SocketLike => new WebSocket(url) as unknown as SocketLike;

/** A player as a browser would be: an identity, a socket, and every frame it was sent. */
export class TestPlayer {
  readonly frames: ServerMessage[] = [];
  client: DominoesClient;

  constructor(
    readonly name: string,
    readonly token: string,
    readonly playerId: string,
    private readonly system: TestSystem,
  ) {
    this.client = this.newClient();
  }

  private newClient(): DominoesClient {
    const client = new DominoesClient({ socketFactory: nodeSocket, replyTimeoutMs: 15_000 });
    client.onMessage((m) => this.frames.push(m));
    return client;
  }

  static async create(system: TestSystem, name: string): Promise<TestPlayer> {
    const identity = await requestIdentity(system.httpUrl, name);
    return new TestPlayer(name, identity.token, identity.playerId, system);
  }

  async connect(): Promise<void> {
    await this.client.connect(this.system.wsUrl, this.token);
  }

  /** A new socket with the same identity (a reload, a lost network). */
  async reconnect(): Promise<void> {
    this.client.close();
    this.client = this.newClient();
    await this.connect();
  }

  /** Takes (or returns to) a seat and waits for the view of it, as the page does. */
  async join(tableId: string): Promise<TableView> {
    const ack = await this.client.join(tableId);
    return this.client.waitForView(
      (v) =>
        this.client.version >= (ack.version ?? 0) &&
        v.tableId === tableId &&
        v.seats[v.you.seat]?.name === this.name,
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

export async function seatPlayers(system: TestSystem, names: string[], request: CreateTableRequest) {
  const players = await Promise.all(names.map((n) => TestPlayer.create(system, n)));
  const host = players[0]!;
  const { tableId } = await host.openTable(request);
  for (const p of players) {
    await p.connect();
    await p.join(tableId);
  }
  return { players, tableId };
}

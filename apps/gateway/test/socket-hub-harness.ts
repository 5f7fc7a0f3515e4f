/**
 * The socket hub's unit suites (`socket-hub*.unit.test.ts`) share this: a real SocketHub on fake
 * `ws` sockets that emit what ws emits (`message`, `ping`, `pong`, `close`), a clock the test moves,
 * a real seat router (Redis pub/sub), the real intent service on the real sharded-streams client,
 * and a stand-in table-service (FakeTableService) answering on the streams' far side. The chat
 * relay and the lobby are recording stand-ins: the hub only hands frames to them (their own suites
 * run them on Redis and Postgres).
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import { readBaseConfig, ShardedStreamsClient } from '@dominoes/platform';
import { redisNames, type IntentEnvelope, type IntentReply, type TalkMessage } from '@dominoes/protocol';
import { recordingLogger, type LoggedLine } from '../../../libs/platform/src/test-logger';
import { signToken } from '../src/auth/tokens';
import type { ChatRelay, SayOutcome } from '../src/chat/chat-relay';
import { IntentService } from '../src/intents/intent.service';
import type { LobbyHub } from '../src/lobby/lobby-hub';
import { GatewayMetrics } from '../src/metrics';
import { TableReader } from '../src/tables/table-reader';
import type { Connection } from '../src/ws/connection';
import { PlayerSockets } from '../src/ws/player-sockets';
import { SeatRouter } from '../src/ws/seat-router';
import { SocketHub } from '../src/ws/socket-hub';
import {
  FakeTableService,
  REDIS_URL,
  SHARDS,
  TEST_SECRET,
  testConfig,
  uniquePrefix,
  viewFor,
  waitFor,
} from './support';
import { RedisConnections, SOCKET_STATE, TestClock } from './unit-fakes';

/**
 * A `ws` socket as the hub sees it: an EventEmitter with ws's calls. `close` finishes the close
 * handshake on the next turn (a `close` event with that code) unless `answersClose` is false;
 * `terminate` cuts it (a `close` event with 1006).
 */
export class HubSocket extends EventEmitter {
  readonly CONNECTING = SOCKET_STATE.CONNECTING;
  readonly OPEN = SOCKET_STATE.OPEN;
  readyState: number = SOCKET_STATE.OPEN;
  answersClose = true;
  /** How many of the next reads of `bufferedAmount` (before each send, pong, ping) throw. */
  failing = 0;
  get bufferedAmount(): number {
    if (this.failing > 0) {
      this.failing -= 1;
      throw new Error('the socket went away');
    }
    return 0;
  }
  readonly sent: string[] = [];
  readonly pongs: Buffer[] = [];
  pings = 0;
  readonly closes: { code: number; reason: string }[] = [];
  terminated = 0;

  send(text: string): void {
    this.sent.push(text);
  }
  pong(data: Buffer): void {
    this.pongs.push(data);
  }
  ping(): void {
    this.pings += 1;
  }
  close(code: number, reason: string): void {
    this.closes.push({ code, reason });
    this.readyState = SOCKET_STATE.CLOSING;
    if (this.answersClose) setImmediate(() => this.closed(code));
  }
  terminate(): void {
    this.terminated += 1;
    setImmediate(() => this.closed(1006));
  }
  /** The close event, once (ws emits it once). */
  closed(code: number): void {
    if (this.readyState === SOCKET_STATE.CLOSED) return;
    this.readyState = SOCKET_STATE.CLOSED;
    this.emit('close', code);
  }

  /** A text frame from the client (an object is sent as its JSON). */
  text(frame: unknown): void {
    const text = typeof frame === 'string' ? frame : JSON.stringify(frame);
    this.emit('message', Buffer.from(text, 'utf8'), false);
  }
  /** Raw data as ws hands it (a Buffer, an ArrayBuffer, or fragments), text or binary. */
  raw(data: WebSocket.RawData, isBinary: boolean): void {
    this.emit('message', data, isBinary);
  }
  /** The frames sent, parsed. */
  frames(): Record<string, unknown>[] {
    return this.sent.map((text) => JSON.parse(text) as Record<string, unknown>);
  }
  /** The frames of one type. */
  framesOf(type: string): Record<string, unknown>[] {
    return this.frames().filter((f) => f['type'] === type);
  }
  /** The last frame sent. */
  last(): Record<string, unknown> | undefined {
    return this.frames().at(-1);
  }
}

/** A recording chat relay: `say` answers `outcome` (or throws `sayFails`); follow/unfollow are listed. */
export class FakeChat {
  readonly said: { conn: string; frame: TalkMessage }[] = [];
  readonly calls: string[] = [];
  outcome: SayOutcome | (() => Promise<SayOutcome>) = {
    ok: true,
    message: { id: 'm1', tableId: 'T', seat: 0, name: 'x', kind: 'text', text: 'hi', at: 0 } as never,
  };
  say(conn: Connection, frame: TalkMessage): Promise<SayOutcome> {
    this.said.push({ conn: conn.id, frame });
    const outcome = this.outcome;
    return typeof outcome === 'function' ? outcome() : Promise.resolve(outcome);
  }
  follow(conn: Connection, tableId: string): Promise<void> {
    this.calls.push(`follow ${conn.id} ${tableId}`);
    return Promise.resolve();
  }
  unfollow(conn: Connection, only?: string): void {
    this.calls.push(`unfollow ${conn.id}${only === undefined ? '' : ` ${only}`}`);
  }
}

/** A recording lobby: `subscribe` and `quickPlay` answer what the test sets. */
export class FakeLobby {
  readonly calls: string[] = [];
  subscribeResult: () => Promise<void> = () => Promise.resolve();
  quickPlayResult: () => Promise<string | null> = () => Promise.resolve(null);
  subscribe(conn: Connection, id: string, on: boolean): Promise<void> {
    this.calls.push(`subscribe ${conn.id} ${id} ${on}`);
    return this.subscribeResult();
  }
  quickPlay(conn: Connection, message: { id: string }): Promise<string | null> {
    this.calls.push(`quickPlay ${conn.id} ${message.id}`);
    return this.quickPlayResult();
  }
  drop(conn: Connection): void {
    this.calls.push(`drop ${conn.id}`);
  }
}

export type Responder = (envelope: IntentEnvelope) => IntentReply | null;

/** The suite's shared Redis: a prefix, its intent client, the stand-in table-service, the connections. */
export interface HubSuite {
  readonly prefix: string;
  readonly tableService: FakeTableService;
  readonly client: ShardedStreamsClient;
  readonly tables: TableReader;
  readonly redis: RedisConnections;
  /** The hubs the tests made, drained after each test. */
  readonly rigs: { readonly hub: SocketHub; readonly sockets: HubSocket[] }[];
  /** The drains drainRigs started, awaited in stopHubSuite. */
  readonly draining: Promise<void>[];
}

/** Starts the suite's stand-in table-service and intent client (beforeAll); `stopHubSuite` ends them. */
export async function startHubSuite(label: string): Promise<HubSuite> {
  const prefix = uniquePrefix(label);
  const tableService = new FakeTableService(prefix, REDIS_URL, SHARDS);
  await tableService.start();
  const client = new ShardedStreamsClient({
    redisUrl: REDIS_URL,
    prefix,
    shards: SHARDS,
    replyChannel: `${prefix}:{gateway:hub}:replies`,
    replyTimeoutMs: 2_000,
    connectionName: 'socket-hub-test',
  });
  await client.connect();
  const tables = new TableReader(
    readBaseConfig({
      DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
    }).shardMap,
  );
  return { prefix, tableService, client, tables, redis: new RedisConnections(), rigs: [], draining: [] };
}

/**
 * Drains every hub the tests left open (afterEach): its heartbeat stops at once; the rest of the
 * drain (up to 2 s when a socket never closes, as when a close handler is broken) is awaited in
 * afterAll only, not after each test.
 */
export function drainRigs(suite: HubSuite): void {
  for (const rig of suite.rigs.splice(0)) {
    // Sockets left half-closed by a test finish their close first: drain would wait 2 s for them.
    for (const socket of rig.sockets) socket.closed(1000);
    suite.draining.push(rig.hub.drain(0).catch(() => undefined));
  }
}

export async function stopHubSuite(suite: HubSuite | undefined): Promise<void> {
  if (!suite) return;
  drainRigs(suite);
  await Promise.all(suite.draining);
  await suite.client.close().catch(() => undefined);
  await suite.tableService.stop();
  await suite.tables.close();
  await suite.redis.closeAll();
}

/**
 * A suite's hooks in one call: starts the suite beforeAll (after `around.start`), drains its rigs
 * afterEach, stops it afterAll (then `around.stop`). The suite returned is filled in by beforeAll.
 */
export function hubSuite(
  label: string,
  around: { start?: () => void; stop?: () => Promise<void> } = {},
): HubSuite {
  const suite = {} as HubSuite;
  beforeAll(async () => {
    around.start?.();
    Object.assign(suite, await startHubSuite(label));
  });
  afterEach(() => drainRigs(suite));
  afterAll(async () => {
    await stopHubSuite('client' in suite ? suite : undefined);
    await around.stop?.();
  });
  return suite;
}

export const ANN = { id: '00000000-0000-4000-8000-0000000000a1', name: 'Ann' };
export const BOB = { id: '00000000-0000-4000-8000-0000000000b2', name: 'Bob' };

export interface RigOptions {
  env?: Record<string, string>;
  chat?: boolean;
  lobby?: boolean;
  everywhere?: boolean;
}

/**
 * One hub on the suite's Redis, with its own gateway id, clock, logger and metrics. Resolves once
 * its Redis connections are ready: a subscribe sent before ioredis's ready check puts the
 * connection in subscriber mode under that check, which fails, and the subscription is lost.
 */
export async function hubRig(suite: HubSuite, options: RigOptions = {}) {
  const config = testConfig(suite.prefix, {
    HELLO_TIMEOUT_MS: '60000',
    WS_PING_INTERVAL_MS: '600000',
    WS_PONG_TIMEOUT_MS: '600000',
    GATEWAY_ID: `gw-${uniquePrefix('h').slice(-8)}`,
    ...options.env,
  });
  const names = redisNames(suite.prefix, SHARDS);
  const clock = new TestClock(1_700_000_000_000);
  const metrics = new GatewayMetrics(false);
  const { logger, lines } = recordingLogger();
  const subscriber = suite.redis.open('socket-hub-test:sub');
  const router = new SeatRouter(subscriber, names, clock, metrics, logger);
  const intents = new IntentService(suite.client, metrics, logger, suite.tables);
  const commands = options.everywhere ? suite.redis.open('socket-hub-test:cmd') : null;
  await waitFor(
    () => subscriber.status === 'ready' && (commands === null || commands.status === 'ready'),
    1500,
    'the Redis connections ready',
  );
  const everywhere = commands
    ? new PlayerSockets(commands, router, names, config.gatewayId, config.maxSocketsPerPlayer, logger)
    : null;
  const chat = options.chat ? new FakeChat() : null;
  const lobby = options.lobby ? new FakeLobby() : null;
  const hub = new SocketHub(
    config,
    intents,
    router,
    clock,
    metrics,
    logger,
    everywhere,
    chat as unknown as ChatRelay | null,
  );
  if (lobby) hub.attachLobby(lobby as unknown as LobbyHub);

  /** Opens a socket on the hub, as the ws server's connection event does. */
  const sockets: HubSocket[] = [];
  const open = (request?: { remote?: string; forwarded?: string }): HubSocket => {
    const socket = new HubSocket();
    sockets.push(socket);
    const incoming = request
      ? ({
          socket: { remoteAddress: request.remote },
          headers: request.forwarded === undefined ? {} : { 'x-forwarded-for': request.forwarded },
        } as unknown as IncomingMessage)
      : undefined;
    hub.open(socket as unknown as WebSocket, incoming);
    return socket;
  };
  const token = (player = ANN, ttlSeconds?: number) =>
    signToken({ pid: player.id, name: player.name }, TEST_SECRET, clock.now(), ttlSeconds);
  /** A socket that said hello as `player` (its welcome came). */
  const authed = (player = ANN): HubSocket => {
    const socket = open();
    socket.text({ type: 'hello', token: token(player) });
    return socket;
  };
  /** The refused frames counted under `code`. */
  const refused = async (code: string) =>
    (await metrics.framesRefused.get()).values.find((v) => v.labels.code === code)?.value ?? 0;
  const openSockets = async () => (await metrics.openSockets.get()).values[0]?.value;
  const logged = (msg: string): LoggedLine[] => lines.filter((l) => l.msg === msg);
  const rig = {
    config,
    names,
    clock,
    metrics,
    lines,
    logged,
    subscriber,
    router,
    intents,
    everywhere,
    commands,
    chat,
    lobby,
    hub,
    sockets,
    open,
    token,
    authed,
    refused,
    openSockets,
  };
  suite.rigs.push(rig);
  return rig;
}

export type HubRig = Awaited<ReturnType<typeof hubRig>>;

/** The id of the rig's `n`th socket (ids count up from the hub's boot epoch). */
export const connId = (rig: HubRig, n: number) => `${rig.config.gatewayId}:${rig.hub.epoch + n}`;
/** ANN's view of `table` from `seat`, as the table-service's JSON. */
export const viewJson = (table: string, seat: number) => JSON.stringify(viewFor(table, seat, ANN.id));
/** A reply that accepted `e` at `version` for `seat`, with `view` when given. */
export const ok = (
  e: IntentEnvelope,
  version: number | null,
  seat: number | null,
  view?: string,
): IntentReply =>
  view === undefined
    ? { ok: true, intentId: e.intentId, version, seat }
    : { ok: true, intentId: e.intentId, version, seat, view };
/** The error frame a client gets for its frame `id`. */
export const errorFrame = (id: string | null, code: string, message: string) => ({
  type: 'error',
  id,
  code,
  message,
});
/** The error frame of a frame whose handling failed on the server. */
export const internalError = (id: string) =>
  errorFrame(id, 'INTERNAL', 'Something went wrong on the server.');

/**
 * The stand-in table-service's answers: `answer` by the intent (as the test says); `seating` seats
 * at `seat`, each sync answering the seat's view at `version`, anything else acked at `version`.
 */
export function answers(suite: HubSuite) {
  const answer = (by: Responder): void => {
    suite.tableService.respond = by;
  };
  const seating = (seat: number, version = 3): void =>
    answer((e) => ok(e, version, seat, e.intent.kind === 'sync' ? viewJson(e.tableId, seat) : undefined));
  return { answer, seating };
}

/** Publishes ANN's view of `table`'s `seat` at `version` as a seat event, as the table-service does. */
export function seatEvent(suite: HubSuite, table: string, seat: number, version: number): Promise<unknown> {
  return suite.tableService.publishSeatEvent(suite.prefix, {
    tableId: table,
    seat,
    version,
    view: viewFor(table, seat, ANN.id),
    cause: null,
  });
}

/** The envelopes the stand-in table-service received for `tableId`, once `count` of them came. */
export async function received(suite: HubSuite, tableId: string, count: number): Promise<IntentEnvelope[]> {
  return waitFor(
    () => {
      const got = suite.tableService.received.filter((e) => e.tableId === tableId);
      return got.length >= count ? got : null;
    },
    1500,
    `${count} intents for ${tableId}`,
  );
}

/** Waits until the socket has `count` frames. */
export function framesCount(socket: HubSocket, count: number, what = `${count} frames`): Promise<unknown> {
  return waitFor(() => socket.sent.length >= count, 1500, what);
}

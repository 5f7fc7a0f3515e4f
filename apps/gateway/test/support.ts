import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import {
  INTENT_FIELD,
  INTENT_GROUP,
  IntentEnvelopeSchema,
  redisNames,
  type IntentEnvelope,
  type IntentReply,
  encodeSeatEvent,
  type SeatEvent,
  type TableView,
} from '@dominoes/protocol';
import { Client } from 'pg';
import { createLogger, createRedis, readBaseConfig, type Redis, type ShardMap } from '@dominoes/platform';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { readGatewayConfig, type GatewayConfig } from '../src/config';
import { startGateway, type GatewayApp } from '../src/gateway-app';

/** REDIS_URL when set, else a local Redis. (Suites that need Postgres take it from createTestStores.) */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Only for suites that never query Postgres: the gateway's pool connects on first use. */
const UNUSED_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const TEST_SECRET = 'gateway-test-secret-0123456789abcdef';
export const SHARDS = 4;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor<T>(
  probe: () => T | undefined | null | false,
  timeoutMs = 3000,
  what = 'condition',
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Polls an async probe until it is true. */
export async function eventually(
  probe: () => Promise<boolean>,
  timeoutMs = 3000,
  what = 'condition',
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

export const uniquePrefix = (label: string) => `test_${label}_${randomBytes(4).toString('hex')}`;

export function testConfig(prefix: string, env: Record<string, string> = {}): GatewayConfig {
  return readGatewayConfig({
    REDIS_URL,
    DATABASE_URL: UNUSED_DATABASE_URL,
    REDIS_PREFIX: prefix,
    TABLE_SHARDS: String(SHARDS),
    PORT: '0',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_URL: 'http://dominoes.test',
    TOKEN_SECRET: TEST_SECRET,
    GATEWAY_ID: `gw-${prefix.slice(-8)}`,
    NODE_ENV: 'test',
    // The tests decide whether a web client exists (apps/web/dist may or may not be built).
    WEB_DIST: '/nonexistent/web-dist',
    ...env,
  });
}

export async function startTestGateway(config: GatewayConfig): Promise<GatewayApp> {
  return startGateway(config, {
    logger: createLogger('gateway-test', process.env.TEST_LOG_LEVEL ?? 'silent'),
    defaultMetrics: false,
  });
}

type Responder = (envelope: IntentEnvelope) => IntentReply | null;

/**
 * A stand-in for the OTHER service: reads the shard streams as the table-service's consumer group
 * does (XREADGROUP, group INTENT_GROUP) and publishes the reply `respond` returns on envelope.replyTo.
 */
export class FakeTableService {
  readonly received: IntentEnvelope[] = [];
  respond: Responder = (envelope) => ({ ok: true, intentId: envelope.intentId, version: 1, seat: null });
  private readonly reader: Redis;
  private readonly publisher: Redis;
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly streams: string[];

  constructor(prefix: string, redisUrl = REDIS_URL, shards = SHARDS) {
    const names = redisNames(prefix, shards);
    this.streams = Array.from({ length: shards }, (_, i) => names.intentStream(i));
    this.reader = createRedis(redisUrl, 'fake-table-service');
    this.publisher = createRedis(redisUrl, 'fake-table-service-pub');
  }

  async start(): Promise<void> {
    for (const stream of this.streams) {
      await this.reader.xgroup('CREATE', stream, INTENT_GROUP, '$', 'MKSTREAM').catch(() => undefined);
    }
    this.running = true;
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const result = (await this.reader.xreadgroup(
        'GROUP',
        INTENT_GROUP,
        'fake',
        'COUNT',
        100,
        'BLOCK',
        50,
        'STREAMS',
        ...this.streams,
        ...this.streams.map(() => '>'),
      )) as [string, [string, string[]][]][] | null;
      for (const [stream, entries] of result ?? []) {
        for (const [id, fields] of entries) {
          const envelope = IntentEnvelopeSchema.parse(JSON.parse(fields[fields.indexOf(INTENT_FIELD) + 1]!));
          this.received.push(envelope);
          const reply = this.respond(envelope);
          if (reply && envelope.replyTo)
            await this.publisher.publish(envelope.replyTo, JSON.stringify(reply));
          await this.reader.xack(stream, INTENT_GROUP, id);
        }
      }
    }
  }

  publishSeatEvent(prefix: string, event: SeatEvent): Promise<number> {
    return this.publisher.publish(
      redisNames(prefix, SHARDS).viewsChannel(event.tableId),
      encodeSeatEvent(event),
    );
  }

  publishRaw(channel: string, message: string): Promise<number> {
    return this.publisher.publish(channel, message);
  }

  numsub(channel: string): Promise<number> {
    return this.publisher.pubsub('NUMSUB', channel).then((r) => Number((r as unknown[])[1]));
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await this.publisher.del(...this.streams);
    await Promise.all([this.reader.quit(), this.publisher.quit()]);
  }
}

export function viewFor(
  tableId: string,
  seat: number,
  playerId: string,
  names: (string | null)[] = ['A', 'B', null, null],
): TableView {
  return {
    tableId,
    variant: 'partnership',
    seatCount: 4,
    target: 100,
    oneRound: false,
    status: 'waiting',
    hostSeat: 0,
    seats: names.map((name, s) => (name === null ? null : { seat: s, name, connected: true, side: s % 2 })),
    you: { seat, playerId, autoPass: false },
    matchNumber: 0,
    clock: null,
    game: null,
  };
}

/** A raw socket that records every frame it receives, for bad-input tests. */
export class RawSocket {
  readonly frames: Record<string, unknown>[] = [];
  readonly ws: WebSocket;
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  closeCode: number | null = null;

  constructor(url: string, options?: WebSocket.ClientOptions) {
    this.ws = new WebSocket(url, options);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => {
      this.ws.once('close', (code, reason) => {
        this.closeCode = code;
        resolve({ code, reason: reason.toString() });
      });
    });
    this.ws.on('error', () => undefined);
    this.ws.on('message', (data) => this.frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
  }

  static async open(url: string): Promise<RawSocket> {
    const socket = new RawSocket(url);
    await socket.opened;
    return socket;
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** The first frame (from `from` on) that satisfies the predicate. */
  async next(
    predicate: (frame: Record<string, unknown>) => boolean,
    timeoutMs = 3000,
    from = 0,
  ): Promise<Record<string, unknown>> {
    return waitFor(() => this.frames.slice(from).find(predicate), timeoutMs, 'a frame');
  }

  async hello(token: string): Promise<Record<string, unknown>> {
    const from = this.frames.length;
    this.send({ type: 'hello', token });
    return this.next((f) => f['type'] === 'welcome' || f['type'] === 'error', 3000, from);
  }

  close(): void {
    this.ws.close();
  }
}

export async function identity(
  baseUrl: string,
  name: string,
): Promise<{ token: string; playerId: string; name: string }> {
  const response = await fetch(`${baseUrl}/api/identity`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  return (await response.json()) as { token: string; playerId: string; name: string };
}

/** A suite's own migrated database (createTestStores), for the suites of the gateway's readers. */
export interface SuiteDatabase {
  /** The database and the suite's Redis prefix. */
  readonly stores: TestStores;
  /** A client on the database, connected, to write rows as the table-service writes them. */
  readonly pg: Client;
  /** The shard map of that one database (every shard on it), as the readers are given it. */
  readonly shardMap: ShardMap;
  /** Ends the client, then drops the stores. */
  close(): Promise<void>;
}

export async function suiteDatabase(name: string): Promise<SuiteDatabase> {
  const stores = await createTestStores(name);
  const pg = new Client({ connectionString: stores.databaseUrl });
  await pg.connect().catch(async (error: unknown) => {
    await stores.dispose();
    throw error;
  });
  const shardMap = readBaseConfig({ DATABASE_URL: stores.databaseUrl }).shardMap;
  return {
    stores,
    pg,
    shardMap,
    async close() {
      await pg.end();
      await stores.dispose();
    },
  };
}

import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  readBaseConfig,
  ShardedStreamsClient,
  shutdownTelemetry,
  startTelemetry,
  withSpan,
} from '@dominoes/platform';
import type { IntentEnvelope } from '@dominoes/protocol';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { IntentService } from '../src/intents/intent.service';
import { newTableCode } from '../src/lobby/table-opener';
import { GatewayMetrics } from '../src/metrics';
import { TableReader } from '../src/tables/table-reader';
import { FakeTableService, REDIS_URL, SHARDS } from './support';

/**
 * The intent service on the real sharded-streams client (real Redis streams and reply channel), a
 * stand-in table-service reading those streams (FakeTableService: it answers what the test says, or
 * nothing), and the table reader on a real Postgres database of this suite for the unanswered intent
 * asked of the log.
 */
let stores: TestStores;
let tables: TableReader;
let tableService: FakeTableService;
const clients: ShardedStreamsClient[] = [];
const PLAYER = '00000000-0000-4000-8000-0000000000aa';

beforeAll(async () => {
  stores = await createTestStores('intent_service');
  tables = new TableReader(readBaseConfig({ DATABASE_URL: stores.databaseUrl }).shardMap);
  tableService = new FakeTableService(stores.redisPrefix, REDIS_URL, SHARDS);
  await tableService.start();
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await tableService?.stop();
  await tables?.close();
  await stores?.dispose();
});

function serviceRig(options: { redisUrl?: string; reader?: TableReader; replyTimeoutMs?: number } = {}) {
  const client = new ShardedStreamsClient({
    redisUrl: options.redisUrl ?? REDIS_URL,
    prefix: stores.redisPrefix,
    shards: SHARDS,
    replyChannel: `${stores.redisPrefix}:{gateway:unit}:replies`,
    replyTimeoutMs: options.replyTimeoutMs ?? 2_000,
    connectionName: 'intent-service-test',
  });
  clients.push(client);
  const metrics = new GatewayMetrics(false);
  const { logger, lines } = recordingLogger();
  const service = new IntentService(client, metrics, logger, options.reader ?? tables);
  /** The intents counter's value for one type and outcome (0 when never counted). */
  const counted = async (type: string, outcome: string) =>
    (await metrics.intents.get()).values.find((v) => v.labels.type === type && v.labels.outcome === outcome)
      ?.value ?? 0;
  return { client, service, lines, counted };
}

function envelope(service: IntentService, over: Partial<IntentEnvelope> = {}): IntentEnvelope {
  const tableId = over.tableId ?? newTableCode();
  return {
    intentId: `${PLAYER}:i-${randomBytes(6).toString('hex')}`,
    tableId,
    player: { id: PLAYER, name: 'Pat' },
    connectionId: 'gw-unit:1',
    replyTo: service.replyChannel,
    sentAt: Date.now(),
    intent: { kind: 'join' },
    ...over,
  };
}

/** Writes table `tableId` with `intentId` in its log and PLAYER on seat 2, as the table-service stores them. */
async function storeIntent(tableId: string, intentId: string, version: number): Promise<void> {
  const { Client } = await import('pg');
  const db = new Client({ connectionString: stores.databaseUrl });
  await db.connect();
  try {
    await db.query(
      `insert into game_tables (id, variant, seat_count, target, one_round, host_player_id, status, version, state, is_public, chat, seats_present, created_at, updated_at)
       values ($1, 'draw', 4, 100, false, $2::uuid, 'waiting', $3, '{}'::json, false, true, 1, now(), now())`,
      [tableId, PLAYER, version],
    );
    await db.query('insert into table_seats (table_id, seat, player_id, name) values ($1, 2, $2::uuid, $3)', [
      tableId,
      PLAYER,
      'Pat',
    ]);
    await db.query(
      `insert into table_actions (table_id, seq, kind, seat, payload, intent_id) values ($1, 1, 'seat-taken', 2, '{}', $2)`,
      [tableId, intentId],
    );
  } finally {
    await db.end();
  }
}

describe('IntentService.request (real Redis streams)', () => {
  it("sends the intent on its table's stream and answers the table-service's reply, counted by type and outcome", async () => {
    const { service, counted } = serviceRig();
    await service.connect();
    tableService.respond = (e) => ({ ok: true, intentId: e.intentId, version: 7, seat: 1 });
    const sent = envelope(service);
    expect(await service.request(sent)).toEqual({
      ok: true,
      reply: { ok: true, intentId: sent.intentId, version: 7, seat: 1 },
    });
    expect(tableService.received.find((e) => e.intentId === sent.intentId)).toMatchObject({
      tableId: sent.tableId,
      intent: { kind: 'join' },
    });
    expect(await counted('join', 'ok')).toBe(1);
  });

  it("a refusal is the reply's code and message, counted under that code; an action is counted by its type", async () => {
    const { service, counted } = serviceRig();
    tableService.respond = (e) => ({
      ok: false,
      intentId: e.intentId,
      code: 'NOT_YOUR_TURN',
      message: 'Wait.',
    });
    const sent = envelope(service, { intent: { kind: 'action', action: { type: 'pass', seat: 0 } } });
    expect(await service.request(sent)).toEqual({ ok: false, code: 'NOT_YOUR_TURN', message: 'Wait.' });
    expect(await counted('pass', 'NOT_YOUR_TURN')).toBe(1);
  });

  it('no reply in time: the log in Postgres says it was applied (its version, the seat of its player): acknowledged', async () => {
    const { service, counted, lines } = serviceRig({ replyTimeoutMs: 300 });
    tableService.respond = () => null;
    const sent = envelope(service);
    await storeIntent(sent.tableId, sent.intentId, 12);
    expect(await service.request(sent)).toEqual({
      ok: true,
      reply: { ok: true, intentId: sent.intentId, version: 12, seat: 2 },
    });
    expect(await counted('join', 'timeout')).toBe(1);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [40, 'no reply from the table-service; asking Postgres'],
      [30, 'reply lost, but the intent is stored: acknowledged'],
    ]);
    expect(lines[0]).toMatchObject({ intentId: sent.intentId, tableId: sent.tableId, type: 'join' });
    expect(lines[1]).toMatchObject({ intentId: sent.intentId });
  });

  it('no reply in time and not in the log: UNAVAILABLE, not applied', async () => {
    const { service } = serviceRig({ replyTimeoutMs: 300 });
    tableService.respond = () => null;
    expect(await service.request(envelope(service))).toEqual({
      ok: false,
      code: 'UNAVAILABLE',
      message: 'The table service did not answer in time, and this was not applied; try again.',
    });
  });

  it('an intent with no player is looked up without one: the log alone decides, with no seat', async () => {
    const { service } = serviceRig({ replyTimeoutMs: 300 });
    tableService.respond = () => null;
    const sent = envelope(service, { player: null });
    await storeIntent(sent.tableId, sent.intentId, 3);
    expect(await service.request(sent)).toEqual({
      ok: true,
      reply: { ok: true, intentId: sent.intentId, version: 3, seat: null },
    });
  });

  it('no reply in time and Postgres cannot be asked: UNAVAILABLE, the outcome unknown, logged', async () => {
    const url = new URL(stores.databaseUrl);
    url.pathname = '/dominoes_test_no_such_database';
    const broken = new TableReader(readBaseConfig({ DATABASE_URL: url.toString() }).shardMap);
    try {
      const { service, lines } = serviceRig({ replyTimeoutMs: 300, reader: broken });
      tableService.respond = () => null;
      const sent = envelope(service);
      expect(await service.request(sent)).toEqual({
        ok: false,
        code: 'UNAVAILABLE',
        message:
          'The table service did not answer in time and the outcome could not be confirmed; the table will show whether it was made.',
      });
      expect(lines.at(-1)).toMatchObject({
        level: 50,
        msg: 'could not confirm an unanswered intent',
        intentId: sent.intentId,
      });
    } finally {
      await broken.close();
    }
  });

  it('an intent that cannot be sent at all is UNAVAILABLE, counted and logged as an error', async () => {
    const { service, counted, lines } = serviceRig();
    const bad = envelope(service, { intentId: '' });
    expect(await service.request(bad)).toEqual({
      ok: false,
      code: 'UNAVAILABLE',
      message: 'The table service cannot be reached; try again.',
    });
    expect(await counted('join', 'unavailable')).toBe(1);
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, msg: 'intent could not be sent', intentId: '', type: 'join' }),
    ]);
  });

  it('keeps the trace context an envelope already carries', async () => {
    const { service } = serviceRig();
    tableService.respond = (e) => ({ ok: true, intentId: e.intentId, version: 1, seat: null });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const sent = envelope(service, { traceparent });
    await service.request(sent);
    expect(tableService.received.find((e) => e.intentId === sent.intentId)?.traceparent).toBe(traceparent);
  });
});

describe('IntentService.dispatch and flush', () => {
  it('dispatch puts the intent on its stream without waiting for a reply, counted as sent', async () => {
    const { service, counted } = serviceRig();
    tableService.respond = () => null;
    const sent = envelope(service, { replyTo: null, intent: { kind: 'presence', connected: false } });
    await service.dispatch(sent);
    expect(await counted('presence', 'sent')).toBe(1);
    const end = Date.now() + 2_000;
    while (!tableService.received.some((e) => e.intentId === sent.intentId) && Date.now() < end)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(tableService.received.some((e) => e.intentId === sent.intentId)).toBe(true);
  });

  it('a dispatch that fails never rejects: counted unavailable and logged', async () => {
    const { service, counted, lines } = serviceRig();
    await expect(service.dispatch(envelope(service, { intentId: '' }))).resolves.toBeUndefined();
    expect(await counted('join', 'unavailable')).toBe(1);
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, msg: 'intent could not be sent', intentId: '', type: 'join' }),
    ]);
  });

  it('flush waits for the dispatches under way, and no longer than its timeout; with none, it returns at once', async () => {
    // A peer that accepts and never answers (Redis hung): a dispatch to it stays under way.
    const peers = new Set<Socket>();
    const silent: Server = createServer((socket) => peers.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const hanging = serviceRig({ redisUrl: `redis://127.0.0.1:${port}` });
    try {
      let started = Date.now();
      await hanging.service.flush(5_000);
      expect(Date.now() - started).toBeLessThan(50);
      void hanging.service.dispatch(envelope(hanging.service));
      started = Date.now();
      await hanging.service.flush(200);
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(190);
      expect(waited).toBeLessThan(2_000);
      const { service } = serviceRig();
      let done = false;
      void service.dispatch(envelope(service, { replyTo: null })).then(() => (done = true));
      await service.flush(5_000);
      expect(done).toBe(true);
    } finally {
      // Closed here, while its peer still holds the connection: left to afterAll, under load, its
      // connection was seen reconnecting to the closed port for good, keeping jest's process alive.
      await hanging.client.close();
      for (const peer of peers) peer.destroy();
      silent.close();
    }
  });
});

describe('IntentService: the client it wraps', () => {
  it('names its reply channel, pings Redis through the client, and closes it', async () => {
    const { service, client } = serviceRig();
    expect(service.replyChannel).toBe(client.replyChannel);
    expect(service.replyChannel).toBe(`${stores.redisPrefix}:{gateway:unit}:replies`);
    await service.connect();
    expect(await service.ping()).toBe(true);
    await service.close();
    expect(await service.ping()).toBe(false);
  });
});

describe('IntentService: its trace (an in-memory span exporter)', () => {
  const exporter = new InMemorySpanExporter();
  beforeAll(() => {
    startTelemetry('gateway', { spanProcessors: [new SimpleSpanProcessor(exporter)], instrument: false });
  });
  afterAll(() => shutdownTelemetry());

  /** Runs `fn` in a `ws.intent` span, as the socket hub does, and answers that span's attributes. */
  async function inSpan(fn: () => Promise<unknown>): Promise<Record<string, unknown>> {
    exporter.reset();
    await withSpan('ws.intent', async (span) => {
      await fn();
      span?.end();
    });
    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'ws.intent');
    expect(spans).toHaveLength(1);
    return { ...spans[0]!.attributes, traceId: spans[0]!.spanContext().traceId };
  }

  it("names the table, the intent and its outcome on the active span, and sends the span's trace context with the intent", async () => {
    const { service } = serviceRig();
    tableService.respond = (e) => ({ ok: true, intentId: e.intentId, version: 2, seat: 0 });
    const sent = envelope(service);
    const attributes = await inSpan(() => service.request(sent));
    expect(attributes).toMatchObject({
      'dominoes.table': sent.tableId,
      'dominoes.intent.id': sent.intentId,
      'dominoes.intent.outcome': 'ok',
    });
    const received = tableService.received.find((e) => e.intentId === sent.intentId);
    expect(received?.traceparent).toMatch(
      new RegExp(`^00-${String(attributes['traceId'])}-[0-9a-f]{16}-01$`),
    );
  });

  it('a refusal, a timeout and an intent that cannot be sent are the outcome on the span', async () => {
    const { service } = serviceRig({ replyTimeoutMs: 300 });
    tableService.respond = (e) => ({ ok: false, intentId: e.intentId, code: 'TABLE_FULL', message: 'Full.' });
    expect(await inSpan(() => service.request(envelope(service)))).toMatchObject({
      'dominoes.intent.outcome': 'TABLE_FULL',
    });
    tableService.respond = () => null;
    expect(await inSpan(() => service.request(envelope(service)))).toMatchObject({
      'dominoes.intent.outcome': 'timeout',
    });
    expect(await inSpan(() => service.request(envelope(service, { intentId: '' })))).toMatchObject({
      'dominoes.intent.outcome': 'unavailable',
    });
  });

  it('an envelope that carries a trace context already keeps it inside another span; a dispatch carries the active one', async () => {
    const { service } = serviceRig();
    tableService.respond = (e) => ({ ok: true, intentId: e.intentId, version: 1, seat: null });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const kept = envelope(service, { traceparent });
    await inSpan(() => service.request(kept));
    expect(tableService.received.find((e) => e.intentId === kept.intentId)?.traceparent).toBe(traceparent);
    const dispatched = envelope(service, { replyTo: null });
    const attributes = await inSpan(() => service.dispatch(dispatched));
    const end = Date.now() + 2_000;
    while (!tableService.received.some((e) => e.intentId === dispatched.intentId) && Date.now() < end)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const received = tableService.received.find((e) => e.intentId === dispatched.intentId);
    expect(received?.traceparent?.split('-')[1]).toBe(attributes['traceId']);
    expect(received).toMatchObject({ tableId: dispatched.tableId, intent: dispatched.intent });
  });
});

import { randomBytes } from 'node:crypto';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createRedis, shutdownTelemetry, SpanKind, startTelemetry, type Redis } from '@dominoes/platform';
import { INTENT_FIELD, INTENT_PATTERN, redisNames, type IntentEnvelope } from '@dominoes/protocol';
import type { ShardedStreamsServer } from '../src/transport/sharded-streams.server';
import { appliedReply, dropPrefix, quietTransport } from './support/shard-transport';
import { until } from './support/until';

/** The sender's span (the gateway's ws.intent, the timer's deadline.fire), as an envelope carries it. */
const SENDER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const SENDER_SPAN = 'b7ad6b7169203331';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('the shard transport traces each intent (real Redis, spans in memory)', () => {
  const exporter = new InMemorySpanExporter();
  const prefix = `test_streamspans_${randomBytes(4).toString('hex')}`;
  const names = redisNames(prefix, 2);
  let redis: Redis;
  let admin: Redis;
  let server: ShardedStreamsServer;
  const handled: string[] = [];

  beforeAll(async () => {
    startTelemetry('table-service', {
      spanProcessors: [new SimpleSpanProcessor(exporter)],
      instrument: false,
    });
    redis = createRedis(REDIS_URL, `${prefix}:table-service`);
    admin = createRedis(REDIS_URL, `${prefix}:admin`);
    server = quietTransport('streams-spans-test', {
      redis,
      names,
      shards: 2,
      replicaId: 'replica-spans',
      ttlMs: 5000,
    });
    server.addHandler(INTENT_PATTERN, async (e: IntentEnvelope) => {
      handled.push(e.intentId);
      return appliedReply(e);
    });
    server.listen(() => undefined);
    await until('both shards', () => server.ownedShards().size === 2);
  });

  afterAll(async () => {
    await server?.close();
    await dropPrefix(prefix, admin, redis);
    await shutdownTelemetry();
  });

  it("an intent is handled in a consumer span `table.intent <name>`, a child of the sender's, with its table, intent id and shard", async () => {
    const e: IntentEnvelope = {
      intentId: 'deadline:k1',
      tableId: 'SPANNED',
      player: null,
      connectionId: null,
      replyTo: null,
      sentAt: Date.now(),
      traceparent: `00-${SENDER_TRACE}-${SENDER_SPAN}-01`,
      intent: { kind: 'deadline', key: 'k1', dueAt: Date.now() },
    };
    await admin.xadd(names.intentStream(1), '*', INTENT_FIELD, JSON.stringify(e));
    await until('handled', () => handled.includes(e.intentId));
    await until('the span ended', () =>
      exporter.getFinishedSpans().some((s) => s.name.startsWith('table.intent')),
    );
    const spans = exporter.getFinishedSpans().filter((s) => s.name.startsWith('table.intent'));
    expect(spans).toHaveLength(1);
    const span = spans[0]!;
    expect(span.name).toBe('table.intent deadline');
    expect(span.kind).toBe(SpanKind.CONSUMER);
    expect(span.spanContext().traceId).toBe(SENDER_TRACE);
    expect(span.parentSpanContext?.spanId).toBe(SENDER_SPAN);
    expect(span.attributes).toEqual({
      'dominoes.table': 'SPANNED',
      'dominoes.intent.id': 'deadline:k1',
      'dominoes.shard': 1,
    });
  });
});

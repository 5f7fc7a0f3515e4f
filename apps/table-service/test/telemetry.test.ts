import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  createLogger,
  createPrisma,
  createRedis,
  shutdownTelemetry,
  startTelemetry,
  systemClock,
  withRemoteParent,
  type PrismaClient,
  type Redis,
} from '@dominoes/platform';
import {
  redisNames,
  SeatEventReader,
  type IntentEnvelope,
  type SeatEvent,
  type TableIntent,
} from '@dominoes/protocol';
import { RULE_DURATIONS } from '@dominoes/rules';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { TableEngine, type DeadlineScheduler } from '../src/table/table-engine';
import { RedisSeatPublisher } from '../src/table/seat-publisher';
import { TableStore } from '../src/table/table-store';

/** The gateway's ws.intent span, as an envelope carries it. */
const GATEWAY_TRACE = '0af7651916cd43dd8448eb211c80319c';
const GATEWAY_SPAN = 'b7ad6b7169203331';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor(exporter);

describe('table-service tracing: the views and the deadline an intent causes carry its span', () => {
  let stores: TestStores;
  let prisma: PrismaClient;
  let redis: Redis;
  let subscriber: Redis;
  const events: SeatEvent[] = [];
  const scheduled: (string | undefined)[] = [];
  const deadlines: DeadlineScheduler = {
    schedule: async (_t, _d, traceparent) => void scheduled.push(traceparent),
  };
  let n = 0;
  const intent = (player: number, body: TableIntent, traceparent?: string): IntentEnvelope => ({
    intentId: `t${++n}`,
    tableId: 'TRACED',
    player: { id: `00000000-0000-4000-8000-00000000000${player}`, name: `P${player}` },
    connectionId: `c${player}`,
    replyTo: null,
    sentAt: Date.now(),
    ...(traceparent ? { traceparent } : {}),
    intent: body,
  });

  beforeAll(async () => {
    startTelemetry('table-service', {
      spanProcessors: [new SimpleSpanProcessor(exporter)],
      instrument: false,
    });
    stores = await createTestStores('telemetry');
    prisma = createPrisma(stores.databaseUrl, 2);
    redis = createRedis(stores.redisUrl, 'telemetry-test');
    subscriber = createRedis(stores.redisUrl, 'telemetry-test-views');
    const reader = new SeatEventReader();
    subscriber.on('message', (_c: string, message: string) => events.push(...reader.readAll(message)));
    await subscriber.subscribe(redisNames(stores.redisPrefix).viewsChannel('TRACED'));
  });
  afterAll(async () => {
    subscriber?.disconnect();
    redis?.disconnect();
    await prisma?.$disconnect();
    await stores?.dispose();
    await shutdownTelemetry();
  });

  it('the 4th join under the gateway span: seat events and the first turn deadline carry table.intent join', async () => {
    const engine = new TableEngine({
      store: new TableStore(prisma),
      publisher: new RedisSeatPublisher(redis, redisNames(stores.redisPrefix)),
      clock: systemClock,
      durations: RULE_DURATIONS,
      deadlines,
      logger: createLogger('test', 'silent'),
    });
    await engine.handle(intent(0, { kind: 'create', config: { variant: 'partnership' } }));
    for (const p of [1, 2]) await engine.handle(intent(p, { kind: 'join' }));
    exporter.reset();

    const envelope = intent(3, { kind: 'join' }, `00-${GATEWAY_TRACE}-${GATEWAY_SPAN}-01`);
    const reply = await withRemoteParent(envelope.traceparent, 'table.intent join', () =>
      engine.handle(envelope),
    );
    expect(reply).toMatchObject({ ok: true, seat: 3 });

    await processor.forceFlush();
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe('table.intent join');
    expect(span!.spanContext().traceId).toBe(GATEWAY_TRACE);
    expect(span!.parentSpanContext?.spanId).toBe(GATEWAY_SPAN);
    expect(span!.attributes['dominoes.intent.outcome']).toBe('applied');
    const own = `00-${GATEWAY_TRACE}-${span!.spanContext().spanId}-01`;
    // The match started: a deadline was set, by this change, and carries its span.
    expect(scheduled.at(-1)).toBe(own);
    const version = (reply as { version: number }).version;
    const made = () => events.filter((e) => e.version === version);
    for (let i = 0; i < 50 && made().length < 4; i++) await new Promise((r) => setTimeout(r, 20));
    expect(
      made()
        .map((e) => e.seat)
        .sort(),
    ).toEqual([0, 1, 2, 3]);
    for (const event of made()) expect(event.traceparent).toBe(own);
  });
});

import {
  createLogger,
  createPrisma,
  createRedis,
  systemClock,
  type PrismaClient,
  type Redis,
} from '@dominoes/platform';
import { redisNames, type IntentEnvelope, type TableIntent } from '@dominoes/protocol';
import { RULE_DURATIONS } from '@dominoes/rules';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { TableEngine, type DeadlineScheduler } from '../src/table/table-engine';
import { TableStore } from '../src/table/table-store';

describe('table engine on real Postgres and Redis', () => {
  let stores: TestStores;
  let prisma: PrismaClient;
  let redis: Redis;
  const scheduled: string[] = [];
  const deadlines: DeadlineScheduler = {
    schedule: async (tableId, d) => void scheduled.push(`${tableId}:${d.key}`),
  };
  const engine = () =>
    new TableEngine({
      store: new TableStore(prisma),
      publisher: redis,
      names: redisNames(stores.redisPrefix),
      clock: systemClock,
      durations: RULE_DURATIONS,
      deadlines,
      logger: createLogger('test', 'silent'),
    });
  let n = 0;
  const intent = (player: number, body: TableIntent): IntentEnvelope => ({
    intentId: `e${++n}`,
    tableId: 'ENGINE',
    player: { id: `00000000-0000-4000-8000-00000000000${player}`, name: `P${player}` },
    connectionId: `c${player}`,
    replyTo: null,
    sentAt: Date.now(),
    intent: body,
  });

  beforeAll(async () => {
    stores = await createTestStores('engine');
    prisma = createPrisma(stores.databaseUrl, 2);
    redis = createRedis(stores.redisUrl, 'engine-test');
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    redis?.disconnect();
    await stores?.dispose();
  });

  it('two replicas with copies of one table: the one with a stale copy is fenced, reloads, and applies on top; nothing is lost or applied twice', async () => {
    const a = engine();
    const b = engine();
    expect(await a.handle(intent(0, { kind: 'create', config: { variant: 'partnership' } }))).toMatchObject({
      ok: true,
      seat: 0,
    });
    // B reads the table now; A then changes it behind B's back.
    expect((await b.load('ENGINE'))?.version).toBe(2);
    expect(await a.handle(intent(1, { kind: 'join' }))).toMatchObject({ ok: true, seat: 1 });
    const fromB = await b.handle(intent(2, { kind: 'join' }));
    expect(fromB).toMatchObject({ ok: true, seat: 2 });
    const rows = await prisma.tableAction.findMany({ where: { tableId: 'ENGINE' }, orderBy: { seq: 'asc' } });
    expect(rows.map((r) => Number(r.seq))).toEqual(rows.map((_, i) => i + 1));
    expect(rows.filter((r) => r.kind === 'seat-taken').map((r) => r.seat)).toEqual([0, 1, 2]);
    // A repeated intent id is answered without a second write.
    const repeat = intent(2, { kind: 'join' });
    const first = await b.handle(repeat);
    const again = await b.handle({ ...repeat });
    expect(again).toMatchObject({ ok: true, version: (first as { version: number }).version });
  });

  it('the 4th arrival starts the match and the first turn deadline is handed to the timer', async () => {
    const a = engine();
    const started = await a.handle(intent(3, { kind: 'join' }));
    expect(started).toMatchObject({ ok: true, seat: 3 });
    const table = await a.load('ENGINE');
    expect(table?.status).toBe('playing');
    expect(scheduled).toContain(`ENGINE:${table!.deadline!.key}`);
  });
});

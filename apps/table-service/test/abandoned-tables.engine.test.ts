import {
  createLogger,
  createPrisma,
  createRedis,
  type Clock,
  type PrismaClient,
  type Redis,
} from '@dominoes/platform';
import { redisNames, type IntentEnvelope, type TableIntent } from '@dominoes/protocol';
import { RULE_DURATIONS } from '@dominoes/rules';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { TableEngine, type DeadlineScheduler } from '../src/table/table-engine';
import { DEFAULT_TABLE_LIMITS } from '../src/table/table-policy';
import type { Deadline } from '../src/table/table-state';
import { RedisSeatPublisher } from '../src/table/seat-publisher';
import { TableStore } from '../src/table/table-store';

// Issue 12 / decision 0017, on real Postgres and Redis: an abandoned match's rows, and memory.
describe('abandoned tables on real Postgres and Redis', () => {
  let stores: TestStores;
  let prisma: PrismaClient;
  let redis: Redis;
  let now = 1_800_000_000_000;
  const clock: Clock = { now: () => now } as Clock;
  const scheduled: Deadline[] = [];
  const deadlines: DeadlineScheduler = { schedule: async (_id, d) => void scheduled.push(d) };
  const ABANDON_MS = 120_000;
  let engine: TableEngine;
  let n = 0;
  const player = (p: number) => ({ id: `00000000-0000-4000-8000-00000000001${p}`, name: `P${p}` });
  const intent = (
    tableId: string,
    p: number | null,
    body: TableIntent,
    conn: string | null = null,
  ): IntentEnvelope => ({
    intentId: `ab${++n}`,
    tableId,
    player: p === null ? null : player(p),
    connectionId: conn,
    replyTo: null,
    sentAt: now,
    intent: body,
  });
  const playing = async (tableId: string) => {
    await engine.handle(
      intent(tableId, 0, { kind: 'create', config: { variant: 'partnership' } }, `${tableId}-c0`),
    );
    for (const p of [1, 2, 3]) await engine.handle(intent(tableId, p, { kind: 'join' }, `${tableId}-c${p}`));
    expect((await engine.load(tableId))?.status).toBe('playing');
  };
  const closeAll = async (tableId: string) => {
    for (const p of [0, 1, 2, 3])
      expect(
        await engine.handle(intent(tableId, p, { kind: 'presence', connected: false }, `${tableId}-c${p}`)),
      ).toMatchObject({ ok: true });
  };
  const matchRow = async (tableId: string) =>
    (
      await prisma.$queryRawUnsafe<
        { winner_side: number | null; finished_at: Date | null; abandoned_at: Date | null; scores: unknown }[]
      >('SELECT winner_side, finished_at, abandoned_at, scores FROM matches WHERE table_id = $1', tableId)
    )[0];

  beforeAll(async () => {
    stores = await createTestStores('abandon');
    prisma = createPrisma(stores.databaseUrl, 2);
    redis = createRedis(stores.redisUrl, 'abandon-test');
    engine = new TableEngine({
      store: new TableStore(prisma),
      publisher: new RedisSeatPublisher(redis, redisNames(stores.redisPrefix)),
      clock,
      durations: RULE_DURATIONS,
      deadlines,
      logger: createLogger('test', 'silent'),
      limits: { ...DEFAULT_TABLE_LIMITS, abandonedTableMs: ABANDON_MS },
    });
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    redis?.disconnect();
    await stores?.dispose();
  });

  it('no seat connected for ABANDONED_TABLE_MS: the match row says abandoned, no winner; the table is closed and leaves memory', async () => {
    await playing('ABAND1');
    now += 1000;
    await closeAll('ABAND1');
    const waiting = await engine.load('ABAND1');
    expect(waiting?.deadline).toMatchObject({ kind: 'abandon', at: now + ABANDON_MS });
    // The table's job was a turn's (cut to 5 s by P17 if the seat at turn left before the last one),
    // due before the abandonment (decision 0032).
    await engine.deadlinesSet();
    const abandonAt = waiting!.deadline!.at;
    const last = scheduled.at(-1)!;
    if (last.kind === 'turn') {
      // Not about to come due (more than a third of the abandonment's time away): left as it was, and
      // its firing, out of date, changes nothing and makes the abandonment the table's job.
      expect(last.at).toBeLessThan(abandonAt);
      expect((last.at - now) * 3).toBeGreaterThan(abandonAt - now);
      now = last.at;
      expect(
        await engine.handle(intent('ABAND1', null, { kind: 'deadline', key: last.key, dueAt: last.at })),
      ).toMatchObject({ ok: true });
      await engine.deadlinesSet();
    } else {
      // About to come due (the 5 s one): moved to the abandonment at once (decision 0039).
      const turnJob = scheduled.at(-2)!;
      expect(turnJob).toMatchObject({ kind: 'turn' });
      expect((turnJob.at - now) * 3).toBeLessThanOrEqual(abandonAt - now);
    }
    expect(scheduled.at(-1)).toEqual(waiting!.deadline);
    expect((await engine.load('ABAND1'))?.version).toBe(waiting!.version);
    const cachedBefore = [...engine.cachedTables()].length;
    expect(engine.cachedTable('ABAND1')).toBeDefined();

    now = waiting!.deadline!.at;
    expect(
      await engine.handle(
        intent('ABAND1', null, { kind: 'deadline', key: waiting!.deadline!.key, dueAt: 0 }),
      ),
    ).toMatchObject({
      ok: true,
    });
    expect(engine.cachedTable('ABAND1')).toBeUndefined();
    expect([...engine.cachedTables()].length).toBe(cachedBefore - 1);

    const row = await prisma.gameTable.findUnique({ where: { id: 'ABAND1' } });
    expect(row?.status).toBe('closed');
    expect(row?.deadlineAt).toBeNull();
    const match = await matchRow('ABAND1');
    expect(match).toMatchObject({ winner_side: null, finished_at: null, scores: [0, 0] });
    expect(match?.abandoned_at).toBeInstanceOf(Date);
    const log = await prisma.tableAction.findMany({ where: { tableId: 'ABAND1' }, orderBy: { seq: 'asc' } });
    expect(log.slice(-2).map((r) => r.kind)).toEqual(['match-abandoned', 'table-closed']);
    expect(log.at(-1)?.payload).toMatchObject({ reason: 'abandoned' });
    // The log stays append-only.
    await expect(
      prisma.$executeRawUnsafe("DELETE FROM table_actions WHERE table_id = 'ABAND1'"),
    ).rejects.toThrow();
    // A late reader gets it from Postgres, closed, and it is not kept.
    expect(await engine.handle(intent('ABAND1', 2, { kind: 'join' }, 'late'))).toMatchObject({
      ok: false,
      code: 'TABLE_CLOSED',
    });
    expect(engine.cachedTable('ABAND1')).toBeUndefined();
  });

  it('a seat back in time: the abandonment is out of date and the match goes on', async () => {
    await playing('ABAND2');
    now += 1000;
    await closeAll('ABAND2');
    const key = (await engine.load('ABAND2'))!.deadline!.key;
    now += 30_000;
    await engine.handle(intent('ABAND2', 1, { kind: 'join' }, 'ABAND2-back'));
    expect((await engine.load('ABAND2'))?.deadline?.kind).toBe('turn');
    now += ABANDON_MS;
    await engine.handle(intent('ABAND2', null, { kind: 'deadline', key, dueAt: 0 }));
    const table = await engine.load('ABAND2');
    expect(table?.status).toBe('playing');
    expect(await matchRow('ABAND2')).toMatchObject({ abandoned_at: null, finished_at: null });
  });
});

import {
  createDeadlineQueue,
  DeadlineQueues,
  createLogger,
  createPrisma,
  createRedis,
  systemClock,
  type Clock,
  type PrismaClient,
  type Redis,
} from '@dominoes/platform';
import {
  SeatEventReader,
  redisNames,
  shardOf,
  type IntentEnvelope,
  type TableIntent,
  type TableView,
} from '@dominoes/protocol';
import { RULE_DURATIONS } from '@dominoes/rules';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { DeadlineKeeper } from '../src/deadlines/deadline-keeper';
import { TableEngine, type DeadlineScheduler } from '../src/table/table-engine';
import type { TableLimits } from '../src/table/table-policy';
import { CONNECTIONS_KEPT_PER_SEAT } from '../src/table/table-state';
import { tableView } from '../src/table/table-views';
import { RedisSeatPublisher } from '../src/table/seat-publisher';
import { TableStore } from '../src/table/table-store';

describe('table engine on real Postgres and Redis', () => {
  let stores: TestStores;
  let prisma: PrismaClient;
  let redis: Redis;
  const scheduled: string[] = [];
  const deadlines: DeadlineScheduler = {
    schedule: async (tableId, d) => void scheduled.push(`${tableId}:${d.key}`),
  };
  const engine = (clock: Clock = systemClock, limits?: TableLimits) =>
    new TableEngine({
      store: new TableStore(prisma),
      publisher: new RedisSeatPublisher(redis, redisNames(stores.redisPrefix)),
      clock,
      durations: RULE_DURATIONS,
      deadlines,
      logger: createLogger('test', 'silent'),
      ...(limits ? { limits } : {}),
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

  describe('abuse limits', () => {
    const TTL_MS = 60_000;
    let at = 1_800_000_000_000;
    const clock: Clock = { now: () => at };
    const limits: TableLimits = {
      maxOpenTablesPerHost: 2,
      waitingTableTtlMs: TTL_MS,
      abandonedTableMs: 120_000,
    };
    const player = (i: number) => ({
      id: `00000000-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`,
      name: `Q${i}`,
    });
    const on = (tableId: string, i: number | null, body: TableIntent, connectionId: string | null = null) =>
      ({
        intentId: `a${++n}`,
        tableId,
        player: i === null ? null : player(i),
        connectionId,
        replyTo: null,
        sentAt: at,
        intent: body,
      }) satisfies IntentEnvelope;
    const create = (tableId: string, host: number) =>
      on(tableId, host, { kind: 'create', config: { variant: 'partnership' } });
    const deadline = (tableId: string, key: string): IntentEnvelope => ({
      ...on(tableId, null, { kind: 'deadline', key, dueAt: at }),
      intentId: `deadline:${key}`,
    });

    it("a waiting table that nobody fills expires by its own deadline: a table-closed event in the log, every seated view says closed, it leaves the engine's memory, joins get TABLE_CLOSED, and it no longer counts toward its host's open tables", async () => {
      const e = engine(clock, limits);
      expect(await e.handle(create('EXPIR1', 1))).toMatchObject({ ok: true });
      // The expiry is handed to the timer as the table's deadline job when the table opens.
      expect(scheduled).toContain('EXPIR1:2');
      expect((await e.load('EXPIR1'))!.deadline).toMatchObject({ kind: 'expire', at: at + TTL_MS });
      expect(await e.handle(on('EXPIR1', 2, { kind: 'join' }, 'gw:1'))).toMatchObject({ ok: true, seat: 1 });
      expect(await e.handle(create('EXPIR2', 1))).toMatchObject({ ok: true });
      expect(await e.handle(create('EXPIR3', 1))).toMatchObject({ ok: false, code: 'TOO_MANY_TABLES' });

      const subscriber = createRedis(stores.redisUrl, 'engine-test-sub');
      const views = new Map<number, TableView>();
      const names = redisNames(stores.redisPrefix);
      // What a gateway's socket of each seat holds now: the closing change applies to it.
      const reader = new SeatEventReader();
      const joined = (await e.load('EXPIR1'))!;
      for (const seat of [0, 1])
        reader.hold({ tableId: 'EXPIR1', seat, version: joined.version, view: tableView(joined, seat) });
      subscriber.on('message', (_channel: string, message: string) => {
        for (const event of reader.readAll(message, [0, 1])) views.set(event.seat, event.view);
      });
      await subscriber.subscribe(names.viewsChannel('EXPIR1'));
      try {
        at += TTL_MS;
        expect(await e.handle(deadline('EXPIR1', '2'))).toMatchObject({ ok: true });
        await new Promise((r) => setTimeout(r, 200));
        expect(views.get(0)?.status).toBe('closed');
        expect(views.get(1)?.status).toBe('closed');
        expect(views.get(1)?.clock).toBeNull();
      } finally {
        subscriber.disconnect();
      }
      const last = await prisma.tableAction.findFirst({
        where: { tableId: 'EXPIR1' },
        orderBy: { seq: 'desc' },
      });
      expect(last).toMatchObject({ kind: 'table-closed', intentId: 'deadline:2' });
      expect(last!.payload).toEqual({ reason: 'expired', at });
      const row = await prisma.gameTable.findUnique({ where: { id: 'EXPIR1' } });
      expect(row).toMatchObject({ status: 'closed', deadlineAt: null });
      const cached = () => [...e.cachedTables()].map((t) => t.id);
      expect(cached()).not.toContain('EXPIR1');

      expect(await e.handle(on('EXPIR1', 3, { kind: 'join' }, 'gw:2'))).toMatchObject({
        ok: false,
        code: 'TABLE_CLOSED',
      });
      expect(await e.handle(on('EXPIR1', 2, { kind: 'join' }, 'gw:3'))).toMatchObject({
        ok: false,
        code: 'TABLE_CLOSED',
      });
      // Reading it (a seated player's sync) does not bring it back into memory.
      expect(await e.handle(on('EXPIR1', 2, { kind: 'sync' }))).toMatchObject({ ok: true, seat: 1 });
      expect(cached()).not.toContain('EXPIR1');
      // The host's closed table no longer counts: one more may open, and then no more.
      expect(await e.handle(create('EXPIR3', 1))).toMatchObject({ ok: true });
      expect(await e.handle(create('EXPIR4', 1))).toMatchObject({ ok: false, code: 'TOO_MANY_TABLES' });
    });

    it("a replica that takes the shard (a restart) rebuilds the waiting table's expiry job from Postgres", async () => {
      const e = engine(clock, limits);
      expect(await e.handle(create('REBLD1', 4))).toMatchObject({ ok: true });
      const expiry = (await e.load('REBLD1'))!.deadline!;
      // A new replica, nothing in memory, on a real BullMQ queue whose job for the table was lost.
      const queue = createDeadlineQueue(stores.redisUrl, stores.redisPrefix);
      const fresh = engine(clock, limits);
      const keeper = new DeadlineKeeper(
        new DeadlineQueues([queue], 16),
        16,
        new TableStore(prisma),
        fresh,
        clock,
        createLogger('test', 'silent'),
        2000,
      );
      try {
        expect(await queue.getDeduplicationJobId('REBLD1')).toBeFalsy();
        keeper.shardAcquired(shardOf('REBLD1', 16));
        let jobId: string | null | undefined = null;
        for (let i = 0; i < 50 && !jobId; i++) {
          await new Promise((r) => setTimeout(r, 100));
          jobId = await queue.getDeduplicationJobId('REBLD1');
        }
        const job = await queue.getJob(jobId!);
        expect(job?.data).toMatchObject({ tableId: 'REBLD1', key: expiry.key, dueAt: expiry.at });
      } finally {
        keeper.stop();
        await queue.obliterate({ force: true });
        await queue.close();
      }
    });

    it("a finished match does not count toward its host's open tables, and its new match does: refused with TOO_MANY_TABLES when the host is at the limit", async () => {
      const e = engine(clock, limits);
      const draw = { kind: 'create', config: { variant: 'draw', seats: 2, oneRound: true } } as const;
      expect(await e.handle(on('FINSH1', 10, draw))).toMatchObject({ ok: true });
      // Connected: a table with no seat connected would wait for its abandonment instead (issue 12).
      expect(await e.handle(on('FINSH1', 11, { kind: 'join' }, 'c11'))).toMatchObject({ ok: true, seat: 1 });
      // The clock plays the one round to its end.
      for (let i = 0; i < 200 && (await e.load('FINSH1'))!.status === 'playing'; i++) {
        const d = (await e.load('FINSH1'))!.deadline!;
        at = Math.max(at, d.at);
        expect(await e.handle(deadline('FINSH1', d.key))).toMatchObject({ ok: true });
      }
      expect((await e.load('FINSH1'))!.status).toBe('finished');
      expect(await e.handle(create('FINSH2', 10))).toMatchObject({ ok: true });
      expect(await e.handle(create('FINSH3', 10))).toMatchObject({ ok: true });
      expect(await e.handle(on('FINSH1', 10, { kind: 'newMatch' }))).toMatchObject({
        ok: false,
        code: 'TOO_MANY_TABLES',
      });
      expect((await e.load('FINSH1'))!.status).toBe('finished');
      // One of the others closes (nobody came): the new match may start.
      at = (await e.load('FINSH2'))!.deadline!.at;
      expect(await e.handle(deadline('FINSH2', '2'))).toMatchObject({ ok: true });
      expect(await e.handle(on('FINSH1', 10, { kind: 'newMatch' }))).toMatchObject({ ok: true });
      expect((await e.load('FINSH1'))!.status).toBe('playing');
    });

    it('a finished table leaves memory once its last connected seat goes (no deadline, nobody there), and a later intent reads it from Postgres', async () => {
      const e = engine(clock, limits);
      const cached = () => [...e.cachedTables()].map((t) => t.id);
      const draw = { kind: 'create', config: { variant: 'draw', seats: 2, oneRound: true } } as const;
      expect(await e.handle(on('LEFT01', 12, draw))).toMatchObject({ ok: true });
      expect(await e.handle(on('LEFT01', 13, { kind: 'join' }, 'c13'))).toMatchObject({ ok: true, seat: 1 });
      for (let i = 0; i < 200 && (await e.load('LEFT01'))!.status === 'playing'; i++) {
        const d = (await e.load('LEFT01'))!.deadline!;
        at = Math.max(at, d.at);
        expect(await e.handle(deadline('LEFT01', d.key))).toMatchObject({ ok: true });
      }
      const finished = (await e.load('LEFT01'))!;
      expect(finished).toMatchObject({ status: 'finished', deadline: null });
      // Seat 1 is still connected: the table stays in memory.
      expect(cached()).toContain('LEFT01');
      expect(await e.handle(on('LEFT01', 13, { kind: 'presence', connected: false }, 'c13'))).toMatchObject({
        ok: true,
        seat: 1,
      });
      expect(cached()).not.toContain('LEFT01');
      // Still there for whoever comes back: read from Postgres, at the stored version.
      const back = await e.handle(on('LEFT01', 13, { kind: 'join' }, 'c13b'));
      expect(back).toMatchObject({ ok: true, seat: 1, version: finished.version + 2 });
      expect(cached()).toContain('LEFT01');
    });

    it(`a seat keeps at most ${CONNECTIONS_KEPT_PER_SEAT} connection ids in the stored snapshot, however many sockets one identity opens`, async () => {
      const e = engine(clock, limits);
      expect(
        await e.handle(on('SOCKS1', 5, { kind: 'create', config: { variant: 'partnership' } }, 'gwA:1')),
      ).toMatchObject({ ok: true });
      const size = async () => {
        const rows = await prisma.$queryRawUnsafe<{ bytes: number }[]>(
          'SELECT octet_length(state::text)::int AS bytes FROM game_tables WHERE id = $1',
          'SOCKS1',
        );
        return rows[0]!.bytes;
      };
      const opened = await size();
      // 500 sockets of the host, through three gateways.
      for (let i = 0; i < 500; i++)
        await e.handle(
          on('SOCKS1', 5, { kind: 'join' }, `gw${'ABC'[i % 3]}-${'x'.repeat(24)}:${1_000_000 + i}`),
        );
      const stored = await new TableStore(prisma).load('SOCKS1');
      expect(stored!.seats[0]!.connections).toHaveLength(CONNECTIONS_KEPT_PER_SEAT);
      expect(stored!.seats[0]!.connections.at(-1)).toBe(`gwB-${'x'.repeat(24)}:${1_000_499}`);
      const after = await size();
      console.log(
        `snapshot of a waiting table: ${opened} bytes opened, ${after} bytes after 500 sockets of its host`,
      );
      expect(after - opened).toBeLessThan(8 * 40 + 64 * 60);
    });
  });
});

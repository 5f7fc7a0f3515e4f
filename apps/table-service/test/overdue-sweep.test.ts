import {
  createDeadlineQueue,
  DeadlineQueues,
  createLogger,
  createPrisma,
  runMigrations,
  type Clock,
  type DeadlineQueue,
  type PrismaClient,
} from '@dominoes/platform';
import { shardOf, type IntentEnvelope } from '@dominoes/protocol';
import { TestPostgresServer } from '../../../e2e/src/postgres-server';
import type { TimerApp } from '../../timer-service/src/timer-app';
import { startTestTimer } from '../../timer-service/test/support';
import { DeadlineKeeper } from '../src/deadlines/deadline-keeper';
import type { TableEngine } from '../src/table/table-engine';
import { TableStore } from '../src/table/table-store';
import { envelopes, startEngineHarness, type EngineHarness } from './support/engine-harness';

const SHARDS = 4;

/**
 * Issue 11 §1: a deadline that fires while Postgres is down (a private Postgres, killed with -9 and
 * started again). The failed intent drops the table from the engine's memory and uses the
 * deadline's job up, so the sweep must load the table again once Postgres is back, and set its job
 * again; the timer-service (a real one, on the harness's Redis) fires it (decision 0011).
 */
describe('overdue sweep on real Postgres and Redis', () => {
  let harness: EngineHarness;
  let postgres: TestPostgresServer;
  let prisma: PrismaClient;
  let timer: TimerApp;
  let queue: DeadlineQueue;
  /** An engine on the private Postgres (Redis is the harness's). */
  const engine = () => harness.engine({ store: new TableStore(prisma) });
  const keeper = (
    onEngine: TableEngine,
    clock: Clock,
    owns: ((tableId: string) => boolean) | undefined,
    jobs: DeadlineQueue = queue,
  ) =>
    new DeadlineKeeper(
      new DeadlineQueues([jobs], SHARDS),
      SHARDS,
      new TableStore(prisma),
      onEngine,
      clock,
      createLogger('test', 'silent'),
      2000,
      owns,
    );
  /** A full partnership table: the match starts and the first turn's clock runs (45 s). */
  const playingTable = async (tableId: string) => {
    const e = engine();
    const intent = envelopes(tableId, `o-${tableId}-`);
    await e.handle(intent(0, { kind: 'create', config: { variant: 'partnership' } }));
    for (const p of [1, 2, 3]) await e.handle(intent(p, { kind: 'join' }));
    const table = await e.load(tableId);
    if (!table?.deadline) throw new Error('no deadline');
    return { engine: e, deadline: table.deadline };
  };
  /** The timer-service's firing of `deadline`, as it reaches the engine. */
  const firing = (tableId: string, key: string, dueAt: number): IntentEnvelope => ({
    intentId: `deadline:${key}`,
    tableId,
    player: null,
    connectionId: null,
    replyTo: null,
    sentAt: Date.now(),
    intent: { kind: 'deadline', key, dueAt },
  });
  /** The deadline intents in the table's shard stream, once the timer-service has fired every job due. */
  const firedIn = async (tableId: string) => {
    for (let i = 0; i < 200; i++) {
      const counts = await queue.getJobCounts('wait', 'active', 'prioritized', 'delayed');
      if (Object.values(counts).every((n) => n === 0)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const entries = await harness.redis.xrange(
      harness.names.intentStream(shardOf(tableId, SHARDS)),
      '-',
      '+',
    );
    return entries
      .map(([, fields]) => JSON.parse(fields[1] as string) as IntentEnvelope)
      .filter((e) => e.tableId === tableId && e.intent.kind === 'deadline')
      .map((e) => e.intentId);
  };
  const later = (ms: number): Clock => ({ now: () => Date.now() + ms });

  beforeAll(async () => {
    harness = await startEngineHarness('overdue');
    postgres = await TestPostgresServer.start('overdue-sweep');
    const url = postgres.url.replace(/\/postgres$/, '/dominoes');
    await runMigrations(url);
    prisma = createPrisma(url, 2);
    queue = createDeadlineQueue(harness.stores.redisUrl, harness.stores.redisPrefix);
    timer = await startTestTimer(harness.stores.redisUrl, harness.stores.redisPrefix, 'overdue-timer', {
      TABLE_SHARDS: String(SHARDS),
    });
  });
  afterAll(async () => {
    await timer?.shutdown();
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await prisma?.$disconnect();
    await postgres?.stop();
    await harness?.dispose();
  });

  it('a deadline whose firing failed while Postgres was down is fired by the sweep once Postgres is back', async () => {
    const { engine: e, deadline } = await playingTable('OVRDU1');
    await postgres.kill();
    // The timer fires at the deadline: the write fails, the job is used up, the table leaves memory.
    await expect(e.handle(firing('OVRDU1', deadline.key, deadline.at))).rejects.toThrow();
    await postgres.start();
    const sweeper = keeper(e, later(60_000), () => true);
    await sweeper.sweep();
    expect(await firedIn('OVRDU1')).toEqual([`deadline:${deadline.key}`]);
    // Fired once: the next sweep leaves it alone (the job was set again and fired).
    await sweeper.sweep();
    expect(await firedIn('OVRDU1')).toHaveLength(1);
  }, 60_000);

  it('leaves alone the tables of shards this replica does not hold, and deadlines that are not yet overdue', async () => {
    const { engine: e, deadline } = await playingTable('OVRDU2');
    await postgres.kill();
    await expect(e.handle(firing('OVRDU2', deadline.key, deadline.at))).rejects.toThrow();
    await postgres.start();
    await keeper(e, later(60_000), () => false).sweep();
    await keeper(e, later(0), () => true).sweep();
    expect(await firedIn('OVRDU2')).toEqual([]);
  }, 60_000);

  it('a job lost to a Redis outage is set again, and fired, at the next sweep', async () => {
    const { engine: e, deadline } = await playingTable('OVRDU3');
    // The real queue, with adding a job failing while "Redis is down".
    let down = true;
    const flaky = new Proxy(queue, {
      get(target, property, receiver) {
        if (property === 'add' && down) return () => Promise.reject(new Error('Connection is closed.'));
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const sweeper = keeper(e, later(60_000), () => true, flaky);
    await sweeper.sweep();
    expect(await firedIn('OVRDU3')).toEqual([]);
    down = false;
    await sweeper.sweep();
    expect(await firedIn('OVRDU3')).toEqual([`deadline:${deadline.key}`]);
  });
});

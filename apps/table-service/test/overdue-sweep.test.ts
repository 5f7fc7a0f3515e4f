import { createLogger, type Clock, type DeadlineQueue, type Redis } from '@dominoes/platform';
import { shardOf, type IntentEnvelope } from '@dominoes/protocol';
import { DeadlineKeeper } from '../src/deadlines/deadline-keeper';
import type { TableEngine } from '../src/table/table-engine';
import { envelopes, startEngineHarness, type EngineHarness } from './support/engine-harness';

const SHARDS = 4;

/**
 * Issue 11 §1: a deadline that fires while Postgres is down. The failed write drops the table from
 * the engine's memory and the deadline's job is used up, so the sweep must find the table in
 * Postgres, not only among the tables it has in memory.
 */
describe('overdue sweep on real Postgres and Redis', () => {
  let harness: EngineHarness;
  const engine = () => harness.engine();
  const keeper = (
    onEngine: TableEngine,
    clock: Clock,
    owns: ((tableId: string) => boolean) | undefined,
    client: Redis = harness.redis,
  ) =>
    new DeadlineKeeper(
      {} as DeadlineQueue, // never used: the sweep sends intents, it sets no job
      client,
      harness.names,
      SHARDS,
      harness.store(),
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
    return table.deadline;
  };
  /** The deadline intents in the table's shard stream. */
  const firedIn = async (tableId: string) => {
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
  });
  afterAll(async () => {
    await harness?.dispose();
  });

  it('fires an overdue deadline of a table that no replica holds in memory (its write failed in an outage)', async () => {
    const deadline = await playingTable('OVRDU1');
    // A fresh engine: nothing cached, as after the failed write dropped the table.
    const sweeper = keeper(engine(), later(60_000), () => true);
    await sweeper.sweep();
    expect(await firedIn('OVRDU1')).toEqual([`deadline:${deadline.key}`]);
    // Fired once: the next sweep leaves it alone (the intent is on its way).
    await sweeper.sweep();
    expect(await firedIn('OVRDU1')).toHaveLength(1);
  });

  it('leaves alone the tables of shards this replica does not hold, and deadlines that are not yet overdue', async () => {
    await playingTable('OVRDU2');
    await keeper(engine(), later(60_000), () => false).sweep();
    await keeper(engine(), later(0), () => true).sweep();
    expect(await firedIn('OVRDU2')).toEqual([]);
  });

  it('a firing lost to a Redis outage is sent again at the next sweep', async () => {
    const deadline = await playingTable('OVRDU3');
    // The real client, with XADD failing while "Redis is down".
    let down = true;
    const flaky = new Proxy(harness.redis, {
      get(target, property, receiver) {
        if (property === 'xadd' && down) return () => Promise.reject(new Error('Connection is closed.'));
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const sweeper = keeper(engine(), later(60_000), () => true, flaky);
    await sweeper.sweep();
    expect(await firedIn('OVRDU3')).toEqual([]);
    down = false;
    await sweeper.sweep();
    expect(await firedIn('OVRDU3')).toEqual([`deadline:${deadline.key}`]);
  });
});

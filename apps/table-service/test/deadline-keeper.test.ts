import { createLogger, systemClock, type DeadlineQueues } from '@dominoes/platform';
import { DeadlineKeeper } from '../src/deadlines/deadline-keeper';
import type { TableEngine } from '../src/table/table-engine';
import type { Deadline, TableState } from '../src/table/table-state';
import type { TableStore } from '../src/table/table-store';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const deadline = (key: string): Deadline => ({ kind: 'turn', at: Date.now() + 1000, key, seat: 1 });

/** The keeper with its jobs recorded instead of set; `during` runs while a job is being set. */
class RecordingKeeper extends DeadlineKeeper {
  readonly set: string[] = [];
  during: (key: string) => void = () => undefined;
  override async schedule(tableId: string, d: Deadline): Promise<void> {
    this.set.push(`${tableId}:${d.key}`);
    await sleep(5);
    this.during(d.key);
  }
}

describe('deadline keeper: rebuilding the deadlines of a shard taken (again)', () => {
  /** The engine's copy of each table it has in memory (the query's row is used when it has none). */
  const copies = new Map<string, Deadline | null>();
  const stored: { id: string; state: TableState }[] = [];
  const engine = {
    cachedTable: (id: string) =>
      copies.has(id) ? ({ id, deadline: copies.get(id) } as TableState) : undefined,
    cachedTables: () => [],
  } as unknown as TableEngine;
  const store = {
    openTableDeadlines: async () => stored.map((t) => ({ id: t.id, deadline: t.state.deadline })),
    // One database holds every shard.
    databaseOfShard: () => 0,
  } as unknown as TableStore;
  const keeper = () =>
    new RecordingKeeper(
      {} as DeadlineQueues,
      1,
      store,
      engine,
      systemClock,
      createLogger('keeper-test', 'silent'),
      2000,
    );

  beforeEach(() => {
    copies.clear();
    stored.length = 0;
  });

  it('sets the job of every table of the shard from its current state', async () => {
    stored.push({ id: 'AAAAAA', state: { deadline: deadline('a1') } as TableState });
    stored.push({ id: 'BBBBBB', state: { deadline: deadline('b1') } as TableState });
    copies.set('AAAAAA', deadline('a1'));
    copies.set('BBBBBB', null); // its deadline was cleared since the query: nothing to set
    const k = keeper();
    k.shardAcquired(0);
    await sleep(400);
    k.stop();
    expect(k.set).toEqual(['AAAAAA:a1']);
  });

  it('an intent that moves the deadline while the rebuild sets the old one: the job set last is the current one', async () => {
    stored.push({ id: 'AAAAAA', state: { deadline: deadline('a1') } as TableState });
    copies.set('AAAAAA', deadline('a1'));
    const k = keeper();
    // While the rebuild sets a1, an intent stores a2 and sets its own job (recorded first here).
    k.during = (key) => {
      if (key !== 'a1') return;
      copies.set('AAAAAA', deadline('a2'));
      k.set.push('AAAAAA:a2 (by the intent)');
    };
    k.shardAcquired(0);
    await sleep(400);
    k.stop();
    expect(k.set).toEqual(['AAAAAA:a1', 'AAAAAA:a2 (by the intent)', 'AAAAAA:a2']);
  });
});

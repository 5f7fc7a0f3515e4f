import { createLogger, type Clock } from '@dominoes/platform';
import { RULE_DURATIONS } from '@dominoes/rules';
import type { IntentEnvelope, TableIntent } from '@dominoes/protocol';
import { TableEngine, type EngineDeps } from '../src/table/table-engine';
import type { Deadline, TableState } from '../src/table/table-state';
import { envelopes } from './support/engine-harness';
import { InMemorySeatPublisher } from './support/in-memory-seat-publisher';
import { InMemoryTableStore } from './support/in-memory-table-store';

/**
 * Every reply the engine gives, on its in-memory ports (table-ports.ts): a table that does not
 * exist, intents that expired before or while being stored, a duplicate, a refused decision, a sync
 * with and without a reply channel, a create refused for its config or its code, the host's open
 * tables on a new match, when a deadline job is set, the lobby and the spectators after a store, and
 * which tables stay in memory (the mutation run's survivors in table-engine.ts, docs/testing.md).
 */
class TestClock implements Clock {
  constructor(public ms = 1_000_000) {}
  now(): number {
    return this.ms;
  }
}

const create = (config: object = { variant: 'draw', seats: 2 }): TableIntent =>
  ({ kind: 'create', config }) as TableIntent;
const join: TableIntent = { kind: 'join' };

function world(overrides: Partial<EngineDeps> = {}) {
  const clock = new TestClock();
  const store = new InMemoryTableStore(() => clock.ms);
  const publisher = new InMemorySeatPublisher();
  const scheduled: { tableId: string; deadline: Deadline; traceparent?: string }[] = [];
  const lobby: unknown[] = [];
  const spectated: TableState[] = [];
  const deps: EngineDeps = {
    store,
    publisher,
    clock,
    durations: RULE_DURATIONS,
    deadlines: {
      schedule: async (tableId, deadline, traceparent) =>
        void scheduled.push({ tableId, deadline, traceparent }),
    },
    logger: createLogger('engine-replies-test', 'silent'),
    lobby: { publish: async (update) => void lobby.push(update) },
    spectators: { watchers: () => 3, published: async (table) => void spectated.push(table) },
    ...overrides,
  };
  return { clock, store, publisher, scheduled, lobby, spectated, engine: new TableEngine(deps) };
}

describe('the engine\u2019s replies (in-memory ports)', () => {
  it('an intent for a table that does not exist: TABLE_NOT_FOUND, nothing stored or published', async () => {
    const w = world();
    const send = envelopes('NOPE01', 'n');
    expect(await w.engine.handle(send(1, join))).toEqual({
      ok: false,
      intentId: 'n1',
      code: 'TABLE_NOT_FOUND',
      message: 'There is no table NOPE01.',
    });
    expect(w.store.offered).toEqual([]);
    expect(w.publisher.events).toEqual([]);
  });

  it('a create: stored, seat 0, its expiry job set, the lobby told of a public table; refused without a player or with a bad config', async () => {
    const w = world();
    const send = envelopes('PUB001', 'c');
    expect(await w.engine.handle(send(0, create({ variant: 'draw', seats: 2, public: true })))).toEqual({
      ok: true,
      intentId: 'c1',
      version: 2,
      seat: 0,
    });
    expect(w.scheduled).toEqual([
      {
        tableId: 'PUB001',
        deadline: expect.objectContaining({ kind: 'expire', at: 1_000_000 + 15 * 60_000 }),
        traceparent: undefined,
      },
    ]);
    expect(w.lobby).toHaveLength(1);
    expect(w.engine.cachedTable('PUB001')).toMatchObject({ status: 'waiting', public: true });

    const anonymous = await w.engine.handle({ ...send(0, create()), tableId: 'ANON01', player: null });
    expect(anonymous).toEqual({
      ok: false,
      intentId: 'c2',
      code: 'UNAUTHENTICATED',
      message: 'Opening a table needs a player.',
    });
    const bad = await w.engine.handle({
      ...send(0, create({ variant: 'draw', seats: 2, target: 75 })),
      tableId: 'BAD001',
    });
    expect(bad).toMatchObject({ ok: false, code: 'INVALID_TARGET' });
    expect(await w.store.load('ANON01')).toBeNull();
    expect(await w.store.load('BAD001')).toBeNull();
  });

  it('a create for a code in use: TABLE_CODE_TAKEN; past the host\u2019s open tables: TOO_MANY_TABLES', async () => {
    const w = world({
      limits: { maxOpenTablesPerHost: 1, waitingTableTtlMs: 60_000, abandonedTableMs: 120_000 },
    });
    const send = envelopes('TAKEN1', 't');
    expect(await w.engine.handle(send(0, create()))).toMatchObject({ ok: true });
    expect(await w.engine.handle(send(1, create()))).toEqual({
      ok: false,
      intentId: 't2',
      code: 'TABLE_CODE_TAKEN',
      message: 'table code taken',
    });
    const second = await w.engine.handle({ ...send(0, create()), tableId: 'TAKEN2' });
    expect(second).toMatchObject({ ok: false, code: 'TOO_MANY_TABLES' });
    expect((second as { message: string }).message).toContain('(1)');
    // A private table tells the lobby nothing.
    expect(w.lobby).toEqual([]);
  });

  it('an intent past its expiry is refused INTENT_EXPIRED before anything, create or not; one expiring while stored too', async () => {
    const w = world();
    const send = envelopes('EXP001', 'e');
    const late = (e: IntentEnvelope) => ({ ...e, expiresAt: w.clock.ms });
    const expired = {
      ok: false,
      code: 'INTENT_EXPIRED',
      message: 'This arrived too late to be applied, and was not; try again.',
    };
    expect(await w.engine.handle(late(send(0, create())))).toMatchObject(expired);
    expect(await w.store.load('EXP001')).toBeNull();
    expect(await w.engine.handle({ ...send(0, create()), expiresAt: w.clock.ms + 1 })).toMatchObject({
      ok: true,
    });
    expect(await w.engine.handle(late(send(1, join)))).toMatchObject(expired);
    // Expiring while the store is busy with it: refused by the store, nothing written, the copy kept.
    w.store.beforeWrite = () => void (w.clock.ms += 10);
    expect(await w.engine.handle({ ...send(1, join), expiresAt: w.clock.ms + 5 })).toMatchObject(expired);
    expect((await w.store.load('EXP001'))!.seats[1]).toBeNull();
    w.store.beforeWrite = () => undefined;
    expect(await w.engine.handle(send(1, join))).toMatchObject({ ok: true, seat: 1 });
  });

  it('at most once: an intent applied before is answered with the seat it holds, or none for a stranger', async () => {
    const w = world();
    const send = envelopes('ONCE01', 'o');
    await w.engine.handle(send(0, create()));
    const joined = send(1, join);
    expect(await w.engine.handle(joined)).toMatchObject({ ok: true, seat: 1 });
    const offered = w.store.offered.length;
    expect(await w.engine.handle(joined)).toEqual({
      ok: true,
      intentId: joined.intentId,
      version: 5,
      seat: 1,
    });
    expect(
      await w.engine.handle({ ...joined, player: { id: '00000000-0000-4000-8000-000000000009', name: 'x' } }),
    ).toEqual({
      ok: true,
      intentId: joined.intentId,
      version: 5,
      seat: null,
    });
    expect(await w.engine.handle({ ...joined, player: null })).toMatchObject({ seat: null });
    expect(w.store.offered.length).toBe(offered);
  });

  it('a duplicate found by the store (another replica stored it first): ok, with the stored version', async () => {
    const w = world();
    const send = envelopes('DUP001', 'd');
    await w.engine.handle(send(0, create()));
    const joined = send(1, join);
    // Another replica (another engine on the same store) applies it first.
    const other = new TableEngine({
      store: w.store,
      publisher: new InMemorySeatPublisher(),
      clock: w.clock,
      durations: RULE_DURATIONS,
      deadlines: { schedule: async () => undefined },
      logger: createLogger('engine-replies-test', 'silent'),
    });
    expect(await other.handle(joined)).toMatchObject({ ok: true, seat: 1 });
    // This replica's copy is older: its write is stale, reloaded, and then the intent is seen as applied.
    expect(await w.engine.handle(joined)).toEqual({
      ok: true,
      intentId: joined.intentId,
      version: 5,
      seat: 1,
    });
  });

  it('a refused decision is the policy\u2019s code and message; nothing stored', async () => {
    const w = world();
    const send = envelopes('REF001', 'r');
    await w.engine.handle(send(0, create()));
    const offered = w.store.offered.length;
    expect(await w.engine.handle(send(3, { kind: 'sync' }))).toEqual({
      ok: false,
      intentId: 'r2',
      code: 'NOT_SEATED',
      message: 'You have no seat at this table.',
    });
    expect(w.store.offered.length).toBe(offered);
  });

  it('a sync: the view in the reply only for a seat with a reply channel; nothing stored or published', async () => {
    const w = world();
    const send = envelopes('SYNC01', 's');
    await w.engine.handle(send(0, create()));
    const published = w.publisher.events.length;
    const quiet = await w.engine.handle(send(0, { kind: 'sync' }));
    expect(quiet).toEqual({ ok: true, intentId: 's2', version: 2, seat: 0 });
    const asked = await w.engine.handle(send(0, { kind: 'sync' }, { replyTo: 'gateway-1' }));
    expect(asked).toMatchObject({ ok: true, version: 2, seat: 0 });
    const view = JSON.parse((asked as { view: string }).view);
    expect(view).toMatchObject({ tableId: 'SYNC01', you: { seat: 0 }, watchers: 3 });
    expect(w.publisher.events.length).toBe(published);
  });

  it('a change publishes each occupied seat\u2019s view with its watchers and cause, then tells the spectators', async () => {
    const w = world();
    const send = envelopes('PUBL01', 'p');
    await w.engine.handle(send(0, create()));
    expect(w.publisher.events).toEqual([]);
    const joined = send(1, join);
    await w.engine.handle(joined);
    expect(w.publisher.events.map((e) => e.seat)).toEqual([0, 1]);
    for (const e of w.publisher.events) {
      expect(e).toMatchObject({
        tableId: 'PUBL01',
        version: w.engine.cachedTable('PUBL01')!.version,
        cause: { intentId: joined.intentId },
      });
      expect(e.view).toMatchObject({ watchers: 3, you: { seat: e.seat } });
    }
    expect(w.spectated.map((t) => t.version)).toEqual([w.engine.cachedTable('PUBL01')!.version]);
  });

  it('a deadline job is set only when the change made a new deadline', async () => {
    const w = world();
    const send = envelopes('DEAD01', 'x');
    await w.engine.handle(send(0, create()));
    expect(w.scheduled.map((s) => s.deadline.kind)).toEqual(['expire']);
    // The second seat starts the match: a new deadline (the first turn).
    await w.engine.handle(send(1, join));
    expect(w.scheduled.map((s) => s.deadline.kind)).toEqual(['expire', 'turn']);
    // A change that keeps the clock (a re-join from another socket) sets no job.
    await w.engine.handle(send(1, join, { connectionId: 'c1-second' }));
    expect(w.scheduled).toHaveLength(2);
  });

  it('a failed job or lobby update does not undo the stored change', async () => {
    const w = world({
      deadlines: { schedule: async () => Promise.reject(new Error('Redis down')) },
      lobby: { publish: async () => Promise.reject(new Error('Redis down')) },
    });
    const send = envelopes('FAIL01', 'f');
    expect(await w.engine.handle(send(0, create({ variant: 'draw', seats: 2, public: true })))).toMatchObject(
      { ok: true },
    );
    expect(await w.engine.handle(send(1, join))).toMatchObject({ ok: true, seat: 1 });
    expect((await w.store.load('FAIL01'))!.status).toBe('playing');
  });

  it('a new match past the host\u2019s open tables is TOO_MANY_TABLES; a closed table leaves memory', async () => {
    const w = world({
      limits: { maxOpenTablesPerHost: 1, waitingTableTtlMs: 60_000, abandonedTableMs: 120_000 },
    });
    const send = envelopes('NEWM01', 'm');
    await w.engine.handle(send(0, create({ variant: 'draw', seats: 2, oneRound: true })));
    await w.engine.handle(send(1, join));
    // Play the round out by its deadlines.
    for (let i = 0; i < 200 && w.engine.cachedTable('NEWM01')?.status === 'playing'; i++) {
      const d = w.engine.cachedTable('NEWM01')!.deadline!;
      w.clock.ms = d.at;
      await w.engine.handle(send(0, { kind: 'deadline', key: d.key, dueAt: d.at }, { player: null }));
    }
    const finished = (await w.store.load('NEWM01'))!;
    expect(finished.status).toBe('finished');
    // The host opens another table meanwhile (its one open table), so a new match here is one too many.
    expect(await w.engine.handle({ ...envelopes('OTHER1', 'q')(0, create()) })).toMatchObject({ ok: true });
    expect(await w.engine.handle(send(0, { kind: 'newMatch' }))).toMatchObject({
      ok: false,
      code: 'TOO_MANY_TABLES',
    });
    // Another seat asking is refused by the policy (NOT_HOST), not counted against the host.
    expect(await w.engine.handle(send(1, { kind: 'newMatch' }))).toMatchObject({
      ok: false,
      code: 'NOT_HOST',
    });
    // A waiting table that expires is closed and leaves the engine's memory.
    const other = w.engine.cachedTable('OTHER1')!;
    w.clock.ms = other.deadline!.at;
    await w.engine.handle(
      envelopes('OTHER1', 'z')(0, { kind: 'deadline', key: other.deadline!.key, dueAt: 0 }, { player: null }),
    );
    expect((await w.store.load('OTHER1'))!.status).toBe('closed');
    expect(w.engine.cachedTable('OTHER1')).toBeUndefined();
    // With it closed, the host may start the new match.
    expect(await w.engine.handle(send(0, { kind: 'newMatch' }))).toMatchObject({ ok: true });
  });

  it('a finished table nobody is connected to leaves memory; one with a seat connected stays', async () => {
    const w = world();
    const send = envelopes('LEFT01', 'l');
    await w.engine.handle(send(0, create({ variant: 'draw', seats: 2, oneRound: true })));
    await w.engine.handle(send(1, join));
    for (let i = 0; i < 200 && w.engine.cachedTable('LEFT01')?.status === 'playing'; i++) {
      const d = w.engine.cachedTable('LEFT01')!.deadline!;
      w.clock.ms = d.at;
      await w.engine.handle(send(0, { kind: 'deadline', key: d.key, dueAt: d.at }, { player: null }));
    }
    expect(w.engine.cachedTable('LEFT01')).toMatchObject({ status: 'finished' });
    await w.engine.handle(send(0, { kind: 'presence', connected: false }, { connectionId: 'c0' }));
    expect(w.engine.cachedTable('LEFT01')).toMatchObject({ status: 'finished' });
    await w.engine.handle(send(1, { kind: 'presence', connected: false }, { connectionId: 'c1' }));
    expect(w.engine.cachedTable('LEFT01')).toBeUndefined();
    // It is read again from the store when someone comes back.
    expect(await w.engine.handle(send(1, join, { connectionId: 'c1-back' }))).toMatchObject({
      ok: true,
      seat: 1,
    });
    expect(w.engine.cachedTable('LEFT01')).toMatchObject({ status: 'finished' });
  });
});

import { createLogger, systemClock } from '@dominoes/platform';
import { legalActions, RULE_DURATIONS } from '@dominoes/rules';
import { TableEngine } from '../src/table/table-engine';
import { StoreUnavailableError, WriteOutcomeUnknownError } from '../src/table/table-ports';
import { RECENT_INTENTS_KEPT, type Deadline } from '../src/table/table-state';
import { envelopes } from './support/engine-harness';
import { InMemorySeatPublisher } from './support/in-memory-seat-publisher';
import { InMemoryTableStore } from './support/in-memory-table-store';

/*
 * The engine's ordering, fencing and retry, on its ports (table-ports.ts) with in-memory stores, as
 * boardgame.io tests its Master. The same paths on real Postgres and Redis: table-engine.test.ts.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('table engine on in-memory ports', () => {
  const world = () => {
    const store = new InMemoryTableStore();
    const publisher = new InMemorySeatPublisher();
    const scheduled: string[] = [];
    const engine = () =>
      new TableEngine({
        store,
        publisher,
        clock: systemClock,
        durations: RULE_DURATIONS,
        deadlines: { schedule: async (tableId, d) => void scheduled.push(`${tableId}:${d.key}`) },
        logger: createLogger('test', 'silent'),
      });
    return { store, publisher, scheduled, engine };
  };
  const create = { kind: 'create', config: { variant: 'partnership' } } as const;
  const join = { kind: 'join' } as const;
  /** A world with table `tableId` opened by player 0 through `first`, one engine (a replica). */
  const opened = async (tableId: string, idPrefix: string) => {
    const w = world();
    const first = w.engine();
    const send = envelopes(tableId, idPrefix);
    expect(await first.handle(send(0, create))).toMatchObject({ ok: true, seat: 0 });
    return { ...w, first, send };
  };
  /** Lets every pending promise callback run. */
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  const gate = () => {
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, open };
  };

  it("acknowledges without waiting for the deadline job (decision 0024), and sets a table's jobs one after the other in the order of its changes", async () => {
    const store = new InMemoryTableStore();
    const publisher = new InMemorySeatPublisher();
    const started: string[] = [];
    const finished: string[] = [];
    const gates: (() => void)[] = [];
    const engine = new TableEngine({
      store,
      publisher,
      clock: systemClock,
      durations: RULE_DURATIONS,
      deadlines: {
        schedule: (tableId, d) => {
          started.push(`${tableId}:${d.key}`);
          return new Promise<void>((resolve) =>
            gates.push(() => {
              finished.push(`${tableId}:${d.key}`);
              resolve();
            }),
          );
        },
      },
      logger: createLogger('test', 'silent'),
    });
    const send = envelopes('DLINE1', 'd');
    // Each reply arrives while the job it asked for is still being set.
    expect(await engine.handle(send(0, create))).toMatchObject({ ok: true, seat: 0 });
    expect(started).toHaveLength(1);
    expect(await engine.handle(send(1, join))).toMatchObject({ ok: true, seat: 1 });
    expect(await engine.handle(send(2, join))).toMatchObject({ ok: true, seat: 2 });
    expect(await engine.handle(send(3, join))).toMatchObject({ ok: true, seat: 3 });
    // The fourth join dealt the round: a turn deadline, whose job waits for the earlier one.
    expect(started).toHaveLength(1);
    let all = false;
    void engine.deadlinesSet().then(() => (all = true));
    gates.shift()!();
    await settle();
    expect(started).toHaveLength(2);
    expect(all).toBe(false);
    gates.shift()!();
    await settle();
    expect(all).toBe(true);
    expect(finished).toEqual(started);
    expect(started.at(-1)).toBe(`DLINE1:${(await engine.load('DLINE1'))!.deadline!.key}`);
  });

  it("moves played before the table's job comes due set no job (decision 0032); that job's firing, out of date, changes nothing and sets the current turn's job", async () => {
    let now = 1_900_000_000_000;
    const store = new InMemoryTableStore();
    const publisher = new InMemorySeatPublisher();
    const scheduled: Deadline[] = [];
    const engine = new TableEngine({
      store,
      publisher,
      clock: { now: () => now },
      durations: RULE_DURATIONS,
      deadlines: { schedule: async (_tableId, d) => void scheduled.push(d) },
      logger: createLogger('test', 'silent'),
    });
    const send = envelopes('WAKE1', 'w');
    await engine.handle(send(0, create));
    for (const p of [1, 2, 3]) await engine.handle(send(p, join));
    await engine.deadlinesSet();
    const firstTurn = scheduled.at(-1)!;
    expect(firstTurn).toMatchObject({ kind: 'turn', at: now + RULE_DURATIONS.turnMs });
    // Five moves, one every 2 s: each moves the deadline later than the job set, so none sets one.
    for (let i = 0; i < 5; i++) {
      now += 2_000;
      const t = (await engine.load('WAKE1'))!;
      if (t.match!.phase !== 'playing') break;
      const seat = t.match!.round!.turn;
      const action = legalActions(t.match!, seat)[0]!;
      expect(await engine.handle(send(seat, { kind: 'action', action }))).toMatchObject({ ok: true });
    }
    await engine.deadlinesSet();
    expect(scheduled.at(-1)).toBe(firstTurn);
    const moved = (await engine.load('WAKE1'))!;
    expect(moved.deadline!.key).not.toBe(firstTurn.key);
    // The job fires at its time: out of date, it changes nothing and hands the timer the current deadline.
    now = firstTurn.at;
    const views = publisher.batches.length;
    expect(
      await engine.handle(
        send(0, { kind: 'deadline', key: firstTurn.key, dueAt: firstTurn.at }, { player: null }),
      ),
    ).toMatchObject({ ok: true });
    await engine.deadlinesSet();
    expect(scheduled.at(-1)).toEqual(moved.deadline);
    expect((await engine.load('WAKE1'))!.version).toBe(moved.version);
    expect(publisher.batches.length).toBe(views);
  });

  it("runs one table's intents one at a time in arrival order, each on top of the one before, while another table's go on", async () => {
    const { store, first: e, send } = await opened('ORDER1', 'o');
    const held = gate();
    store.beforeWrite = (change) => (change.tableId === 'ORDER1' ? held.opened : undefined);
    const joins = [1, 2, 3].map((p) => send(p, join));
    const replies = joins.map((envelope) => e.handle(envelope));
    await settle();
    // The first join waits on the store; the two behind it have not reached it.
    expect(store.offered.filter((c) => c.tableId === 'ORDER1').map((c) => c.intentId)).toEqual([
      'o1',
      joins[0]!.intentId,
    ]);
    // Another table is not held behind this one.
    expect(await e.handle(envelopes('ORDER2', 'p')(0, create))).toMatchObject({ ok: true, seat: 0 });
    held.open();
    expect(await Promise.all(replies)).toEqual(
      joins.map((envelope, i) =>
        expect.objectContaining({ ok: true, intentId: envelope.intentId, seat: i + 1 }),
      ),
    );
    const stored = store.stored.filter((c) => c.tableId === 'ORDER1');
    expect(stored.map((c) => c.intentId)).toEqual(['o1', ...joins.map((j) => j.intentId)]);
    for (let i = 1; i < stored.length; i++)
      expect(stored[i]!.fromVersion).toBe(stored[i - 1]!.fromVersion + stored[i - 1]!.events.length);
  });

  it('a replica with a stale copy is fenced: its write is refused and nothing of it is published; it reloads and applies on top', async () => {
    const { store, publisher, engine, first: a, send } = await opened('FENCE1', 'f');
    const b = engine();
    const stale = (await b.load('FENCE1'))!;
    await a.handle(send(1, join));
    const before = publisher.batches.length;
    const late = send(2, join);
    expect(await b.handle(late)).toMatchObject({ ok: true, seat: 2 });
    const offers = store.offered.filter((c) => c.intentId === late.intentId);
    const truth = (await store.load('FENCE1'))!;
    // The write from the stale copy was refused; the one on top of the stored version was stored.
    expect(offers.map((c) => c.fromVersion)).toEqual([
      stale.version,
      truth.version - offers[1]!.events.length,
    ]);
    expect(store.stored.filter((c) => c.intentId === late.intentId)).toEqual([offers[1]]);
    // One batch of views, all of the stored version, every one with both joins in it.
    const batches = publisher.batches.slice(before);
    expect(batches).toHaveLength(1);
    for (const event of batches[0]!) {
      expect(event.version).toBe(truth.version);
      expect(event.cause?.intentId).toBe(late.intentId);
      expect(event.view.seats.map((s) => s?.name ?? null)).toEqual(['P0', 'P1', 'P2', null]);
    }
  });

  it('a replica fenced again on its retry answers UNAVAILABLE: nothing of its intent is stored or published', async () => {
    const { store, publisher, engine, first: loser, send } = await opened('FENCE2', 'g');
    const winner = engine();
    const lost = send(1, join);
    const others = [send(2, join), send(3, join)];
    // Each time the loser offers its write, the other replica has just written the table first.
    store.beforeWrite = async (change) => {
      if (change.intentId !== lost.intentId) return;
      const next = others.shift();
      if (next) expect(await winner.handle(next)).toMatchObject({ ok: true });
    };
    expect(await loser.handle(lost)).toMatchObject({ ok: false, code: 'UNAVAILABLE' });
    expect(store.offered.filter((c) => c.intentId === lost.intentId)).toHaveLength(2);
    expect(store.stored.some((c) => c.intentId === lost.intentId)).toBe(false);
    expect(publisher.events.some((e) => e.cause?.intentId === lost.intentId)).toBe(false);
    // The two writes that won are published, each once.
    expect(publisher.batches.map((batch) => batch[0]!.cause?.intentId)).toEqual(['g3', 'g4']);
  });

  it('a store that fails: no view is published, no deadline set, and the table is marked for a reload', async () => {
    const { store, publisher, scheduled, first: e, send } = await opened('FAIL1', 'x');
    const [published, deadlines] = [publisher.batches.length, scheduled.length];
    store.beforeWrite = () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    };
    await expect(e.handle(send(1, join))).rejects.toThrow('ECONNREFUSED');
    expect(publisher.batches).toHaveLength(published);
    expect(scheduled).toHaveLength(deadlines);
    expect(e.tablesToReload()).toEqual(['FAIL1']);
    expect([...e.cachedTables()].map((t) => t.id)).not.toContain('FAIL1');
    // Once the store answers again, the table is loaded as it was stored.
    store.beforeWrite = () => undefined;
    expect(await e.reload('FAIL1')).toBe(true);
    expect(e.tablesToReload()).toEqual([]);
    expect([...e.cachedTables()].find((t) => t.id === 'FAIL1')?.version).toBe(
      (await store.load('FAIL1'))!.version,
    );
    expect(await e.handle(send(1, join))).toMatchObject({ ok: true, seat: 1 });
  });

  it('a read that fails before anything is written (Postgres away when the table is loaded) is a StoreUnavailableError: nothing stored, the table loaded on the next intent', async () => {
    const { store, engine, send } = await opened('READ1', 'r');
    const e = engine(); // another replica: the table is not in its memory
    const load = store.load.bind(store);
    const readable = store as { load: InMemoryTableStore['load'] };
    readable.load = () => Promise.reject(new Error("Can't reach database server at 127.0.0.1:5432"));
    const stored = store.stored.length;
    const failure = await e.handle(send(1, join)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect((failure as Error).message).toContain("Can't reach database server");
    expect(store.stored).toHaveLength(stored);
    readable.load = load;
    expect(await e.handle(send(1, join))).toMatchObject({ ok: true, seat: 1 });
  });

  it('a write whose answer is lost after its commit (Postgres killed then): nothing is answered (WriteOutcomeUnknownError, not a refusal), and the intent read again is answered as applied, stored once', async () => {
    const { store, first: e, send } = await opened('LOST1', 'z');
    const intent = send(1, join);
    const append = store.append;
    const writable = store as { append: InMemoryTableStore['append'] };
    writable.append = async (...change) => {
      await append(...change);
      throw new Error('Connection terminated unexpectedly');
    };
    const failure = await e.handle(intent).catch((error: unknown) => error);
    writable.append = append;
    expect(failure).toBeInstanceOf(WriteOutcomeUnknownError);
    expect(store.stored.filter((c) => c.intentId === intent.intentId)).toHaveLength(1);
    expect(e.tablesToReload()).toEqual(['LOST1']);
    await e.reload('LOST1');
    expect(await e.handle(intent)).toMatchObject({ ok: true, intentId: intent.intentId, seat: 1 });
    expect(store.stored.filter((c) => c.intentId === intent.intentId)).toHaveLength(1);
  });

  it('a stored change whose views cannot be published (Redis away) is answered as applied, not refused, and its views go out once Redis answers', async () => {
    const { store, publisher, first: e, send } = await opened('VIEW1', 'v');
    const publish = publisher.publish.bind(publisher);
    let failures = 2;
    publisher.publish = async (events) => {
      if (failures-- > 0) throw new Error('Connection is closed.');
      await publish(events);
    };
    const before = publisher.batches.length;
    const intent = send(1, join);
    expect(await e.handle(intent)).toMatchObject({ ok: true, intentId: intent.intentId, seat: 1 });
    expect(store.stored.filter((c) => c.intentId === intent.intentId)).toHaveLength(1);
    expect(e.tablesToReload()).toEqual([]);
    // Tried again after 250 ms, then 500 ms: the third try goes out, once.
    for (let i = 0; i < 60 && publisher.batches.length === before; i++) await sleep(50);
    const stored = (await store.load('VIEW1'))!.version;
    expect(publisher.batches.slice(before).map((b) => b.map((v) => [v.seat, v.version]))).toEqual([
      [
        [0, stored],
        [1, stored],
      ],
    ]);
    await sleep(1200);
    expect(publisher.batches).toHaveLength(before + 1);
  });

  it('views of a stored change are not tried again once a newer change is stored (it publishes its own)', async () => {
    const { publisher, first: e, send } = await opened('VIEW2', 'w');
    const publish = publisher.publish.bind(publisher);
    let failing = true;
    publisher.publish = async (events) => {
      if (failing) {
        failing = false;
        throw new Error('Connection is closed.');
      }
      await publish(events);
    };
    const before = publisher.batches.length;
    expect(await e.handle(send(1, join))).toMatchObject({ ok: true, seat: 1 });
    expect(await e.handle(send(2, join))).toMatchObject({ ok: true, seat: 2 });
    await sleep(700);
    const versions = publisher.batches.slice(before).map((b) => b[0]!.version);
    expect(versions).toEqual([e.cachedTable('VIEW2')!.version]);
  });

  it('a create whose answer is lost after its commit is not answered (WriteOutcomeUnknownError); read again, it is answered as the create it was, and another create of the same code is still refused', async () => {
    const w = world();
    const e = w.engine();
    const send = envelopes('NEW1', 'c');
    const intent = send(0, create);
    const writable = w.store as { create: InMemoryTableStore['create'] };
    const real = w.store.create;
    writable.create = async (...args) => {
      await real(...args);
      throw new Error('Connection terminated unexpectedly');
    };
    const failure = await e.handle(intent).catch((error: unknown) => error);
    writable.create = real;
    expect(failure).toBeInstanceOf(WriteOutcomeUnknownError);
    expect(await e.handle(intent)).toMatchObject({ ok: true, intentId: intent.intentId, seat: 0 });
    // Redelivered to a restarted replica (an empty cache): the same answer.
    expect(await w.engine().handle(intent)).toMatchObject({ ok: true, intentId: intent.intentId, seat: 0 });
    expect(w.store.stored.filter((c) => c.intentId === intent.intentId)).toHaveLength(1);
    expect(await e.handle(send(1, create))).toMatchObject({ ok: false, code: 'TABLE_CODE_TAKEN' });
  });

  it('at most once: a repeated intent id is answered as applied, and neither stored nor published again', async () => {
    const { store, publisher, engine, first: e, send } = await opened('ONCE1', 'y');
    const first = send(1, join);
    const applied = await e.handle(first);
    expect(applied).toMatchObject({ ok: true, seat: 1 });
    const [stored, published] = [store.stored.length, publisher.batches.length];
    // A client's retry to the same replica, then a redelivery to a restarted one (an empty cache).
    expect(await e.handle(first)).toEqual(applied);
    expect(await engine().handle(first)).toEqual(applied);
    expect(store.stored).toHaveLength(stored);
    expect(publisher.batches).toHaveLength(published);
    // After the player left, the old join would seat them again: it is answered from the snapshot's
    // recent intents, with no write offered at all.
    await e.handle(send(1, { kind: 'leave' }));
    const [afterLeave, publishedAfterLeave] = [store.stored.length, publisher.batches.length];
    expect(await e.handle(first)).toMatchObject({ ok: true, intentId: first.intentId, seat: null });
    expect(store.offered.filter((c) => c.intentId === first.intentId)).toHaveLength(1);
    expect(store.stored).toHaveLength(afterLeave);
    expect(publisher.batches).toHaveLength(publishedAfterLeave);
  });

  it('at most once past the snapshot\'s recent intents: the store refuses the id, and the engine answers "applied" without publishing', async () => {
    const { store, publisher, first: e, send } = await opened('ONCE2', 'z');
    const first = send(1, join);
    expect(await e.handle(first)).toMatchObject({ ok: true, seat: 1 });
    // More changes than the snapshot keeps ids of; player 1 ends up without a seat, so the old join
    // would change the table again if it were applied.
    for (let i = 0; i < RECENT_INTENTS_KEPT / 2; i++) {
      await e.handle(send(1, { kind: 'leave' }));
      await e.handle(send(1, join));
    }
    await e.handle(send(1, { kind: 'leave' }));
    const table = (await store.load('ONCE2'))!;
    expect(table.recentIntents).not.toContain(first.intentId);
    const [stored, published] = [store.stored.length, publisher.batches.length];
    expect(await e.handle(first)).toMatchObject({
      ok: true,
      intentId: first.intentId,
      version: table.version,
    });
    expect(store.offered.at(-1)?.intentId).toBe(first.intentId);
    expect(store.stored).toHaveLength(stored);
    expect(publisher.batches).toHaveLength(published);
    expect((await store.load('ONCE2'))!.seats[1]).toBeNull();
  });
});

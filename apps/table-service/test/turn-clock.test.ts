import type { Clock } from '@dominoes/platform';
import type { TableIntent } from '@dominoes/protocol';
import { legalActions } from '@dominoes/rules';
import type { Deadline, TableState } from '../src/table/table-state';
import type { TableEngine } from '../src/table/table-engine';
import { envelopes, startEngineHarness, type EngineHarness } from './support/engine-harness';
import { watchSeatChannels, type SeatChannels } from './support/seat-channels';

const TURN_MS = 45_000;
const DISCONNECTED_TURN_MS = 5_000;

/**
 * The turn clock through the engine, on real Postgres and Redis, as the seats see it: what is
 * stored, the deadline job handed to the timer, and the clock in every published view. Seat `n` is
 * player `n` on connection `c<n>` (seats go by arrival, P3).
 */
describe('turn clock on real Postgres and Redis (P16, P17, auto-pass)', () => {
  let harness: EngineHarness;
  let channels: SeatChannels;
  let at = 1_800_000_000_000;
  const clock: Clock = { now: () => at };
  const scheduled: { tableId: string; deadline: Deadline }[] = [];
  let engine: TableEngine;
  const TABLES = ['CLOCK1', 'CLOCK2', 'CLOCK3', 'CLOCK4'];

  beforeAll(async () => {
    harness = await startEngineHarness('turn_clock');
    channels = await watchSeatChannels(harness.stores.redisUrl, harness.names, TABLES);
    engine = harness.engine({
      clock,
      deadlines: { schedule: async (tableId, deadline) => void scheduled.push({ tableId, deadline }) },
    });
  });
  afterAll(async () => {
    channels?.close();
    await harness?.dispose();
  });

  const ok = async (reply: Promise<unknown>) => expect(await reply).toMatchObject({ ok: true });
  const table = async (id: string): Promise<TableState> => (await engine.load(id))!;

  /** A partnership table with all four seats taken: the match has started. */
  async function started(id: string) {
    const intent = envelopes(id, `${id}-`);
    await ok(engine.handle(intent(0, { kind: 'create', config: { variant: 'partnership' } })));
    for (const p of [1, 2, 3]) await ok(engine.handle(intent(p, { kind: 'join' })));
    const send = (seat: number, body: TableIntent) => engine.handle(intent(seat, body));
    const fire = async () => {
      const t = await table(id);
      return engine.handle(
        intent(0, { kind: 'deadline', key: t.deadline!.key, dueAt: at }, { player: null }),
      );
    };
    /** The firing of a job handed to the timer (its key and due time). */
    const fireJob = (job: Deadline) =>
      engine.handle(intent(0, { kind: 'deadline', key: job.key, dueAt: job.at }, { player: null }));
    return { send, fire, fireJob };
  }

  const canPlay = (t: TableState, seat: number) =>
    legalActions({ ...t.match!, round: { ...t.match!.round!, turn: seat } }, seat).some(
      (a) => a.type === 'play',
    );

  /**
   * Lets the clock fire turns (P16) until the seat to move holds no playable tile (and, with
   * `nextCanPlay`, the seat after it holds one, so a pass for the blocked seat stops there).
   */
  async function untilBlocked(
    id: string,
    fire: () => Promise<unknown>,
    nextCanPlay = false,
  ): Promise<number> {
    for (let i = 0; i < 600; i++) {
      const t = await table(id);
      if (t.match!.phase === 'playing') {
        const seat = t.match!.round!.turn;
        if (!canPlay(t, seat) && (!nextCanPlay || canPlay(t, (seat + 1) % 4))) return seat;
      }
      at += 1_000;
      await ok(fire());
    }
    throw new Error('no seat was ever blocked on its turn');
  }

  const clockOf = (t: TableState) => t.deadline;
  const scheduledFor = (id: string) => scheduled.filter((s) => s.tableId === id).map((s) => s.deadline);

  it("auto-pass turned on by a seat blocked on its own turn passes for it at once (by 'auto'), and the next seat's turn gets a full new clock: stored, handed to the timer and in every view", async () => {
    const { send, fire, fireJob } = await started('CLOCK1');
    const blocked = await untilBlocked('CLOCK1', fire);
    const before = await table('CLOCK1');
    const logBefore = before.match!.round!.log.length;
    at += 7_000; // 7 s into its turn
    channels.take();
    const jobs = scheduledFor('CLOCK1').length;

    await ok(send(blocked, { kind: 'autoPass', on: true }));

    const after = await table('CLOCK1');
    const round = after.match!.round!;
    expect(round.log[logBefore]).toMatchObject({ type: 'pass', seat: blocked, by: 'auto' });
    expect(after.seats[blocked]!.autoPass).toBe(true);
    // Unless the pass ended the round, the turn moved on and its clock started now (P16).
    if (after.match!.phase === 'playing') {
      expect(round.turn).not.toBe(blocked);
      expect(clockOf(after)).toMatchObject({ kind: 'turn', seat: round.turn, at: at + TURN_MS });
    } else {
      expect(clockOf(after)?.kind === 'break' || after.status === 'finished').toBe(true);
    }
    expect(clockOf(after)?.key).not.toBe(before.deadline!.key);
    await engine.deadlinesSet();
    const pending = scheduledFor('CLOCK1').at(-1)!;
    if (pending.key !== after.deadline!.key) {
      // The job set as the blocked turn started is due first (decision 0032): no job yet for the new
      // clock. That job wakes the table; its firing, out of date, changes nothing and hands the new
      // clock to the timer.
      expect(scheduledFor('CLOCK1').slice(jobs)).toEqual([]);
      expect(pending.at).toBeLessThanOrEqual(after.deadline!.at);
      at = pending.at;
      await ok(fireJob(pending));
      await engine.deadlinesSet();
      expect((await table('CLOCK1')).version).toBe(after.version);
    }
    expect(scheduledFor('CLOCK1').slice(jobs)).toEqual([after.deadline]);
    await channels.settle();
    const views = channels.take().filter((e) => e.version === after.version);
    expect(views.map((e) => e.seat).sort()).toEqual([0, 1, 2, 3]);
    for (const event of views)
      expect(event.view.clock).toEqual({
        kind: after.deadline!.kind,
        seat: after.deadline!.seat,
        deadline: after.deadline!.at,
      });
  });

  it('auto-pass by a blocked seat whose next seat is disconnected: the next turn gets 5 s (P17), from the moment of the pass', async () => {
    const { send, fire } = await started('CLOCK2');
    const blocked = await untilBlocked('CLOCK2', fire, true);
    const next = (blocked + 1) % 4;
    at += 1_000;
    await ok(engine.handle(envelopes('CLOCK2', 'drop-')(next, { kind: 'presence', connected: false })));
    expect(clockOf(await table('CLOCK2'))).toMatchObject({ kind: 'turn', seat: blocked }); // not the mover: unchanged
    at += 2_000;
    await ok(send(blocked, { kind: 'autoPass', on: true }));
    const after = await table('CLOCK2');
    expect(after.match!.round!.turn).toBe(next);
    expect(clockOf(after)).toMatchObject({ kind: 'turn', seat: next, at: at + DISCONNECTED_TURN_MS });
  });

  it('auto-pass turned on by a seat that can play changes nothing on the clock: no pass, the same deadline, no new job', async () => {
    const { send, fire } = await started('CLOCK3');
    let t = await table('CLOCK3');
    for (let i = 0; i < 400 && !canPlay(t, t.match!.round!.turn); i++) {
      at += 1_000;
      await ok(fire());
      t = await table('CLOCK3');
    }
    const mover = t.match!.round!.turn;
    const jobs = scheduledFor('CLOCK3').length;
    at += 3_000;
    await ok(send(mover, { kind: 'autoPass', on: true }));
    const after = await table('CLOCK3');
    expect(after.seats[mover]!.autoPass).toBe(true);
    expect(after.match!.round!.log).toHaveLength(t.match!.round!.log.length);
    expect(after.match!.round!.turn).toBe(mover);
    expect(after.deadline).toEqual(t.deadline);
    expect(scheduledFor('CLOCK3')).toHaveLength(jobs);
  });

  it("P17 for a seat other than the mover: another player's disconnect leaves the mover's deadline alone (stored, timer, views); the mover's own disconnect moves it to min(current, now + 5 s)", async () => {
    await started('CLOCK4');
    const start = await table('CLOCK4');
    const mover = start.match!.round!.turn;
    const startedAt = at;
    expect(start.deadline).toMatchObject({ kind: 'turn', seat: mover, at: startedAt + TURN_MS });
    const jobs = scheduledFor('CLOCK4').length;
    const drop = envelopes('CLOCK4', 'drop-');
    channels.take();

    at += 10_000;
    for (const other of [1, 2, 3].map((k) => (mover + k) % 4)) {
      await ok(engine.handle(drop(other, { kind: 'presence', connected: false })));
      const t = await table('CLOCK4');
      expect(t.seats[other]!.connections).toEqual([]);
      expect(t.deadline).toEqual(start.deadline);
    }
    expect(scheduledFor('CLOCK4')).toHaveLength(jobs);
    await channels.settle();
    const views = channels.take();
    expect(views.length).toBeGreaterThanOrEqual(3 * 4);
    for (const event of views)
      expect(event.view.clock).toEqual({ kind: 'turn', seat: mover, deadline: startedAt + TURN_MS });

    // The mover's own disconnect is what moves the clock. (One other seat comes back first: with no
    // seat connected at all the deadline would be the abandonment instead, issue 12, decision 0017.)
    const back = (mover + 1) % 4;
    await ok(engine.handle(drop(back, { kind: 'join' }, { connectionId: 'c-back' })));
    expect((await table('CLOCK4')).deadline).toEqual(start.deadline);
    await ok(engine.handle(drop(mover, { kind: 'presence', connected: false })));
    const moved = await table('CLOCK4');
    expect(moved.deadline).toMatchObject({ kind: 'turn', seat: mover, at: at + DISCONNECTED_TURN_MS });
    expect(scheduledFor('CLOCK4').slice(jobs)).toEqual([moved.deadline]);
  });
});

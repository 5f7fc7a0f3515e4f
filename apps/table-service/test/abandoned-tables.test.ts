import { createSeededRng, RULE_DURATIONS } from '@dominoes/rules';
import type { IntentEnvelope } from '@dominoes/protocol';
import { decide, openTable, type PolicyContext } from '../src/table/table-policy';
import { accepted, policyEnvelopes } from './support/policy-intents';
import type { TableState } from '../src/table/table-state';
import { tableView } from '../src/table/table-views';

// Issue 12 / decision 0017: a playing table with no seat connected ends as abandoned.
const ABANDON_MS = 120_000;
const ctx = (now: number): PolicyContext => ({
  now,
  rng: createSeededRng(7),
  durations: RULE_DURATIONS,
  abandonedTableMs: ABANDON_MS,
});
const envelope = policyEnvelopes('ABANDN', 'a');
const ok = accepted;
const apply = (table: TableState, e: IntentEnvelope, now: number) => {
  const d = ok(decide(table, e, ctx(now)));
  return { decision: d, table: { ...d.table, version: table.version + d.events.length } };
};
const step = (table: TableState, e: IntentEnvelope, now: number): TableState => apply(table, e, now).table;
const PLAYERS = ['p0', 'p1', 'p2', 'p3'];
const START = 1_000_000;
const playing = (): TableState => {
  const opened = ok(
    openTable('ABANDN', { id: 'p0', name: 'p0' }, { variant: 'partnership' }, 'c-p0', {
      now: START,
      waitingTableTtlMs: 900_000,
    }),
  );
  let table: TableState = { ...opened.table, version: opened.events.length };
  for (const p of PLAYERS.slice(1)) table = step(table, envelope(p, { kind: 'join' }, `c-${p}`), START);
  expect(table.status).toBe('playing');
  return table;
};
const closeAll = (table: TableState, now: number): TableState =>
  PLAYERS.reduce(
    (t, p) => step(t, envelope(p, { kind: 'presence', connected: false }, `c-${p}`), now),
    table,
  );
const fire = (table: TableState, now: number) =>
  apply(table, envelope(null, { kind: 'deadline', key: table.deadline!.key, dueAt: 0 }), now);

describe('abandoned tables (table policy, decision 0017)', () => {
  it('the last seat to disconnect replaces the turn clock with the abandonment deadline; the turns wait', () => {
    let table = playing();
    table = closeAll(table, START + 1000);
    expect(table.deadline).toMatchObject({ kind: 'abandon', at: START + 1000 + ABANDON_MS, seat: null });
    // The old turn deadline firing now changes nothing: the table does not play itself.
    const stale = apply(
      table,
      envelope(null, { kind: 'deadline', key: String(table.version - 10), dueAt: 0 }),
      START + 50_000,
    );
    expect(stale.decision.events).toEqual([]);
    // The view says so.
    expect(tableView(table, 0).clock).toEqual({
      kind: 'abandon',
      seat: null,
      deadline: START + 1000 + ABANDON_MS,
    });
  });

  it('at the deadline the match ends as abandoned, no winner, and the table closes', () => {
    let table = closeAll(playing(), START + 1000);
    const log = table.match!.round!.log.length;
    const { decision, table: closed } = fire(table, START + 1000 + ABANDON_MS);
    expect(decision.events.map((e) => e.kind)).toEqual(['match-abandoned', 'table-closed']);
    expect(decision.events[0]).toMatchObject({
      kind: 'match-abandoned',
      matchNumber: 1,
      payload: { scores: [0, 0], at: START + 1000 + ABANDON_MS },
    });
    expect(decision.events[1]).toMatchObject({ kind: 'table-closed', payload: { reason: 'abandoned' } });
    expect(closed).toMatchObject({ status: 'closed', closedReason: 'abandoned', deadline: null });
    // Nothing was played meanwhile; the match is left as it stopped, unfinished.
    expect(closed.match!.round!.log.length).toBe(log);
    expect(closed.match!.phase).toBe('playing');
    expect(tableView(closed, 2)).toMatchObject({ status: 'closed', closedReason: 'abandoned', clock: null });
    // A closed table takes nothing more, and says why.
    const late = decide(closed, envelope('p1', { kind: 'join' }, 'c-late'), ctx(START + 200_000));
    expect(late).toMatchObject({ ok: false, code: 'TABLE_CLOSED' });
    expect(!late.ok && late.message).toMatch(/abandoned/);
    table = closed;
    expect(ok(decide(table, envelope('p1', { kind: 'sync' }), ctx(START + 200_000))).seat).toBe(1);
  });

  it('a seat that comes back in time cancels it; the turn clock starts again (P16/P17)', () => {
    let table = closeAll(playing(), START + 1000);
    const turn = table.match!.round!.turn;
    // Someone other than the seat to move comes back: the mover is disconnected, so 5 s (P16/P17).
    const other = (turn + 1) % 4;
    table = step(table, envelope(PLAYERS[other]!, { kind: 'join' }, 'c-back'), START + 60_000);
    expect(table.deadline).toMatchObject({ kind: 'turn', seat: turn, at: START + 60_000 + 5_000 });
    // The abandonment's job, fired later, is out of date.
    expect(table.status).toBe('playing');
    // The mover comes back after everyone left again: 45 s from then.
    table = step(
      table,
      envelope(PLAYERS[other]!, { kind: 'presence', connected: false }, 'c-back'),
      START + 61_000,
    );
    expect(table.deadline?.kind).toBe('abandon');
    table = step(table, envelope(PLAYERS[turn]!, { kind: 'join' }, 'c-mover'), START + 70_000);
    expect(table.deadline).toMatchObject({ kind: 'turn', seat: turn, at: START + 70_000 + 45_000 });
  });

  it('an out-of-date abandonment firing after a return changes nothing', () => {
    let table = closeAll(playing(), START + 1000);
    const abandonKey = table.deadline!.key;
    table = step(table, envelope('p2', { kind: 'join' }, 'c-back'), START + 2000);
    const late = apply(
      table,
      envelope(null, { kind: 'deadline', key: abandonKey, dueAt: 0 }),
      START + 1000 + ABANDON_MS,
    );
    expect(late.decision.events).toEqual([]);
    expect(late.table.status).toBe('playing');
  });

  it('a player left alone can leave (leaving = disconnected): the seat stays, and the clock runs', () => {
    let table = playing();
    for (const p of ['p1', 'p2', 'p3'])
      table = step(table, envelope(p, { kind: 'presence', connected: false }, `c-${p}`), START + 1000);
    expect(table.deadline?.kind).toBe('turn');
    const left = apply(table, envelope('p0', { kind: 'leave' }), START + 2000);
    expect(left.table.seats.every((s) => s !== null)).toBe(true);
    expect(left.table.deadline).toMatchObject({ kind: 'abandon', at: START + 2000 + ABANDON_MS });
    // The running abandonment keeps its time through later changes (an auto-pass switch, a second leave).
    const later = step(left.table, envelope('p1', { kind: 'autoPass', on: true }), START + 3000);
    expect(later.deadline).toEqual(left.table.deadline);
  });

  it('between rounds the break waits too; a return starts a new break (P18)', () => {
    let table = playing();
    // Play the round out by its deadlines, everyone connected, until the break.
    let now = START;
    while (table.deadline?.kind === 'turn') {
      now = table.deadline.at;
      table = fire(table, now).table;
    }
    expect(table.deadline?.kind).toBe('break');
    table = closeAll(table, now + 1);
    expect(table.deadline).toMatchObject({ kind: 'abandon', at: now + 1 + ABANDON_MS });
    table = step(table, envelope('p3', { kind: 'join' }, 'c-back'), now + 10);
    expect(table.deadline).toMatchObject({ kind: 'break', at: now + 10 + RULE_DURATIONS.breakMs });
  });

  it('a waiting or finished table has no abandonment: only playing tables', () => {
    const opened = ok(
      openTable('ABANDN', { id: 'p0', name: 'p0' }, { variant: 'partnership' }, 'c-p0', {
        now: START,
        waitingTableTtlMs: 900_000,
      }),
    );
    const waiting = step(
      { ...opened.table, version: 2 },
      envelope('p0', { kind: 'presence', connected: false }, 'c-p0'),
      START,
    );
    expect(waiting.deadline?.kind).toBe('expire');
  });
});

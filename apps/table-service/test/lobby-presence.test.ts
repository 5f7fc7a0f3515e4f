import { createSeededRng, RULE_DURATIONS } from '@dominoes/rules';
import type { IntentEnvelope } from '@dominoes/protocol';
import { lobbyEntry, lobbyUpdateOf } from '../src/table/lobby-feed';
import { decide, openTable, type PolicyContext } from '../src/table/table-policy';
import { isPresent, type TableState } from '../src/table/table-state';
import { accepted, policyEnvelopes } from './support/policy-intents';

/*
 * Decision 0026: a waiting public table whose players all closed their tabs leaves the lobby, and
 * comes back when one of them returns; a seat taken without a socket (HTTP) is on its way, not away.
 */

const ctx: PolicyContext = { now: 1_000_000, rng: createSeededRng(5), durations: RULE_DURATIONS };
const TABLE = 'PRESENCE0001';
const step = (table: TableState, e: IntentEnvelope): TableState => {
  const d = accepted(decide(table, e, ctx));
  return { ...d.table, version: table.version + d.events.length };
};
const open = (connectionId: string | null, seats = 3): TableState => {
  const d = accepted(
    openTable(TABLE, { id: 'p0', name: 'Ann' }, { variant: 'draw', seats, public: true }, connectionId, {
      now: 5_000,
      waitingTableTtlMs: 60_000,
    }),
  );
  return { ...d.table, version: d.events.length };
};

describe('a waiting public table in the lobby follows its players’ presence (decision 0026)', () => {
  it('its last seated socket closing unlists it (table: null); a second socket of the same seat closing first changes nothing in the lobby', () => {
    const envelope = policyEnvelopes(TABLE, 'a');
    const opened = open('c0');
    const twice = step(opened, envelope('p0', { kind: 'join' }, 'c0b'));
    expect(lobbyUpdateOf(opened, twice)).toBeNull();
    const oneGone = step(twice, envelope('p0', { kind: 'presence', connected: false }, 'c0'));
    expect(lobbyUpdateOf(twice, oneGone)).toBeNull();
    const allGone = step(oneGone, envelope('p0', { kind: 'presence', connected: false }, 'c0b'));
    expect(allGone.seats[0]).toMatchObject({ connections: [], away: true });
    expect(isPresent(allGone.seats[0]!)).toBe(false);
    expect(lobbyEntry(allGone)).toBeNull();
    expect(lobbyUpdateOf(oneGone, allGone)).toEqual({
      tableId: TABLE,
      version: allGone.version,
      table: null,
    });
  });

  it('a player coming back on a new socket lists it again, with its seats as they were (not away any more)', () => {
    const envelope = policyEnvelopes(TABLE, 'b');
    const opened = open('c0');
    const guest = step(opened, envelope('p1', { kind: 'join' }, 'c1'));
    const hostGone = step(guest, envelope('p0', { kind: 'presence', connected: false }, 'c0'));
    // One seat still connected: still listed, nothing to publish.
    expect(lobbyUpdateOf(guest, hostGone)).toBeNull();
    const allGone = step(hostGone, envelope('p1', { kind: 'presence', connected: false }, 'c1'));
    expect(lobbyUpdateOf(hostGone, allGone)?.table).toBeNull();
    const back = step(allGone, envelope('p1', { kind: 'join' }, 'c1-new'));
    expect(back.seats[1]).not.toHaveProperty('away');
    expect(lobbyUpdateOf(allGone, back)?.table).toMatchObject({
      status: 'waiting',
      players: ['Ann', 'p1', null],
      host: 'Ann',
    });
    // A second socket of a seat already there changes nothing the lobby shows.
    const again = step(back, envelope('p0', { kind: 'join' }, 'c0-new'));
    expect(lobbyUpdateOf(back, again)).toBeNull();
  });

  it('a seat taken without a socket (HTTP, on its way) keeps the table listed until its player’s socket comes and goes', () => {
    const envelope = policyEnvelopes(TABLE, 'c');
    const opened = open(null);
    expect(opened.seats[0]).toMatchObject({ connections: [] });
    expect(isPresent(opened.seats[0]!)).toBe(true);
    expect(lobbyUpdateOf(null, opened)?.table).toMatchObject({ players: ['Ann', null, null] });
    const joined = step(opened, envelope('p0', { kind: 'join' }, 'c0'));
    expect(lobbyUpdateOf(opened, joined)).toBeNull();
    const gone = step(joined, envelope('p0', { kind: 'presence', connected: false }, 'c0'));
    expect(lobbyUpdateOf(joined, gone)?.table).toBeNull();
    // Joining again without a socket (HTTP) does not bring the table back: nobody is there.
    const httpJoin = accepted(decide(gone, envelope('p0', { kind: 'join' }), ctx));
    expect(httpJoin.events).toEqual([]);
    expect(lobbyEntry(httpJoin.table)).toBeNull();
  });

  it('presence of a player who is not seated is refused (NOT_SEATED) and changes nothing: nobody can keep another table listed', () => {
    const envelope = policyEnvelopes(TABLE, 'd');
    const gone = step(open('c0'), envelope('p0', { kind: 'presence', connected: false }, 'c0'));
    const faked = decide(gone, envelope('intruder', { kind: 'presence', connected: true }, 'cX'), ctx);
    expect(faked).toMatchObject({ ok: false, code: 'NOT_SEATED' });
    const forged = decide(gone, envelope('intruder', { kind: 'presence', connected: false }, 'c0'), ctx);
    expect(forged).toMatchObject({ ok: false, code: 'NOT_SEATED' });
  });

  it('a table in play stays listed to watch with no seat connected (the abandonment clock’s business, decision 0017)', () => {
    const envelope = policyEnvelopes(TABLE, 'e');
    const playing = step(open('c0', 2), envelope('p1', { kind: 'join' }, 'c1'));
    expect(playing.status).toBe('playing');
    const one = step(playing, envelope('p0', { kind: 'presence', connected: false }, 'c0'));
    const none = step(one, envelope('p1', { kind: 'presence', connected: false }, 'c1'));
    expect(none.seats.every((s) => s?.away === true)).toBe(true);
    expect(lobbyEntry(none)).toMatchObject({ status: 'playing' });
    expect(lobbyUpdateOf(one, none)).toBeNull();
  });
});

describe('a waiting public table in the lobby shows who sits where and who hosts (decision 0019)', () => {
  it('a seat taken that does not start the match is an update with the new player in their seat', () => {
    const envelope = policyEnvelopes(TABLE, 'f');
    const opened = open('c0');
    const joined = step(opened, envelope('p1', { kind: 'join' }, 'c1'));
    expect(joined.status).toBe('waiting');
    expect(lobbyUpdateOf(opened, joined)).toEqual({
      tableId: TABLE,
      version: joined.version,
      table: expect.objectContaining({ status: 'waiting', players: ['Ann', 'p1', null], host: 'Ann' }),
    });
  });

  it('the host leaving: the update names the player the role went to, wherever they sit (not the first seat taken)', () => {
    const envelope = policyEnvelopes(TABLE, 'g');
    const guest = step(open('c0'), envelope('p1', { kind: 'join' }, 'c1'));
    const hostLeft = step(guest, envelope('p0', { kind: 'leave' }, 'c0'));
    expect(hostLeft.hostPlayerId).toBe('p1');
    expect(lobbyUpdateOf(guest, hostLeft)?.table).toMatchObject({ players: [null, 'p1', null], host: 'p1' });
    // A newcomer takes the free seat before the host's: the host is still p1.
    const newcomer = step(hostLeft, envelope('p2', { kind: 'join' }, 'c2'));
    expect(newcomer.seats[0]?.playerId).toBe('p2');
    expect(lobbyUpdateOf(hostLeft, newcomer)?.table).toMatchObject({
      players: ['p2', 'p1', null],
      host: 'p1',
    });
  });
});

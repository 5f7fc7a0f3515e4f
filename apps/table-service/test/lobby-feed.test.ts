import { createSeededRng, RULE_DURATIONS, seatView } from '@dominoes/rules';
import type { IntentEnvelope } from '@dominoes/protocol';
import { lobbyEntry, lobbyUpdateOf } from '../src/table/lobby-feed';
import { decide, openTable, type PolicyContext } from '../src/table/table-policy';
import type { TableState } from '../src/table/table-state';
import { accepted, policyEnvelopes } from './support/policy-intents';
import { lobbyTable } from '../../../libs/protocol/test/support/lobby-table';

const ctx: PolicyContext = { now: 1_000_000, rng: createSeededRng(3), durations: RULE_DURATIONS };
const envelope = policyEnvelopes('ABCDEFGHJKMN', 'i');
const step = (table: TableState, e: IntentEnvelope): TableState => {
  const d = accepted(decide(table, e, ctx));
  return { ...d.table, version: table.version + d.events.length };
};
const open = (isPublic: boolean | undefined): TableState => {
  const config = {
    variant: 'draw' as const,
    seats: 2,
    ...(isPublic === undefined ? {} : { public: isPublic }),
  };
  const d = accepted(
    openTable('ABCDEFGHJKMN', { id: 'p0', name: 'Ann' }, config, 'c0', {
      now: 5_000,
      waitingTableTtlMs: 60_000,
    }),
  );
  return { ...d.table, version: d.events.length };
};

describe('the lobby feed: what a stored change publishes (issue 12, decision 0019)', () => {
  it('a private table (the default, or public: false) never makes a lobby update, whatever happens to it', () => {
    for (const choice of [undefined, false]) {
      const opened = open(choice);
      expect(opened.public).toBe(false);
      expect(lobbyEntry(opened)).toBeNull();
      expect(lobbyUpdateOf(null, opened)).toBeNull();
      const joined = step(opened, envelope('p1', { kind: 'join' }, 'c1'));
      expect(joined.status).toBe('playing');
      expect(lobbyUpdateOf(opened, joined)).toBeNull();
    }
  });

  it('a public table: listed when opened (host, seats, opened at), updated when a seat is taken and the match starts (P3: the next free seat)', () => {
    const opened = open(true);
    expect(lobbyUpdateOf(null, opened)).toEqual({
      tableId: 'ABCDEFGHJKMN',
      version: opened.version,
      table: lobbyTable({ openedAt: 5_000, version: opened.version }),
    });
    const joined = step(opened, envelope('p1', { kind: 'join' }, 'c1'));
    expect(lobbyUpdateOf(opened, joined)?.table).toMatchObject({ status: 'playing', players: ['Ann', 'p1'] });
  });

  it('a move, a presence change or a sync of a public table publishes nothing (the hot path stays as it was)', () => {
    const playing = step(open(true), envelope('p1', { kind: 'join' }, 'c1'));
    const seat = seatView(playing.match!, 0).turn!;
    const action = seatView(playing.match!, seat).legal[0]!;
    const moved = step(playing, envelope(seat === 0 ? 'p0' : 'p1', { kind: 'action', action }));
    expect(moved.version).toBeGreaterThan(playing.version);
    expect(lobbyUpdateOf(playing, moved)).toBeNull();
    const away = step(playing, envelope('p1', { kind: 'presence', connected: false }, 'c1'));
    expect(lobbyUpdateOf(playing, away)).toBeNull();
  });

  it('a public table leaves the lobby (table: null) when its last seated player leaves before the start', () => {
    const opened = open(true);
    const left = step(opened, envelope('p0', { kind: 'leave' }, 'c0'));
    expect(left.seats.every((s) => s === null)).toBe(true);
    expect(lobbyUpdateOf(opened, left)).toEqual({
      tableId: 'ABCDEFGHJKMN',
      version: left.version,
      table: null,
    });
  });
});

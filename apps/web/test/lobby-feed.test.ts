import { LOBBY_MAX_TABLES, type LobbyTable } from '@dominoes/protocol';
import { applyLobbyUpdate, sortLobby, type LobbyState } from '../src/lobby-feed';
import { lobbyTable } from '../../../libs/protocol/test/support/lobby-table';

const table = (id: string, over: Partial<LobbyTable> = {}): LobbyTable =>
  lobbyTable({ tableId: id.padEnd(12, 'A'), openedAt: 1_000, ...over });
const state = (tables: LobbyTable[], yours: LobbyTable[] = []): LobbyState => ({
  status: 'live',
  tables: sortLobby(tables),
  counts: {
    waiting: tables.filter((t) => t.status === 'waiting').length,
    playing: tables.filter((t) => t.status === 'playing').length,
  },
  yours,
  offsetMs: 0,
});

describe('the page’s lobby: the whole lobby, then one update per change (issue 12, decision 0019)', () => {
  it('lists waiting tables oldest first, then tables in play newest first', () => {
    const s = state([
      table('B', { openedAt: 2 }),
      table('P', { status: 'playing', openedAt: 1 }),
      table('A', { openedAt: 1 }),
      table('Q', { status: 'playing', openedAt: 5 }),
    ]);
    expect(s.tables.map((t) => t.tableId[0])).toEqual(['A', 'B', 'Q', 'P']);
  });

  it('a newer version replaces a table (and moves it to "in play"); an older one changes nothing; null removes it from the lists and from your tables', () => {
    const mine = table('M');
    let s = state([table('X'), mine], [mine]);
    s = applyLobbyUpdate(s, {
      tableId: mine.tableId,
      version: 5,
      table: { ...mine, version: 5, status: 'playing', players: ['Ann', 'Bo'] },
    });
    expect(s.tables.find((t) => t.tableId === mine.tableId)?.status).toBe('playing');
    expect(s.yours[0]?.players).toEqual(['Ann', 'Bo']);
    expect(s.counts).toEqual({ waiting: 1, playing: 1 });
    const older = applyLobbyUpdate(s, { tableId: mine.tableId, version: 4, table: { ...mine, version: 4 } });
    expect(older).toBe(s);
    s = applyLobbyUpdate(s, { tableId: mine.tableId, version: 9, table: null });
    expect(s.tables.map((t) => t.tableId)).toEqual([table('X').tableId]);
    expect(s.yours).toEqual([]);
    expect(s.counts).toEqual({ waiting: 1, playing: 0 });
  });

  it(`stays bounded: a new table beyond ${LOBBY_MAX_TABLES} listed is counted, not listed`, () => {
    const full = state(
      Array.from({ length: LOBBY_MAX_TABLES }, (_, i) => table(`T${String(i).padStart(2, '0')}`)),
    );
    const next = applyLobbyUpdate(full, {
      tableId: 'NEWTABLEAAAA',
      version: 1,
      table: table('NEWTABLE', { version: 1 }),
    });
    expect(next.tables).toHaveLength(LOBBY_MAX_TABLES);
    expect(next.counts.waiting).toBe(LOBBY_MAX_TABLES + 1);
  });
});

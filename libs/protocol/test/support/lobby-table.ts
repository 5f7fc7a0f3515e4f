import type { LobbyTable } from '@dominoes/protocol';

/**
 * A lobby row for tests (issue 12, decision 0019): a public two-seat draw game to 100, Ann hosting and
 * waiting for a second player; `over` changes any field.
 */
export const lobbyTable = (over: Partial<LobbyTable> = {}): LobbyTable => ({
  tableId: 'ABCDEFGHJKMN',
  variant: 'draw',
  seatCount: 2,
  target: 100,
  oneRound: false,
  status: 'waiting',
  players: ['Ann', null],
  host: 'Ann',
  openedAt: 1_700_000_000_000,
  version: 2,
  public: true,
  ...over,
});

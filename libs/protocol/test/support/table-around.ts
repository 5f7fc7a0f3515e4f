import type { TableView } from '@dominoes/protocol';

/** What every view of a table shows around its game (a playing partnership table), for the tests. */
export function tableAround(
  seats: TableView['seats'] = [null, null, null, null],
  clock: TableView['clock'] = null,
): Omit<TableView, 'you' | 'game' | 'watchers'> {
  return {
    tableId: 'KQ7MZPABCDEF',
    variant: 'partnership',
    seatCount: 4,
    target: 100,
    oneRound: false,
    status: 'playing',
    hostSeat: 0,
    seats,
    matchNumber: 1,
    clock,
  };
}

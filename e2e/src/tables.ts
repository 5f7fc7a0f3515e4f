import type { TableView } from '@dominoes/protocol';
import { autoplay } from './autoplay';
import { seatPlayers, type TestPlayer } from './players';
import { readLog, replayLog } from './stored-log';
import type { TestSystem } from './system';

export interface PlayingTable {
  readonly tableId: string;
  readonly players: TestPlayer[];
  readonly acked: string[];
  finished: Promise<TableView>;
}

/** Seats `count` partnership tables, players spread over the gateways, each keeping its seat across failures. */
export async function seatTables(
  system: TestSystem,
  count: number,
  gateways: number,
  target = 50,
): Promise<PlayingTable[]> {
  const wsUrls = () =>
    Array.from({ length: gateways }, (_, g) => `${system.gatewayUrl(g).replace('http', 'ws')}/ws`);
  const tables: PlayingTable[] = [];
  const batch = 10;
  for (let start = 0; start < count; start += batch) {
    const seated = await Promise.all(
      Array.from({ length: Math.min(batch, count - start) }, (_, k) => {
        const t = start + k;
        return seatPlayers(
          system,
          [0, 1, 2, 3].map((i) => `T${t}P${i}`),
          { variant: 'partnership', target },
          (i) => wsUrls()[(t + i) % gateways]!,
        );
      }),
    );
    for (const { players, tableId } of seated) {
      for (const p of players) {
        p.keepSeat(tableId, wsUrls);
        p.recordViews = false; // only the errors and the last view are checked
      }
      tables.push({ tableId, players, acked: [], finished: Promise.resolve(null as unknown as TableView) });
    }
  }
  return tables;
}

/** Every table plays its match to the end; `thinkMs` before each move (see autoplay). */
export function playAll(tables: PlayingTable[], timeoutMs: number, thinkMs?: number): void {
  tables.forEach((table, i) => {
    table.finished = autoplay(table.players, 1000 + i, (v) => v.status === 'finished', {
      timeoutMs,
      thinkMs,
      onActionAck: (id) => table.acked.push(id),
    });
  });
}

/** Error frames the players were sent, by code. */
export function errorCodes(tables: PlayingTable[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const t of tables)
    for (const p of t.players)
      for (const f of p.frames) if (f.type === 'error') counts[f.code] = (counts[f.code] ?? 0) + 1;
  return counts;
}

/** For every table: the stored log replays to the scores shown; every ack is stored; nothing stored twice. */
export async function checkStored(system: TestSystem, tables: PlayingTable[]): Promise<void> {
  for (const table of tables) {
    const shown = (await table.finished).game!.matchResult!;
    const log = await readLog(system.databaseUrlOf(table.tableId), table.tableId);
    const [replayed] = replayLog(log);
    if (JSON.stringify(replayed!.scores) !== JSON.stringify(shown.scores)) {
      throw new Error(
        `${table.tableId}: replay ${JSON.stringify(replayed!.scores)} but shown ${JSON.stringify(shown.scores)}`,
      );
    }
    const stored = log.map((r) => r.intent_id).filter((id): id is string => id !== null);
    if (new Set(stored).size !== stored.length)
      throw new Error(`${table.tableId}: an intent is stored twice`);
    const missing = table.acked.filter((id) => !stored.includes(id));
    if (missing.length > 0)
      throw new Error(`${table.tableId}: acknowledged but not stored: ${missing.join(', ')}`);
    // Every player, on whichever gateway, was shown the same final table.
    const boards = new Set(
      table.players.map((p) => JSON.stringify([p.view!.game!.scores, p.view!.game!.history])),
    );
    if (boards.size !== 1) throw new Error(`${table.tableId}: players were shown different results`);
  }
}

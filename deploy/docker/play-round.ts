/**
 * One partnership round played through a gateway that runs in a container (the image's, the compose stack's),
 * with real WebSocket clients, as the end-to-end suites play through processes.
 */
import type { TableView } from '@dominoes/protocol';
import type { Tile } from '@dominoes/rules';
import { autoplay } from '../../e2e/src/autoplay';
import { leakedTiles } from '../../e2e/src/hidden-tiles';
import { seatPlayers, type PlayerEndpoints } from '../../e2e/src/players';
import { readLog, type LogRow } from '../../e2e/src/stored-log';

export interface PlayedRound {
  readonly tableId: string;
  /** The host's view once the round was scored. */
  readonly view: TableView;
  /** The table's stored log (Postgres). */
  readonly log: readonly LogRow[];
  /** Tiles of another seat's hand that some frame showed before the reveal (P12): must be none. */
  readonly leaked: readonly Tile[];
  readonly frames: number;
}

export const gatewayAt = (baseUrl: string): PlayerEndpoints => ({
  httpUrl: baseUrl,
  wsUrl: `${baseUrl.replace(/^http/, 'ws')}/ws`,
});

/**
 * Seats four players at a new partnership table through `gateway` and plays one round to its score;
 * the players are closed after. Returns the host's last view and every frame the four were sent.
 */
export async function playRoundOnNewTable(
  gateway: PlayerEndpoints,
  seed: number,
): Promise<{ tableId: string; view: TableView; views: TableView[] }> {
  const { players, tableId } = await seatPlayers(gateway, ['Amira', 'Bassam', 'Chloe', 'Dimitar'], {
    variant: 'partnership',
    target: 100,
  });
  try {
    const view = await autoplay(players, seed, (v) => (v.game?.roundResult ?? null) !== null, {
      cutBreaks: false,
      timeoutMs: 120_000,
    });
    return { tableId, view, views: players.flatMap((p) => p.views()) };
  } finally {
    for (const p of players) p.close();
  }
}

export async function playPartnershipRound(
  gateway: PlayerEndpoints,
  databaseUrl: string,
  seed: number,
): Promise<PlayedRound> {
  const { tableId, view, views } = await playRoundOnNewTable(gateway, seed);
  const log = await readLog(databaseUrl, tableId);
  const leaked = views.flatMap((v) => leakedTiles(v, log));
  return { tableId, view, log, leaked, frames: views.length };
}

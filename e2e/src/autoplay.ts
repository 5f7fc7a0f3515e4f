import { createSeededRng, type Rng } from '@dominoes/rules';
import { intentIds, type Ack, type TableView } from '@dominoes/protocol';
import type { TestPlayer } from './players';

/** Sends a legal action chosen at random from the player's own view, as a person would. */
export function sendRandomLegal(player: TestPlayer, view: TableView, rng: Rng): Promise<Ack> | null {
  const legal = view.game?.legal ?? [];
  if (legal.length === 0) return null;
  return player.client.act(legal[rng.below(legal.length)]!);
}

/**
 * Every player plays random legal moves whenever its view says it is its turn; the host cuts
 * each break short. Resolves when `done` holds for the host's view.
 */
export function autoplay(
  players: TestPlayer[],
  seed: number,
  done: (view: TableView) => boolean,
  options: {
    cutBreaks?: boolean;
    timeoutMs?: number;
    onActionAck?: (intentId: string) => void;
    /**
     * Think time before each move, uniform in [thinkMs / 2, thinkMs * 1.5). Without it every table
     * plays as fast as the system answers, and a test process that checks every frame of hundreds
     * of tables falls behind and runs out of heap.
     */
    thinkMs?: number;
  } = {},
): Promise<TableView> {
  const rng = createSeededRng(seed);
  /** The version each player last acted on, and on which connection: after a reconnect it looks again. */
  const acted = new Map<TestPlayer, { version: number; reconnects: number }>();
  const mark = (player: TestPlayer, version: number) =>
    acted.set(player, { version, reconnects: player.reconnects });
  const offs: (() => void)[] = [];
  return new Promise<TableView>((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error('autoplay timed out')), options.timeoutMs ?? 120_000);
    // A test that failed without waiting for the match must not be held open by this timer until then.
    timer.unref();
    const finish = (error: Error | null, view?: TableView) => {
      clearTimeout(timer);
      for (const off of offs) off();
      if (error) reject(error);
      else resolve(view!);
    };
    const act = (player: TestPlayer, view: TableView, version: number) => {
      if (done(view)) return finish(null, view);
      const last = acted.get(player);
      if (last && last.version >= version && last.reconnects === player.reconnects) return;
      const game = view.game;
      if (
        game?.phase === 'between-rounds' &&
        options.cutBreaks !== false &&
        view.hostSeat === view.you.seat
      ) {
        mark(player, version);
        void player.client.startRound().catch(() => undefined);
        return;
      }
      if (game?.phase !== 'playing' || game.turn !== view.you.seat) return;
      mark(player, version);
      void sendRandomLegal(player, view, rng)
        ?.then((ack) => options.onActionAck?.(intentIds.player(player.playerId, ack.id)))
        .catch(() => undefined);
    };
    for (const player of players) {
      const later = (fn: () => void) =>
        options.thinkMs ? setTimeout(fn, options.thinkMs * (0.5 + rng.fraction())) : setImmediate(fn);
      offs.push(player.onView((view, version) => later(() => act(player, view, version))));
      if (player.view) act(player, player.view, player.client.version);
    }
  });
}

import { intentIds, ProtocolError, type TableView } from '@dominoes/protocol';
import { createSeededRng, type Action, type SeededRng } from '@dominoes/rules';
import type { TestPlayer } from '../src/players';

/** What a player was told about one intent it sent. */
export type Outcome =
  /** An ack: the intent must be in the log, once. */
  | 'acked'
  /** An error frame that says it was not applied: it must not be in the log. */
  | 'refused'
  /**
   * No answer that says either: the socket closed before the reply (a gateway killed), the
   * client's own timeout, or the gateway's "the outcome could not be confirmed". Not checked.
   */
  | 'unknown';

export interface SentIntent {
  readonly intentId: string;
  readonly kind: string;
  readonly at: number;
  outcome: Outcome | 'pending';
  code?: string;
}

/** A view a player was shown, kept to compare with the stored log (the views that end a match, and the last). */
export interface ShownView {
  readonly seat: number;
  readonly version: number;
  readonly matchNumber: number;
  readonly game: NonNullable<TableView['game']>;
}

/** The gateway's UNAVAILABLE after a timeout when it could not ask Postgres either (apps/gateway intent.service). */
const UNCONFIRMED = /could not be confirmed/;

export function classify(error: unknown): { outcome: Outcome; code: string } {
  if (!(error instanceof ProtocolError)) return { outcome: 'unknown', code: String(error) };
  if (error.code === 'CLOSED' || error.code === 'TIMEOUT') return { outcome: 'unknown', code: error.code };
  if (error.code === 'UNAVAILABLE' && UNCONFIRMED.test(error.message))
    return { outcome: 'unknown', code: 'UNAVAILABLE_UNCONFIRMED' };
  return { outcome: 'refused', code: error.code };
}

/** The table's game position as the players see it: it changes when the table moves (not on presence). */
const position = (view: TableView) =>
  `${view.status}:${view.matchNumber}:${view.game?.roundNumber ?? -1}:${view.game?.phase ?? '-'}:${view.game?.log.length ?? -1}`;

/**
 * One table played by its four players for as long as the chaos runs, match after match, the way
 * people play: each acts on its own view after a think time; after an error it looks again and
 * tries again (a new intent id: the answer said "not applied"); once in a while one thinks past
 * the turn clock, so the table's deadlines play too. The host cuts breaks short and starts the
 * next match. Every intent sent and what the player was told is kept, with the times the table moved.
 */
export class ChaosTable {
  readonly sent: SentIntent[] = [];
  readonly shown: ShownView[] = [];
  /** When any player of the table first saw a new position (ms since epoch). */
  readonly moves: number[] = [];
  private stopped = false;
  private readonly rng: SeededRng;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private lastPosition = '';
  private lastVersion = -1;
  private readonly offs: (() => void)[] = [];
  private readonly finishSeen = new Set<string>();

  constructor(
    readonly tableId: string,
    readonly players: TestPlayer[],
    seed: number,
    private readonly options: { thinkMs: number; slowMs: number; slowShare: number },
  ) {
    this.rng = createSeededRng(seed);
  }

  start(): void {
    for (const player of this.players) {
      this.offs.push(player.onView((view, version) => this.seen(view, version)));
      this.schedule(player);
    }
  }

  /** Players stop sending; resolves when every intent sent has its answer. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.inFlight]);
  }

  detach(): void {
    for (const off of this.offs) off();
  }

  private seen(view: TableView, version: number): void {
    // A newer version than any player of the table saw, at another position (a presence change is not a move).
    if (version > this.lastVersion) {
      this.lastVersion = version;
      const at = position(view);
      if (at !== this.lastPosition) {
        this.lastPosition = at;
        this.moves.push(Date.now());
      }
    }
    // The views that end a match: the result the players were shown.
    if (view.status === 'finished' && view.game?.matchResult?.finished) {
      const key = `${view.matchNumber}:${view.you.seat}`;
      if (!this.finishSeen.has(key)) {
        this.finishSeen.add(key);
        this.shown.push({ seat: view.you.seat, version, matchNumber: view.matchNumber, game: view.game });
      }
    }
  }

  private schedule(player: TestPlayer): void {
    if (this.stopped) return;
    const slow = this.rng.fraction() < this.options.slowShare;
    const delay = slow ? this.options.slowMs : this.options.thinkMs * (0.5 + this.rng.fraction());
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.act(player);
    }, delay);
    this.timers.add(timer);
  }

  private act(player: TestPlayer): void {
    if (this.stopped) return;
    const view = player.view;
    const request = view ? this.choose(view) : null;
    if (!request) return this.schedule(player);
    const intentId = player.client.nextId();
    const record: SentIntent = {
      intentId: intentIds.player(player.playerId, intentId),
      kind: typeof request === 'string' ? request : request.type,
      at: Date.now(),
      outcome: 'pending',
    };
    this.sent.push(record);
    const sending =
      typeof request === 'string'
        ? player.client.request(request, {}, intentId)
        : player.client.act(request, intentId);
    const done = sending
      .then(
        () => {
          record.outcome = 'acked';
        },
        (error: unknown) => {
          const { outcome, code } = classify(error);
          record.outcome = outcome;
          record.code = code;
        },
      )
      .finally(() => {
        this.inFlight.delete(done);
        this.schedule(player);
      });
    this.inFlight.add(done);
  }

  /** What this player does now, on its own view: a random legal move, the host's break cut, or the next match. */
  private choose(view: TableView): Action | 'newMatch' | 'startRound' | null {
    const host = view.hostSeat === view.you.seat;
    if (view.status === 'finished') return host ? 'newMatch' : null;
    const game = view.game;
    if (game?.phase === 'between-rounds') return host ? 'startRound' : null;
    if (game?.phase !== 'playing' || game.turn !== view.you.seat || game.legal.length === 0) return null;
    return game.legal[this.rng.below(game.legal.length)]!;
  }

  /** After the players stopped: each player's latest view (a sync asks for it again) for the final comparison. */
  async lastViews(): Promise<void> {
    for (const player of this.players) {
      await player.client.sync().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 500));
    for (const player of this.players) {
      const view = player.view;
      if (view?.game)
        this.shown.push({
          seat: view.you.seat,
          version: player.client.version,
          matchNumber: view.matchNumber,
          game: view.game,
        });
    }
  }
}

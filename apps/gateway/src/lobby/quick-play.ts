import { randomBytes } from 'node:crypto';
import { intentIds, type CreateTableRequest, type QuickPlayRequest } from '@dominoes/protocol';
import { createMatch } from '@dominoes/rules';
import type { Clock, Logger } from '@dominoes/platform';
import { ApiError } from '../http/errors';
import type { IntentService } from '../intents/intent.service';
import type { LobbyReader } from './lobby-reader';

/** Tables tried, oldest first, before a new one is opened (another may fill one meanwhile). */
const CANDIDATES = 5;
/** How long one quick play may hold its configuration's lock (the join or create included). */
const LOCK_MS = 15_000;
/** A join that did not seat the player because the table moved on: try the next one. */
const TRY_NEXT = new Set(['TABLE_FULL', 'TABLE_CLOSED', 'NOT_ALLOWED_NOW', 'TABLE_NOT_FOUND']);

export interface QuickPlayOutcome {
  readonly tableId: string;
  readonly seat: number;
  readonly created: boolean;
}

/** Opens a new table for the player (the API's create path: its rate limit, its codes, its host limit). */
export type OpenTable = (config: CreateTableRequest) => Promise<{ tableId: string }>;

/**
 * Quick play (issue 12, decision 0019): the player is seated at the oldest waiting public table of the
 * configuration that has a free seat (P3: seats by arrival), or a new public table is opened for them.
 * One configuration's quick plays run one at a time on every gateway: each holds a Postgres advisory
 * lock of the configuration while it searches and joins or opens, and the next search, after it,
 * sees the seat taken or the table opened (both are stored before the table-service replies). So two
 * players who press at the same moment end at the same table, never at two half-empty ones.
 */
export class QuickPlay {
  constructor(
    private readonly intents: IntentService,
    private readonly reader: LobbyReader,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * `connectionId`: the socket that asked (its connection sits on the seat from the start, so a table
   * this fills starts with the seat connected: P17's short turn is for seats that are away), or null
   * (HTTP: the page's join connects the seat next).
   */
  async play(
    player: { id: string; name: string },
    request: QuickPlayRequest,
    open: OpenTable,
    connectionId: string | null = null,
  ): Promise<QuickPlayOutcome> {
    // The rules say what the configuration is (defaults filled in), and refuse a bad one.
    const checked = createMatch({ variant: request.variant, seats: request.seats, target: request.target });
    if (!checked.ok) throw new ApiError(400, checked.error.code, checked.error.message);
    const { variant, seats, target } = checked.value.config;
    const config = { variant, seatCount: seats, target };
    try {
      return await this.reader.queries.withQuickPlayLock(
        config,
        async (search) => {
          for (const tableId of await search.candidates(player.id, CANDIDATES)) {
            const seat = await this.join(player, tableId, connectionId);
            if (seat !== null) return { tableId, seat, created: false };
          }
          const { tableId } = await open({ variant, seats, target, public: true });
          return { tableId, seat: 0, created: true };
        },
        LOCK_MS,
      );
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // The lock waited past the statement timeout, or Postgres is away.
      this.logger.warn({ err: error, player: player.id, variant }, 'quick play failed');
      throw new ApiError(503, 'UNAVAILABLE', 'Quick play is busy right now; try again.');
    }
  }

  /** Takes the next free seat of `tableId` (P3); null when it has none any more. */
  private async join(
    player: { id: string; name: string },
    tableId: string,
    connectionId: string | null,
  ): Promise<number | null> {
    const outcome = await this.intents.request({
      intentId: intentIds.player(player.id, `qp-${randomBytes(6).toString('hex')}`),
      tableId,
      player,
      connectionId,
      replyTo: this.intents.replyChannel,
      sentAt: this.clock.now(),
      intent: { kind: 'join' },
    });
    if (outcome.ok) return outcome.reply.seat;
    if (TRY_NEXT.has(outcome.code)) return null;
    const status = outcome.code === 'UNAVAILABLE' ? 503 : 400;
    throw new ApiError(status, outcome.code, outcome.message);
  }
}

import { randomInt } from 'node:crypto';
import {
  intentIds,
  TABLE_CODE_ALPHABET,
  TABLE_CODE_LENGTH,
  type CreateTableRequest,
  type CreateTableResponse,
} from '@dominoes/protocol';
import type { Clock, Logger } from '@dominoes/platform';
import { ApiError } from '../http/errors';
import type { IntentService } from '../intents/intent.service';

/** A join code: TABLE_CODE_LENGTH characters of TABLE_CODE_ALPHABET from the crypto RNG. */
export function newTableCode(): string {
  let code = '';
  for (let i = 0; i < TABLE_CODE_LENGTH; i++) {
    code += TABLE_CODE_ALPHABET[randomInt(TABLE_CODE_ALPHABET.length)];
  }
  return code;
}

/** Codes drawn for one table: the table-service refuses a `create` whose code exists with TABLE_CODE_TAKEN. */
const CODE_ATTEMPTS = 5;

/**
 * Opens a table for a player (POST /api/tables, and quick play over HTTP or a socket): a `create`
 * intent per code drawn until one is free. `connectionId`: the socket the host sits with (quick play
 * on a socket), or null (HTTP: the page's join connects the seat).
 */
export class TableOpener {
  constructor(
    private readonly intents: IntentService,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly publicUrl: string,
  ) {}

  async open(
    player: { id: string; name: string },
    config: CreateTableRequest,
    connectionId: string | null = null,
  ): Promise<CreateTableResponse> {
    for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
      const code = newTableCode();
      const outcome = await this.intents.request({
        intentId: intentIds.create(player.id, code),
        tableId: code,
        player,
        connectionId,
        replyTo: this.intents.replyChannel,
        sentAt: this.clock.now(),
        intent: { kind: 'create', config },
      });
      if (outcome.ok) {
        this.logger.info({ player: player.id, tableId: code, variant: config.variant }, 'table created');
        return { tableId: code, link: `${this.publicUrl}/t/${code}` };
      }
      if (outcome.code === 'TABLE_CODE_TAKEN') continue;
      this.logger.info({ player: player.id, code: outcome.code }, 'table not created');
      // TOO_MANY_TABLES: the host has MAX_OPEN_TABLES_PER_HOST open tables already (table-service).
      const status = outcome.code === 'UNAVAILABLE' ? 503 : outcome.code === 'TOO_MANY_TABLES' ? 429 : 400;
      throw new ApiError(status, outcome.code, outcome.message);
    }
    throw new ApiError(503, 'UNAVAILABLE', 'No free table code was found; try again.');
  }
}

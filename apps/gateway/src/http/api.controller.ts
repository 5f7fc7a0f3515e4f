import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import {
  CreateTableRequestSchema,
  describeIssues,
  IdentityRequestSchema,
  QuickPlayRequestSchema,
  type CreateTableRequest,
  type CreateTableResponse,
  type IdentityResponse,
  type QuickPlayResponse,
  type TableSummary,
} from '@dominoes/protocol';
import { createMatch, HOST_TARGETS_TEXT, RULE_SETS, VARIANTS } from '@dominoes/rules';
import type { Clock, Logger } from '@dominoes/platform';
import { playerOfBearer } from '../auth/bearer';
import { signToken } from '../auth/tokens';
import type { GatewayConfig } from '../config';
import { CLOCK, GATEWAY_CONFIG, LOGGER } from '../di';
import { TableReader } from '../tables/table-reader';
import { QuickPlay } from '../lobby/quick-play';
import { TableOpener } from '../lobby/table-opener';
import { ApiError } from './errors';
import { HttpLimits } from './http-limits';

/** Join codes are drawn where tables are opened (TableOpener). */
export { newTableCode } from '../lobby/table-opener';

/** The rules' seat counts in words: "2 to 4; 4 for partnership". */
const SEAT_COUNTS_TEXT = ((): string => {
  const sets = VARIANTS.map((v) => RULE_SETS[v]);
  const range = `${Math.min(...sets.map((r) => r.minSeats))} to ${Math.max(...sets.map((r) => r.maxSeats))}`;
  const fixed = sets.filter((r) => r.minSeats === r.maxSeats).map((r) => `${r.minSeats} for ${r.variant}`);
  return [range, ...fixed].join('; ');
})();

/** The rules' variants in words: "'partnership', 'draw' or 'five-tile'". */
const VARIANTS_TEXT = ((): string => {
  const quoted = VARIANTS.map((v) => `'${v}'`);
  return `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
})();

/** Which error code a failed check of the create-table body gets: the field decides. */
function createTableError(
  issues: readonly { path: readonly PropertyKey[]; code: string }[],
  body: unknown,
): ApiError {
  const field = issues.find((issue) => issue.path.length > 0)?.path[0];
  if (field === 'target') {
    const got =
      body && typeof body === 'object'
        ? JSON.stringify((body as Record<string, unknown>)['target'])
        : 'nothing';
    return new ApiError(
      400,
      'INVALID_TARGET',
      `The target must be a whole number ${HOST_TARGETS_TEXT}; got ${got}.`,
    );
  }
  if (field === 'seats')
    return new ApiError(400, 'INVALID_SEAT_COUNT', `seats must be a whole number (${SEAT_COUNTS_TEXT}).`);
  if (field === 'variant') return new ApiError(400, 'INVALID_CONFIG', `variant must be ${VARIANTS_TEXT}.`);
  if (field === 'oneRound') return new ApiError(400, 'INVALID_CONFIG', 'oneRound must be true or false.');
  if (field === 'public')
    return new ApiError(
      400,
      'INVALID_CONFIG',
      'public must be true (listed in the lobby) or false (private).',
    );
  return new ApiError(
    400,
    'INVALID_MESSAGE',
    'The body must be a JSON object with variant, target, seats, oneRound.',
  );
}

@Controller('api')
export class ApiController {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(TableReader) private readonly tables: TableReader,
    @Inject(HttpLimits) private readonly limits: HttpLimits,
    @Inject(QuickPlay) private readonly quickPlay: QuickPlay,
    @Inject(TableOpener) private readonly opener: TableOpener,
  ) {}

  /** Limited per client address (RATE_LIMIT_IDENTITIES); a refused body does not count. */
  @Post('identity')
  @HttpCode(200)
  async identity(@Req() req: IncomingMessage, @Body() body: unknown): Promise<IdentityResponse> {
    const parsed = IdentityRequestSchema.safeParse(body);
    if (!parsed.success) throw new ApiError(400, 'INVALID_MESSAGE', describeIssues(parsed.error, body));
    await this.limits.take('identity', this.limits.addressOf(req));
    const playerId = randomUUID();
    const name = parsed.data.name;
    const token = signToken({ pid: playerId, name }, this.config.tokenSecret, this.clock.now());
    this.logger.info({ player: playerId }, 'identity issued');
    return { token, playerId, name };
  }

  /** Limited per client address (RATE_LIMIT_TABLES); a refused token or configuration does not count. */
  @Post('tables')
  @HttpCode(201)
  async createTable(
    @Req() req: IncomingMessage,
    @Headers('authorization') authorization: string | undefined,
    @Body() body: unknown,
  ): Promise<CreateTableResponse> {
    const player = this.authenticate(authorization);
    const parsed = CreateTableRequestSchema.safeParse(body ?? {});
    if (!parsed.success) throw createTableError(parsed.error.issues, body);
    const config: CreateTableRequest = parsed.data;
    // The rules have the last word (the table-service checks again); refusing here saves a round trip.
    const check = createMatch({
      variant: config.variant,
      seats: config.seats,
      target: config.target,
      oneRound: config.oneRound,
    });
    if (!check.ok) throw new ApiError(400, check.error.code, check.error.message);
    await this.limits.take('table', this.limits.addressOf(req));
    return this.open(player, config);
  }

  /**
   * Quick play (issue 12): a seat at the oldest waiting public table of the configuration, or a new
   * public table, opened as POST /api/tables opens one (its rate limit and host limit apply); the
   * requests themselves are limited per address too (RATE_LIMIT_QUICK_PLAYS).
   */
  @Post('quick-play')
  @HttpCode(200)
  async quick(
    @Req() req: IncomingMessage,
    @Headers('authorization') authorization: string | undefined,
    @Body() body: unknown,
  ): Promise<QuickPlayResponse> {
    const player = this.authenticate(authorization);
    const parsed = QuickPlayRequestSchema.safeParse(body ?? {});
    if (!parsed.success) throw createTableError(parsed.error.issues, body);
    // Each search holds its configuration's lock: a flood from one address must not keep it from others.
    await this.limits.take('quick-play', this.limits.addressOf(req));
    const seated = await this.quickPlay.play(player, parsed.data, async (config) => {
      await this.limits.take('table', this.limits.addressOf(req));
      return this.open(player, config);
    });
    this.logger.info({ player: player.id, tableId: seated.tableId, created: seated.created }, 'quick play');
    return { ...seated, link: `${this.config.publicUrl}/t/${seated.tableId}` };
  }

  /** Opens a table for `player` with `config` (TableOpener: codes drawn until one is free). */
  private open(
    player: { id: string; name: string },
    config: CreateTableRequest,
  ): Promise<CreateTableResponse> {
    return this.opener.open(player, config);
  }

  /**
   * Failed lookups (404) are limited per client address (RATE_LIMIT_LOOKUP_MISSES), so codes cannot
   * be guessed quickly. Each lookup takes a slot first (so parallel guesses cannot overrun the limit)
   * and one that finds its table gives it back.
   */
  @Get('tables/:code')
  async getTable(@Req() req: IncomingMessage, @Param('code') code: string): Promise<TableSummary> {
    const address = this.limits.addressOf(req);
    await this.limits.take('lookup-miss', address);
    let summary: TableSummary | null;
    try {
      summary = await this.tables.summary(code);
    } catch (error) {
      await this.limits.refund('lookup-miss', address);
      this.logger.error({ err: error }, 'table summary: Postgres failed');
      throw new ApiError(503, 'UNAVAILABLE', 'Tables cannot be read right now; try again.');
    }
    if (!summary) throw new ApiError(404, 'TABLE_NOT_FOUND', `There is no table ${code.slice(0, 16)}.`);
    await this.limits.refund('lookup-miss', address);
    return summary;
  }

  private authenticate(authorization: string | undefined): { id: string; name: string } {
    return playerOfBearer(authorization, this.config.tokenSecret, this.clock.now());
  }
}

import type { IncomingMessage } from 'node:http';
import { Controller, Get, Headers, Inject, Param, Query, Req } from '@nestjs/common';
import {
  MAX_MATCH_PAGE,
  parseMatchId,
  type MatchListResponse,
  type MatchReplayResponse,
} from '@dominoes/protocol';
import type { Clock, Logger } from '@dominoes/platform';
import { playerOfBearer } from '../auth/bearer';
import type { GatewayConfig } from '../config';
import { CLOCK, GATEWAY_CONFIG, LOGGER } from '../di';
import { MatchHistory } from '../tables/match-history';
import { ApiError } from './errors';
import { HttpLimits } from './http-limits';

const PAGE = /^[0-9]{1,4}$/;

/** `?page=` as a page number: absent is 0; anything but 0..MAX_MATCH_PAGE is refused. */
function pageOf(raw: unknown): number {
  if (raw === undefined) return 0;
  const page = typeof raw === 'string' && PAGE.test(raw) ? Number(raw) : NaN;
  if (!(page >= 0 && page <= MAX_MATCH_PAGE))
    throw new ApiError(400, 'INVALID_MESSAGE', `page must be a whole number from 0 to ${MAX_MATCH_PAGE}.`);
  return page;
}

const unavailable = () => new ApiError(503, 'UNAVAILABLE', 'Matches cannot be read right now; try again.');

/**
 * "Looking back" (issue 12): the token's player's matches, and the replay of a finished match at its
 * own shareable id. Reads only (the table-service is the only writer), through libs/platform's store.
 */
@Controller('api')
export class HistoryController {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(MatchHistory) private readonly history: MatchHistory,
    @Inject(HttpLimits) private readonly limits: HttpLimits,
  ) {}

  /** Only the token's player's matches: the player is the token's, never a parameter. */
  @Get('matches')
  async matches(
    @Headers('authorization') authorization: string | undefined,
    @Query('page') page: unknown,
  ): Promise<MatchListResponse> {
    const player = playerOfBearer(authorization, this.config.tokenSecret, this.clock.now());
    const wanted = pageOf(page);
    try {
      return await this.history.matchesOf(player.id, wanted);
    } catch (error) {
      this.logger.error({ err: error }, 'match list: Postgres failed');
      throw unavailable();
    }
  }

  /**
   * Anyone with a match's id may replay it once it is over. Ids that find nothing count toward the
   * lookup limit (RATE_LIMIT_LOOKUP_MISSES) as table codes do, so ids cannot be guessed quickly.
   */
  @Get('replays/:matchId')
  async replay(@Req() req: IncomingMessage, @Param('matchId') id: string): Promise<MatchReplayResponse> {
    const address = this.limits.addressOf(req);
    await this.limits.take('lookup-miss', address);
    const match = parseMatchId(id);
    if (!match) {
      throw new ApiError(
        400,
        'INVALID_MESSAGE',
        'A match id is a table code, "-" and the match number at that table, e.g. K7M2QXP4HT9R-1.',
      );
    }
    let replay: Awaited<ReturnType<MatchHistory['replay']>>;
    try {
      replay = await this.history.replay(match.tableId, match.number);
    } catch (error) {
      await this.limits.refund('lookup-miss', address);
      this.logger.error({ err: error }, 'replay: Postgres failed');
      throw unavailable();
    }
    if ('refused' in replay && replay.refused === 'not-found')
      throw new ApiError(404, 'MATCH_NOT_FOUND', `There is no match ${id}.`);
    await this.limits.refund('lookup-miss', address);
    if (!('refused' in replay)) return replay;
    if (replay.refused === 'not-over') {
      throw new ApiError(
        409,
        'MATCH_NOT_OVER',
        'This match is still being played: its replay (with every hand) opens when it ends.',
      );
    }
    this.logger.error({ matchId: id, problem: replay.message }, 'replay: the stored log does not replay');
    throw new ApiError(500, 'INTERNAL', `The stored log of this match does not replay: ${replay.message}`);
  }
}

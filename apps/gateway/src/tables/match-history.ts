import type { MatchHistoryQueries, PlayerMatchRow } from '@dominoes/platform';
import {
  matchId,
  MATCH_PAGE_SIZE,
  VariantSchema,
  type MatchListEntry,
  type MatchListResponse,
  type MatchOutcome,
  type MatchReplayResponse,
  type MatchStatus,
} from '@dominoes/protocol';
import { matchCaseOfLog, replayTimeline, rulesOf, type MatchOutput } from '@dominoes/rules';

/** Why a replay is not given: not stored, still being played, or a stored log the rules refuse. */
export type ReplayRefusal =
  | { readonly refused: 'not-found' }
  | { readonly refused: 'not-over' }
  | { readonly refused: 'not-replayable'; readonly message: string };

const statusOf = (row: PlayerMatchRow): MatchStatus =>
  row.finishedAt ? 'finished' : row.abandonedAt ? 'abandoned' : 'playing';

const iso = (at: Date | null): string | null => (at ? at.toISOString() : null);

function entryOf(row: PlayerMatchRow, playerId: string): MatchListEntry {
  const variant = VariantSchema.parse(row.variant);
  const sideOf = (seat: number) => rulesOf(variant).sideOf(seat);
  const seat = row.seats.indexOf(playerId);
  const status = statusOf(row);
  const names = row.seats.map((_, s) => row.names[s] ?? null);
  const others = names.map((name, s) => ({ name, s })).filter(({ s }) => s !== seat);
  const outcome: MatchOutcome =
    status !== 'finished'
      ? status
      : row.winnerSide === null
        ? 'drawn'
        : row.winnerSide === sideOf(seat)
          ? 'won'
          : 'lost';
  return {
    matchId: matchId(row.tableId, row.number),
    tableId: row.tableId,
    number: row.number,
    variant,
    target: row.target,
    oneRound: row.oneRound,
    players: names,
    seat,
    partners: others.filter(({ s }) => sideOf(s) === sideOf(seat)).map(({ name }) => name),
    opponents: others.filter(({ s }) => sideOf(s) !== sideOf(seat)).map(({ name }) => name),
    status,
    outcome,
    scores: row.scores,
    winnerSide: row.winnerSide,
    startedAt: row.startedAt.toISOString(),
    endedAt: iso(row.finishedAt ?? row.abandonedAt),
  };
}

/**
 * A player's matches and a match's replay, read through libs/platform's store and replayed through
 * libs/rules: the stored log as a match case (`matchCaseOfLog`), played as `npm run replay` plays it
 * (`replayTimeline`), so what the replay page shows is what the rules make of the log.
 */
export class MatchHistory {
  /** One database's MatchHistoryQueries, or every database's (ShardedMatchHistoryQueries: decision 0027). */
  constructor(private readonly queries: Pick<MatchHistoryQueries, 'matchesOf' | 'match' | 'matchLog'>) {}

  /** Page `page` of player `playerId`'s matches (the token's player: never anyone's by a parameter). */
  async matchesOf(playerId: string, page: number): Promise<MatchListResponse> {
    const rows = await this.queries.matchesOf(playerId, MATCH_PAGE_SIZE + 1, page * MATCH_PAGE_SIZE);
    return {
      matches: rows.slice(0, MATCH_PAGE_SIZE).map((row) => entryOf(row, playerId)),
      page,
      nextPage: rows.length > MATCH_PAGE_SIZE ? page + 1 : null,
    };
  }

  /** The replay of match `number` of table `tableId`, once it is over (finished or abandoned). */
  async replay(tableId: string, number: number): Promise<MatchReplayResponse | ReplayRefusal> {
    const row = await this.queries.match(tableId, number);
    if (!row) return { refused: 'not-found' };
    const status = statusOf(row);
    // A match in play keeps its hands hidden (P12): no replay until it is over.
    if (status === 'playing') return { refused: 'not-over' };
    const stored = matchCaseOfLog(await this.queries.matchLog(row.schema, tableId, number));
    if (!stored) return { refused: 'not-replayable', message: 'The stored log holds no dealt round.' };
    const timeline = replayTimeline(stored);
    if ('error' in timeline) return { refused: 'not-replayable', message: timeline.error.message };
    const output: MatchOutput = timeline.output;
    const rounds = stored.rounds.map((round, r) => {
      const summary = round.complete ? output.rounds[r] : undefined;
      return {
        ...round,
        points: summary?.points ?? null,
        winnerSide: summary ? (summary.winnerTeam ?? summary.winnerSeat ?? null) : null,
        scoresAfter: (timeline.rounds[r]?.at(-1)?.scores ?? output.scores).slice(),
      };
    });
    return {
      matchId: matchId(tableId, number),
      variant: VariantSchema.parse(stored.variant),
      seats: stored.seats,
      target: stored.target,
      oneRound: stored.oneRound,
      players: row.seats.map((_, s) => row.names[s] ?? null),
      status,
      startedAt: row.startedAt.toISOString(),
      endedAt: iso(row.finishedAt ?? row.abandonedAt),
      rounds,
      scores: output.scores,
      winnerSide: output.winnerTeam ?? output.winnerSeat ?? null,
    };
  }
}

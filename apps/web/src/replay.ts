import type { MatchReplayResponse } from '@dominoes/protocol';
import { replayTimeline, type LogEntry, type MatchState } from '@dominoes/rules';

/** One position of a replay: round `round` (from 0) after `move` of its `moves` moves (0: just dealt). */
export interface ReplayStep {
  readonly round: number;
  readonly move: number;
  readonly moves: number;
  readonly state: MatchState;
  /** The move that led here (null for the deal), with the tile a draw took: every tile is shown. */
  readonly entry: LogEntry | null;
}

/**
 * Every step of a replayed match, computed in the page by libs/rules from the match case the gateway
 * sent (the stored log as `npm run replay` reads it): the same rules, the same states. Null when the
 * rules refuse the case (they never should: the gateway replayed it too).
 */
export function replaySteps(replay: MatchReplayResponse): ReplayStep[] | null {
  const timeline = replayTimeline({
    variant: replay.variant,
    seats: replay.seats,
    target: replay.target,
    oneRound: replay.oneRound,
    rounds: replay.rounds.map(({ hands, stock, opener, actions, complete }) => ({
      hands,
      stock,
      opener,
      actions,
      complete,
    })),
  });
  if ('error' in timeline) return null;
  return timeline.rounds.flatMap((states, round) =>
    states.map((state, move) => ({
      round,
      move,
      moves: states.length - 1,
      state,
      entry: move > 0 ? (state.round?.log[move - 1] ?? null) : null,
    })),
  );
}

/** The index of the first step of the round before (`-1`) or after (`+1`) step `at`'s, kept in range. */
export function roundStart(steps: readonly ReplayStep[], at: number, direction: -1 | 1): number {
  const current = steps[at];
  if (!current) return 0;
  // Back: to the start of this round, or of the one before when already at its start.
  const wanted = direction === 1 ? current.round + 1 : current.move > 0 ? current.round : current.round - 1;
  const found = steps.findIndex((s) => s.round === wanted);
  if (found >= 0) return found;
  return direction === 1 ? steps.length - 1 : 0;
}

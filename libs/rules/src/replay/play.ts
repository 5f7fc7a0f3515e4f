/**
 * The replay loop: plays a case that `readCase` read through the rules, action by action, as the
 * table would. Pure: a case in, the match it ends at (or the first refusal) out.
 */
import {
  applyAction,
  automaticAction,
  createMatch,
  deadlineAction,
  startRoundWithDeal,
  type Deal,
} from '../match';
import { sameTile, tileText, type Tile } from '../tiles';
import type { Action, MatchState, RoundState } from '../types';
import { readAction, readRound, type Case, type CaseRound, type CaseStep } from './case-format';
import { bad, good, type Step, type Where } from './step';

const actionText = (action: Action): string =>
  action.type === 'play'
    ? `play ${tileText(action.tile)}${action.end !== undefined ? ` on ${action.end}` : ''}`
    : action.type;

const sameAction = (a: Action, b: Action): boolean =>
  a.type === b.type &&
  a.seat === b.seat &&
  (a.type !== 'play' || (b.type === 'play' && sameTile(a.tile, b.tile) && a.end === b.end));

/** Sees every match state a replay passes through: after each deal, and after each move. */
export type ReplayVisitor = (match: MatchState) => void;

const IGNORE: ReplayVisitor = () => undefined;

/** Applies one case step to a match whose round is in play, or says why not. */
function applyStep(match: MatchState, step: CaseStep, where: Where & { action: number }): Step<MatchState> {
  const round = match.round as RoundState;
  if (round.result !== null)
    return bad('NO_ROUND_IN_PLAY', `Action ${where.action} comes after the round ended.`, where);
  let action = step.action;
  if (step.by === 'deadline') {
    if (step.seat !== round.turn) {
      return bad(
        'NOT_YOUR_TURN',
        `Action ${where.action}: it is seat ${round.turn}'s turn, not seat ${step.seat}'s.`,
        where,
      );
    }
    // P16: the table acts for the seat. A timeout that also states the action (a replayed log) must agree.
    const chosen = deadlineAction(match) as Action;
    if (action !== undefined && !sameAction(action, chosen)) {
      return bad(
        'INVALID_ACTION',
        `Action ${where.action}: at the deadline the table would ${actionText(chosen)}, not ${actionText(action)} (P16).`,
        where,
      );
    }
    action = chosen;
  }
  const applied = applyAction(match, action as Action, step.by);
  if (!applied.ok) return bad(applied.error.code, `Action ${where.action}: ${applied.error.message}`, where);
  if (step.drawn !== undefined) {
    const entry = (applied.value.round as RoundState).log.at(-1);
    const drawn = entry?.type === 'draw' ? entry.drawn : undefined;
    if (
      drawn === undefined ||
      !Array.isArray(step.drawn) ||
      !sameTile(drawn, step.drawn as unknown as Tile)
    ) {
      const took = drawn ? tileText(drawn) : 'nothing';
      return bad(
        'INVALID_ACTION',
        `Action ${where.action}: the draw takes ${took} from the stock, not ${JSON.stringify(step.drawn)}.`,
        where,
      );
    }
  }
  return good(applied.value);
}

/** The rule that names a round's opener, for OPENER_MISMATCH. */
function openerRule(start: MatchState): string {
  const variant = start.config.variant;
  if (variant === 'partnership') return start.history.length === 0 ? 'P5' : 'P6';
  return variant === 'draw' ? 'D2' : 'F2';
}

/**
 * Plays one round of `match` from a case: the deal, the listed actions, then what the table does by
 * itself: the passes that close a locked board at once (P13, D6, F6), and with `complete` the deadline
 * action of every seat to move until the round ends (P16). A round case's opener overrides the rules';
 * a match round's must be the rules' own.
 */
function playRound(
  start: MatchState,
  input: CaseRound,
  where: Where,
  opener: 'override' | 'must-match',
  visit: ReplayVisitor,
): Step<MatchState> {
  const deal: Deal =
    opener === 'override' && input.opener !== undefined
      ? { ...input.deal, opener: input.opener }
      : input.deal;
  const started = startRoundWithDeal(start, deal);
  if (!started.ok) return bad(started.error.code, started.error.message, where);
  let match = started.value;
  visit(match);
  const opened = (match.round as RoundState).opener;
  if (opener === 'must-match' && input.opener !== undefined && input.opener !== opened) {
    return bad(
      'OPENER_MISMATCH',
      `Round ${where.round ?? 0} is opened by seat ${opened} (${openerRule(start)}), not seat ${input.opener}.`,
      where,
    );
  }
  for (let i = 0; i < input.actions.length; i++) {
    const at = { ...where, action: i };
    const step = readAction(input.actions[i], match.config.seats, at);
    if (!step.ok) return step;
    const applied = applyStep(match, step.value, at);
    if (!applied.ok) return applied;
    match = applied.value;
    visit(match);
  }
  match = closeLockedBoard(match, visit);
  if (input.complete) {
    while (match.phase === 'playing' && (match.round as RoundState).result === null) {
      const action = deadlineAction(match) as Action;
      const applied = applyAction(match, action, 'deadline');
      if (!applied.ok) return bad('INTERNAL_ERROR', applied.error.message, where);
      visit(applied.value);
      match = closeLockedBoard(applied.value, visit);
    }
  }
  return good(match);
}

/** The passes the table makes at once when nobody can ever play again (P13, D6, F6). */
function closeLockedBoard(start: MatchState, visit: ReplayVisitor): MatchState {
  let match = start;
  for (
    let action = automaticAction(match, () => false);
    action !== null;
    action = automaticAction(match, () => false)
  ) {
    const applied = applyAction(match, action, 'auto');
    if (!applied.ok) break;
    match = applied.value;
    visit(match);
  }
  return match;
}

/** Plays a case to its end (or to where its actions stop): the match it leaves; `visit` sees each state. */
export function playCase(input: Case, visit: ReplayVisitor = IGNORE): Step<MatchState> {
  const created = createMatch(input.config);
  if (!created.ok) return bad(created.error.code, created.error.message);
  if (input.kind === 'round') return playRound(created.value, input.round, {}, 'override', visit);
  let match = created.value;
  const { rounds } = input;
  for (let r = 0; r < rounds.length; r++) {
    const where = { round: r };
    if (match.phase === 'over') {
      return bad('MATCH_OVER', `The match ended after round ${r - 1}; round ${r} cannot be played.`, where);
    }
    const round = readRound(match.config.variant, rounds[r], where);
    if (!round.ok) return round;
    const played = playRound(match, round.value, where, 'must-match', visit);
    if (!played.ok) return played;
    match = played.value;
    if (match.phase === 'playing' && r < rounds.length - 1) {
      return bad(
        'ROUND_UNFINISHED',
        `Round ${r} has not ended, yet round ${r + 1} follows: finish it or add "complete": true.`,
        where,
      );
    }
  }
  return good(match);
}

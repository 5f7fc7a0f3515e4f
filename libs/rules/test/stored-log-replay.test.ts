import {
  applyAction,
  automaticAction,
  createSeededRng,
  deadlineAction,
  matchCaseOfLog,
  matchResult,
  replayCase,
  replayTimeline,
  startRound,
  type Action,
  type ActionOrigin,
  type MatchOutput,
  type MatchState,
  type StoredLogRow,
} from '../src';
import { must, newMatch } from './helpers';

/**
 * A match played as the table-service plays it (random deals, the deadline move for every turn, the
 * table's automatic passes), written as the rows it stores: match-started, round-dealt, action, round-ended.
 */
function storedMatch(
  config: Parameters<typeof newMatch>[0],
  seed: number,
  stopAfter = Infinity,
): { rows: StoredLogRow[]; end: MatchState } {
  const rng = createSeededRng(seed);
  let match = newMatch(config);
  const rows: StoredLogRow[] = [{ kind: 'match-started', payload: { config: match.config, players: [] } }];
  let moves = 0;
  while (match.phase !== 'over' && moves < stopAfter) {
    match = must(startRound(match, rng));
    const round = match.round!;
    rows.push({
      kind: 'round-dealt',
      payload: { hands: round.hands, stock: round.stock, opener: round.opener, redeals: 0 },
    });
    while (match.round!.result === null && moves < stopAfter) {
      const auto = automaticAction(match, () => false);
      const action: Action = auto ?? (deadlineAction(match) as Action);
      const by: ActionOrigin = auto ? 'auto' : moves % 3 === 0 ? 'deadline' : 'player';
      match = must(applyAction(match, action, by));
      const entry = match.round!.log.at(-1)!;
      rows.push({ kind: 'action', payload: { action, by, ...(entry.drawn ? { drawn: entry.drawn } : {}) } });
      moves++;
    }
    if (match.round!.result !== null) rows.push({ kind: 'round-ended', payload: {} });
  }
  return { rows, end: match };
}

describe('a stored log replayed through the rules (issue 12, Looking back)', () => {
  it.each([
    ['partnership', { variant: 'partnership', target: 100 }],
    ['draw', { variant: 'draw', seats: 3, target: 50 }],
    ['five-tile', { variant: 'five-tile', seats: 2, target: 100 }],
  ] as const)('%s: the case made from the log replays to the scores played (P19, D8, F8)', (_, config) => {
    for (const seed of [1, 2, 3]) {
      const { rows, end } = storedMatch(config, seed);
      const output = replayCase(matchCaseOfLog(rows)) as MatchOutput;
      expect(output.finished).toBe(true);
      expect(output.scores).toEqual(matchResult(end).scores);
      const timeline = replayTimeline(matchCaseOfLog(rows));
      if ('error' in timeline) throw new Error(timeline.error.message);
      expect(timeline.output).toEqual(output);
      // One list of states per round; the first just dealt, then one per move of the log.
      expect(timeline.rounds).toHaveLength(end.history.length);
      const moves = rows.filter((r) => r.kind === 'action').length;
      expect(timeline.rounds.reduce((n, states) => n + states.length - 1, 0)).toBe(moves);
      for (const states of timeline.rounds) expect(states[0]!.round!.log).toHaveLength(0);
      expect(timeline.rounds.at(-1)!.at(-1)!.scores).toEqual(matchResult(end).scores);
    }
  });

  it('a log that stops mid-round (an abandoned match) replays unfinished, no winner, with its last round in play', () => {
    const { rows, end } = storedMatch({ variant: 'partnership', target: 100 }, 7, 40);
    expect(end.phase).not.toBe('over');
    const output = replayCase(matchCaseOfLog(rows)) as MatchOutput;
    expect(output).toMatchObject({ finished: false, winnerTeam: null, scores: matchResult(end).scores });
    const timeline = replayTimeline(matchCaseOfLog(rows));
    if ('error' in timeline) throw new Error(timeline.error.message);
    expect(timeline.rounds.at(-1)!.at(-1)!.round!.result).toBeNull();
  });

  it('marks the deadline and automatic moves in case notation', () => {
    const { rows } = storedMatch({ variant: 'partnership', target: 100 }, 4);
    const actions = matchCaseOfLog(rows)!.rounds.flatMap((r) => r.actions);
    const stored = rows.filter((r) => r.kind === 'action').map((r) => (r.payload as { by: string }).by);
    expect(actions.map((a) => (a.timeout ? 'deadline' : a.auto ? 'auto' : 'player'))).toEqual(stored);
  });

  it('a log with no match start or no deal is no case; a tampered move is refused with the rules’ error', () => {
    expect(matchCaseOfLog([])).toBeNull();
    expect(
      matchCaseOfLog([
        { kind: 'match-started', payload: { config: newMatch({ variant: 'draw', seats: 2 }).config } },
      ]),
    ).toBeNull();
    const { rows } = storedMatch({ variant: 'partnership', target: 100 }, 5);
    const firstAction = rows.findIndex((r) => r.kind === 'action');
    const tampered = rows.map((r, i) =>
      i === firstAction
        ? { kind: 'action', payload: { action: { type: 'pass', seat: 0 }, by: 'player' } }
        : r,
    );
    const timeline = replayTimeline(matchCaseOfLog(tampered));
    expect('error' in timeline).toBe(true);
    expect(replayTimeline({ variant: 'draw', hands: [] })).toMatchObject({ error: { code: 'INVALID_CASE' } });
  });
});

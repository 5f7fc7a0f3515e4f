import { matchCaseOfLog, replayCase, type MatchOutput } from '@dominoes/rules';
import { decide } from '../src/table/table-policy';
import type { TableEvent } from '../src/table/table-events';
import type { TableState } from '../src/table/table-state';
import { accepted, policyEnvelopes } from './support/policy-intents';
import { playByDeadlines, policyContext, START } from './support/policy-play';

/**
 * A whole match played through the policy alone (every turn by its deadline, every break by its
 * own), its events kept as the engine stores them: each event's payload says what the state became
 * (the mutation run found the payloads unchecked at the unit level, docs/testing.md), and the log
 * replays through the rules to the same scores (P19, D8, F8).
 */
const envelope = policyEnvelopes('MATCH1', 'm');
const ctx = (now: number) => policyContext(now);
const play = (...args: Parameters<typeof playByDeadlines>) =>
  playByDeadlines(args[0], args[1], args[2], args[3], envelope);

describe('a match played through the policy, as its log (P19, D8, F8)', () => {
  const finished = (t: TableState) => t.status === 'finished';

  it('the opening and seating events carry the table they made', () => {
    const { events, final } = play({ variant: 'draw', seats: 3, target: 50 }, ['a', 'b'], () => true);
    expect(events.slice(0, 4)).toEqual([
      {
        kind: 'table-created',
        payload: { variant: 'draw', seatCount: 3, target: 50, oneRound: false, hostPlayerId: 'h' },
      },
      { kind: 'seat-taken', seat: 0, payload: { playerId: 'h', name: 'h' } },
      { kind: 'seat-taken', seat: 1, payload: { playerId: 'a', name: 'a' } },
      { kind: 'seat-taken', seat: 2, payload: { playerId: 'b', name: 'b' } },
    ]);
    // P3 and the match's start: every seat taken, match 1 with the table's config and players.
    expect(events[4]).toEqual({
      kind: 'match-started',
      matchNumber: 1,
      payload: { config: final.match!.config, players: ['h', 'a', 'b'] },
    });
    expect(final.match!.config).toMatchObject({ variant: 'draw', seats: 3, target: 50 });
    expect(final).toMatchObject({ status: 'playing', matchNumber: 1, arrivals: 3 });
    const dealt = events[5] as Extract<TableEvent, { kind: 'round-dealt' }>;
    expect(dealt).toMatchObject({ kind: 'round-dealt', matchNumber: 1, roundNumber: 1 });
    expect(dealt.payload).toEqual({
      hands: final.match!.round!.hands,
      stock: final.match!.round!.stock,
      opener: final.match!.round!.opener,
      redeals: final.match!.round!.redeals,
    });
  });

  it.each([
    ['draw', { variant: 'draw', seats: 3, target: 50 }, ['a', 'b']],
    ['partnership', { variant: 'partnership', target: 100 }, ['a', 'b', 'c']],
  ] as const)(
    '%s: every round-ended and the match-ended carry the scores, and the log replays to them',
    (_, config, players) => {
      const { events, states, final } = play(config, [...players], finished);
      expect(final).toMatchObject({ status: 'finished', deadline: null, matchNumber: 1 });
      expect(final.match!.phase).toBe('over');

      const roundsEnded = events.filter(
        (e): e is Extract<TableEvent, { kind: 'round-ended' }> => e.kind === 'round-ended',
      );
      expect(roundsEnded.map((e) => e.roundNumber)).toEqual(final.match!.history.map((_, i) => i + 1));
      roundsEnded.forEach((e, i) => {
        const round = final.match!.history[i]!;
        expect(e).toMatchObject({ matchNumber: 1, roundNumber: i + 1 });
        expect(e.payload.result).toMatchObject({
          winnerSide: round.winnerSide,
          points: round.points,
          blocked: round.blocked,
        });
        expect(e.payload.opener).toBe(round.opener);
        expect(round.number).toBe(i + 1);
      });
      expect(roundsEnded.at(-1)!.payload.scores).toEqual(final.match!.scores);

      const ended = events.filter((e) => e.kind === 'match-ended');
      expect(ended).toHaveLength(1);
      expect(ended[0]).toMatchObject({
        matchNumber: 1,
        payload: { result: { scores: final.match!.scores } },
      });
      expect(events.at(-1)!.kind).toBe('match-ended');

      // Every action event names its seat, match and round, and the by of a deadline or an auto-pass.
      for (const e of events)
        if (e.kind === 'action') {
          expect(e.seat).toBe(e.payload.action.seat);
          expect(e.matchNumber).toBe(1);
          expect(['deadline', 'auto']).toContain(e.payload.by);
        }

      // P18: between rounds, the one deadline is the 30 s break.
      const breaks = states.filter((s) => s.match?.phase === 'between-rounds');
      for (const s of breaks) expect(s.deadline).toMatchObject({ kind: 'break', seat: null });

      const output = replayCase(matchCaseOfLog(events)) as MatchOutput;
      expect(output.finished).toBe(true);
      expect(output.scores).toEqual(final.match!.scores);
    },
  );

  it("a new match after the end is match 2, dealt at once, with the host's intent", () => {
    const { final } = play({ variant: 'draw', seats: 3, target: 50 }, ['a', 'b'], finished);
    const next = accepted(decide(final, envelope('h', { kind: 'newMatch' }, 'c-h'), ctx(START)));
    expect(next.table).toMatchObject({ status: 'playing', matchNumber: 2 });
    expect(next.events.map((e) => e.kind)).toEqual(['match-started', 'round-dealt']);
    expect(next.events[0]).toMatchObject({
      kind: 'match-started',
      matchNumber: 2,
      payload: { players: ['h', 'a', 'b'] },
    });
    expect(next.events[1]).toMatchObject({ kind: 'round-dealt', matchNumber: 2, roundNumber: 1 });
  });

  it('each new clock gets a new deadline key, and a clock that runs on keeps its key', () => {
    const { states } = play({ variant: 'draw', seats: 3, target: 50 }, ['a', 'b'], (t) => t.version > 60);
    const clocks = new Map<string, string>();
    for (const s of states)
      if (s.deadline) {
        const clock = `${s.deadline.kind}@${s.deadline.at}/${s.deadline.seat}`;
        expect(clocks.get(clock) ?? s.deadline.key).toBe(s.deadline.key);
        clocks.set(clock, s.deadline.key);
      }
    expect(new Set(clocks.values()).size).toBe(clocks.size);
  });
});

import { applyAction, createMatch, seatView, startRoundWithDeal, type Tile } from '@dominoes/rules';
import { checkTable, longestPause, movedAfter } from '../chaos/checks';
import { growth } from '../chaos/memory';
import type { SentIntent, ShownView } from '../chaos/play';
import type { LogRow } from '../src/stored-log';

/** A partnership table's log: match-started, round-dealt, then one play by the opener (intent `p:1`). */
function tableLog(): { rows: LogRow[]; shown: ShownView } {
  const config = { variant: 'partnership' as const, seats: 4, target: 50, oneRound: false };
  const all: Tile[] = [];
  for (let a = 0; a <= 6; a++) for (let b = a; b <= 6; b++) all.push([a, b]);
  const hands = [0, 1, 2, 3].map((s) => all.slice(s * 7, s * 7 + 7));
  const created = createMatch(config);
  if (!created.ok) throw new Error(created.error.message);
  const dealt = startRoundWithDeal(created.value, { hands, stock: [] });
  if (!dealt.ok) throw new Error(dealt.error.message);
  const round = dealt.value.round!;
  const move = seatView(dealt.value, round.turn).legal[0]!;
  const played = applyAction(dealt.value, move, 'player');
  if (!played.ok) throw new Error(played.error.message);
  const row = (
    seq: number,
    kind: string,
    payload: Record<string, unknown>,
    intent_id: string | null = null,
  ) => ({
    seq,
    kind,
    seat: null,
    match_number: 1,
    round_number: 1,
    payload,
    intent_id,
  });
  const rows = [
    row(1, 'match-started', { config }),
    row(2, 'round-dealt', { hands, stock: [], opener: round.opener }),
    row(3, 'action', { action: move, by: 'player' }, 'p:1'),
  ];
  return {
    rows,
    shown: { seat: 0, version: 3, matchNumber: 1, game: seatView(played.value, 0) as ShownView['game'] },
  };
}

const sent = (intentId: string, outcome: SentIntent['outcome']): SentIntent => ({
  intentId,
  kind: 'play',
  at: 0,
  outcome,
  ...(outcome === 'refused' ? { code: 'UNAVAILABLE' } : {}),
});

describe('the chaos test checks (e2e/chaos/checks.ts)', () => {
  it('passes a log that holds every ack once and replays to the view shown', () => {
    const { rows, shown } = tableLog();
    const check = checkTable('T', rows, [sent('p:1', 'acked'), sent('p:2', 'refused')], [shown]);
    expect(check).toMatchObject({
      lost: [],
      doubled: [],
      refusedButStored: [],
      wrongViews: [],
      acked: 1,
      refused: 1,
    });
  });

  it('reports an ack not stored, an intent stored twice, a refused intent stored, and a view the log does not give', () => {
    const { rows, shown } = tableLog();
    const doubled = [...rows, { ...rows[2]!, seq: 4 }];
    expect(checkTable('T', rows, [sent('p:9', 'acked')], []).lost).toEqual(['p:9']);
    expect(checkTable('T', doubled, [], []).doubled).toEqual(['p:1']);
    expect(checkTable('T', rows, [sent('p:1', 'refused')], []).refusedButStored).toEqual([
      'p:1 (UNAVAILABLE)',
    ]);
    // Shown as at version 2 (before the play): the replay to version 2 gives another view.
    expect(checkTable('T', rows, [], [{ ...shown, version: 2 }]).wrongViews).toHaveLength(1);
    // An intent whose outcome the player was not told is counted, not checked.
    expect(checkTable('T', rows, [sent('p:1', 'unknown')], []).unknown).toEqual({ stored: 1, notStored: 0 });
  });

  it('measures when a table moved again and its longest pause', () => {
    expect(movedAfter([100, 900, 2500], 1000)).toBe(1500);
    expect(movedAfter([100], 1000)).toBe(Number.POSITIVE_INFINITY);
    expect(longestPause([1000, 1200, 5200, 5300], 1000, 6000)).toBe(4000);
  });
});

describe('the chaos test memory check (e2e/chaos/memory.ts)', () => {
  const series = (kib: (i: number) => number, n = 60) => ({
    instance: 'gateway',
    pid: 1,
    points: Array.from({ length: n }, (_, i) => [i * 2000, kib(i)] as [number, number]),
  });

  it('a steady process has a ratio near 1 whatever it did during its warm-up', () => {
    const g = growth(
      series((i) => (i < 10 ? 50_000 + i * 5000 : 100_000 + (i % 3) * 1000)),
      20_000,
    )!;
    expect(g.ratio).toBeGreaterThan(0.98);
    expect(g.ratio).toBeLessThan(1.02);
  });

  it('a process that keeps growing has a ratio over the bound; too few samples say nothing', () => {
    expect(
      growth(
        series((i) => 100_000 + i * 2000),
        20_000,
      )!.ratio,
    ).toBeGreaterThan(1.3);
    expect(
      growth(
        series(() => 100_000, 15),
        20_000,
      ),
    ).toBeNull();
  });
});

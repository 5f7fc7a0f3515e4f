import type { TableView } from '@dominoes/protocol';
import { seatView, type MatchState, type SeatView } from '@dominoes/rules';
import {
  avatarOf,
  nameHash,
  newlyDrawn,
  sameEndPlay,
  shortenedTurn,
  sortedHand,
  soundsFor,
  DISCONNECTED_TURN_MS,
} from '../src/feel';
import { roundStates, tableView } from './gallery';

const key = (t: readonly number[]) => `${Math.min(t[0]!, t[1]!)}-${Math.max(t[0]!, t[1]!)}`;

describe('avatars', () => {
  it('initials: the first letter of the first two words, upper case, any script', () => {
    expect(avatarOf('ana').initials).toBe('A');
    expect(avatarOf('Maria  del Mar').initials).toBe('MD');
    expect(avatarOf('  боян петров ').initials).toBe('БП');
    expect(avatarOf('أمل').initials).toBe('أ');
    expect(avatarOf('Ελένη').initials).toBe('Ε');
    expect(avatarOf('').initials).toBe('?');
  });

  it('the colour is a function of the name only, and names spread over the hues', () => {
    expect(avatarOf('Boris')).toEqual(avatarOf('Boris'));
    expect(avatarOf(' Boris ').hue).toBe(avatarOf('Boris').hue);
    expect(avatarOf('Boris').color).toBe(`hsl(${avatarOf('Boris').hue} 55% 38%)`);
    expect(nameHash('a')).not.toBe(nameHash('b'));
    const names = Array.from({ length: 200 }, (_, i) => `player ${i}`);
    const hues = new Set(names.map((n) => Math.floor(avatarOf(n).hue / 30)));
    expect(hues.size).toBe(12);
    for (const n of names) {
      expect(avatarOf(n).hue).toBeGreaterThanOrEqual(0);
      expect(avatarOf(n).hue).toBeLessThan(360);
    }
  });
});

/** Every seat's view of every state of many random rounds. */
function views(variant: 'partnership' | 'draw' | 'five-tile', seats: number, rounds: number) {
  const out: { match: MatchState; game: SeatView }[] = [];
  for (let seed = 1; seed <= rounds; seed++)
    for (const match of roundStates(variant, seats, seed))
      if (match.phase === 'playing') out.push({ match, game: seatView(match, match.round!.turn) });
  return out;
}

describe('the same-end play, from legal only', () => {
  it('plays on the first listed end exactly when a tile is listed on both ends and both show one number', () => {
    let same = 0;
    let choose = 0;
    for (const variant of ['partnership', 'draw', 'five-tile'] as const) {
      for (const { game } of views(variant, variant === 'partnership' ? 4 : 2, 40)) {
        const byTile = new Map<string, string[]>();
        for (const a of game.legal)
          if (a.type === 'play' && a.end !== undefined)
            byTile.set(key(a.tile), [...(byTile.get(key(a.tile)) ?? []), a.end]);
        for (const [k, ends] of byTile) {
          const values = ends.map((id) => game.board.ends.find((e) => e.id === id)?.value);
          const expected =
            game.board.ends.length === 2 &&
            ends.length === 2 &&
            values[0] !== undefined &&
            values[0] === values[1]
              ? ends[0]
              : null;
          expect({ k, end: sameEndPlay(game, k) }).toEqual({ k, end: expected });
          if (expected) same += 1;
          else if (ends.length > 1) choose += 1;
        }
        // A tile not listed is never played.
        for (const tile of game.hand)
          if (!byTile.has(key(tile))) expect(sameEndPlay(game, key(tile))).toBeNull();
      }
    }
    // Both kinds occur in these rounds.
    expect(same).toBeGreaterThan(5);
    expect(choose).toBeGreaterThan(5);
  });
});

describe('the hand', () => {
  it('sorted by the lower then the higher number, without changing the hand given', () => {
    const hand = [
      [6, 4],
      [0, 0],
      [3, 1],
      [1, 1],
      [5, 0],
    ] as const;
    const copy = JSON.stringify(hand);
    expect(sortedHand(hand.map((t) => [t[0], t[1]] as [number, number]))).toEqual([
      [0, 0],
      [5, 0],
      [1, 1],
      [3, 1],
      [6, 4],
    ]);
    expect(JSON.stringify(hand)).toBe(copy);
  });

  it('newly drawn: the tiles drawn since this seat last played, from the log', () => {
    let checked = 0;
    for (const { match } of views('draw', 2, 30)) {
      const game = seatView(match, 0);
      const drawn = newlyDrawn(game, 0);
      const log = match.round!.log;
      const lastPlay = log.map((e) => e.seat === 0 && e.type === 'play').lastIndexOf(true);
      const expected = new Set(
        log
          .slice(lastPlay + 1)
          .flatMap((e) => (e.seat === 0 && e.type === 'draw' && e.drawn ? [key(e.drawn)] : [])),
      );
      expect([...drawn].sort()).toEqual([...expected].sort());
      for (const k of drawn) expect(game.hand.map(key)).toContain(k);
      if (drawn.size > 0) checked += 1;
      // Another seat's draws are hidden: never marked.
      expect(newlyDrawn(seatView(match, 1), 0).size).toBe(0);
    }
    expect(checked).toBeGreaterThan(5);
  });
});

describe('sounds', () => {
  it('a placed tile, a pass, the turn, the end of a round; nothing for the first view', () => {
    const states = roundStates('partnership', 4, 3);
    const names = ['Ana', 'Boris', 'Cem', 'Dara'];
    expect(soundsFor(tableView(states[0]!, 0, names), null)).toEqual([]);
    let place = 0;
    let pass = 0;
    let turn = 0;
    let round = 0;
    for (let i = 1; i < states.length; i++) {
      const before = tableView(states[i - 1]!, 0, names);
      const after = tableView(states[i]!, 0, names);
      const kinds = soundsFor(after, before);
      const entry = states[i]!.round!.log.at(-1)!;
      expect(kinds.includes('place')).toBe(entry.type === 'play');
      expect(kinds.includes('pass')).toBe(entry.type === 'pass');
      const over = states[i]!.phase !== 'playing';
      expect(kinds.includes('round')).toBe(over);
      expect(kinds.includes('turn')).toBe(!over && states[i]!.round!.turn === 0);
      place += Number(kinds.includes('place'));
      pass += Number(kinds.includes('pass'));
      turn += Number(kinds.includes('turn'));
      round += Number(kinds.includes('round'));
    }
    expect([place > 0, turn > 0, round]).toEqual([true, true, 1]);
    expect(pass).toBeGreaterThanOrEqual(0);
  });
});

describe('the disconnected turn (P17)', () => {
  const base = (deadline: number, turn: number, shortened: boolean): TableView => {
    const view = tableView(roundStates('partnership', 4, 1)[2]!, 0, ['Ana', 'Boris', 'Cem', 'Dara']);
    const game = { ...view.game!, turn };
    const clock = {
      kind: 'turn' as const,
      seat: turn,
      deadline,
      ...(shortened ? { shortened: true as const } : {}),
    };
    return { ...view, game, clock };
  };
  it('told exactly when the table-service says your turn was cut to a disconnected one', () => {
    const now = 1_000_000;
    expect(shortenedTurn(base(now + DISCONNECTED_TURN_MS - 200, 0, true), now)).toBe(true);
    expect(shortenedTurn(base(now + 1_000, 0, true), now)).toBe(true);
    // Little time left of a whole turn is not a shortened one: not said.
    expect(shortenedTurn(base(now + 1_000, 0, false), now)).toBe(false);
    expect(shortenedTurn(base(now + 30_000, 0, false), now)).toBe(false);
    // Another seat's short turn, or one already over: not yours to be told.
    expect(shortenedTurn(base(now + 2_000, 1, true), now)).toBe(false);
    expect(shortenedTurn(base(now - 10, 0, true), now)).toBe(false);
  });
});

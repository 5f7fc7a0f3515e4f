import fc from 'fast-check';
import {
  createMatch,
  createSeededRng,
  applyAction,
  legalActions,
  seatView,
  startRound,
  type MatchState,
} from '@dominoes/rules';
import {
  applyViewChange,
  jsonEqual,
  SeatEventReader,
  encodeSeatMessage,
  ServerMessageSchemas,
  ViewChangeMismatchError,
  ViewChangeSchema,
  viewChangeFrameText,
  viewChangeOf,
} from '@dominoes/protocol';
import { tableAround } from './support/table-around';

/** JSON objects as views are: nested objects and arrays of them, keys from a small set so they overlap. */
const key = fc.constantFrom('a', 'b', 'c', 'turn', 'log', 'hand');
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 4 })),
    fc.array(tie('value'), { maxLength: 4 }),
    tie('object'),
  ),
  object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
})).object as fc.Arbitrary<Record<string, unknown>>;

/** `after` made from `before` the way views grow: some keys changed, some arrays pushed onto. */
const grown = json.chain((before) =>
  fc.record({ extra: fc.array(json, { maxLength: 2 }), other: json }).map(({ extra, other }) => {
    const after: Record<string, unknown> = { ...before, ...other };
    for (const [k, v] of Object.entries(before))
      if (Array.isArray(v)) after[k] = [...(v as unknown[]), ...extra];
    return { before, after };
  }),
);

const play = (moves: number, seed: number): MatchState[] => {
  const rng = createSeededRng(seed);
  const created = createMatch({ variant: 'partnership', target: 100 });
  if (!created.ok) throw new Error('no match');
  const started = startRound(created.value, rng);
  if (!started.ok) throw new Error('no round');
  const states = [started.value];
  let match = started.value;
  for (let i = 0; i < moves && match.round?.result === null; i += 1) {
    const seat = match.round.turn;
    const options = legalActions(match, seat);
    const next = applyAction(match, options[rng.below(options.length)]!);
    if (!next.ok) throw new Error(next.error.message);
    match = next.value;
    states.push(match);
  }
  return states;
};

describe('views as changes (decision 0036)', () => {
  it('applying the change from one JSON object to another gives the other, key for key, and leaves the first as it was', () => {
    fc.assert(
      fc.property(fc.oneof(grown, fc.record({ before: json, after: json })), ({ before, after }) => {
        const frozen = JSON.stringify(before);
        const change = viewChangeOf(before, after);
        expect(ViewChangeSchema.safeParse(JSON.parse(JSON.stringify(change))).success).toBe(true);
        expect(jsonEqual(applyViewChange(before, change), after)).toBe(true);
        expect(JSON.stringify(before)).toBe(frozen);
      }),
      { numRuns: 500 },
    );
  });

  it('an equal object is no change; an array that only grew is one push of the new items', () => {
    const view = { a: 1, log: [{ x: 1 }, { x: 2 }], game: { turn: 2, hand: [[1, 2]] } };
    expect(viewChangeOf(view, JSON.parse(JSON.stringify(view)))).toEqual([]);
    const after = { ...view, log: [...view.log, { x: 3 }], game: { turn: 3, hand: [] } };
    expect(viewChangeOf(view, after)).toEqual([
      { push: ['log'], items: [{ x: 3 }] },
      { set: ['game', 'turn'], to: 3 },
      { set: ['game', 'hand'], to: [] },
    ]);
    expect(viewChangeOf({ a: 1, gone: 'x' }, { a: 1 })).toEqual([{ unset: ['gone'] }]);
  });

  it("a seat's view move by move through a round: each change applied to the view before is the view after, in far fewer bytes; several in a row apply as one", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: 3 }), (seed, seat) => {
        const views = play(28, seed).map((m) => seatView(m, seat));
        let viewBytes = 0;
        let changeBytes = 0;
        for (let i = 1; i < views.length; i += 1) {
          const change = viewChangeOf(views[i - 1], views[i]);
          viewBytes += JSON.stringify(views[i]).length;
          changeBytes += JSON.stringify(change).length;
          expect(applyViewChange(views[i - 1], change)).toEqual(views[i]);
        }
        expect(changeBytes).toBeLessThan(viewBytes / 4);
        // The changes of several versions in a row, applied as one, make the last view (the load tool reads so).
        const all = views.slice(1).flatMap((view, i) => viewChangeOf(views[i], view));
        const first = JSON.stringify(views[0]);
        expect(applyViewChange(views[0], all)).toEqual(views.at(-1));
        expect(JSON.stringify(views[0])).toBe(first);
      }),
      { numRuns: 30 },
    );
  });

  it('a change that does not fit the view is refused, and names no prototype', () => {
    expect(() => applyViewChange({ a: 1 }, [{ push: ['a'], items: [2] }])).toThrow(ViewChangeMismatchError);
    expect(() => applyViewChange({ a: 1 }, [{ set: ['a', 'b'], to: 2 }])).toThrow(ViewChangeMismatchError);
    expect(() => applyViewChange({}, [{ set: ['__proto__', 'polluted'], to: true }])).toThrow(
      ViewChangeMismatchError,
    );
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(ViewChangeSchema.safeParse([{ set: [], to: 1 }]).success).toBe(false);
    expect(ViewChangeSchema.safeParse([{ push: ['a'], items: [] }]).success).toBe(false);
    expect(ViewChangeSchema.safeParse([{ set: ['a'], to: 1, extra: 1 }]).success).toBe(false);
  });

  it("the viewChange frame's text is the schema's frame, JSON.stringify's bytes", () => {
    const change = [{ set: ['game', 'turn'], to: 1 }];
    const text = viewChangeFrameText(8, 7, 123, JSON.stringify(change));
    const frame = { type: 'viewChange', version: 8, base: 7, serverTime: 123, change };
    expect(text).toBe(JSON.stringify(frame));
    expect(ServerMessageSchemas.viewChange.parse(JSON.parse(text))).toEqual(frame);
  });

  it('SeatEventReader applies a change to the last view of its seat, and refuses one without it', () => {
    const [before, after] = play(1, 3).map((m) => seatView(m, 1));
    const tableView = (version: number, game: unknown) => ({
      ...tableAround(),
      you: { seat: 1, playerId: 'p1', autoPass: false },
      game,
      watchers: version,
    });
    const header = (version: number, base?: number) => ({
      tableId: 'KQ7MZPABCDEF',
      seat: 1,
      version,
      playerId: 'p1',
      cause: null,
      ...(base === undefined ? {} : { base }),
    });
    const change = viewChangeOf(tableView(4, before), tableView(5, after));
    const reader = new SeatEventReader();
    expect(() =>
      reader.read(encodeSeatMessage({ header: header(5, 4), viewJson: JSON.stringify(change) })),
    ).toThrow(/last view read is none/);
    reader.read(encodeSeatMessage({ header: header(4), viewJson: JSON.stringify(tableView(4, before)) }));
    const event = reader.read(encodeSeatMessage({ header: header(5, 4), viewJson: JSON.stringify(change) }));
    expect(event.view).toEqual(tableView(5, after));
    expect(event.version).toBe(5);
  });
});

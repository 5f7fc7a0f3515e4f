import fc from 'fast-check';
import { ascending, byEach, descending, mergeSorted } from '../src/store/merge';

/*
 * Lists of Postgres split by shard (decision 0027): each database's first page, merged and cut, is
 * the first page of one query over all the rows (what the lobby and "your matches" rely on).
 */
interface Row {
  readonly at: number;
  readonly id: string;
}
const order = byEach<Row>(
  descending((r) => r.at),
  ascending((r) => r.id),
);

describe('mergeSorted (lists merged over databases)', () => {
  it('the first `limit` of every database, merged and cut to `limit`, are the first `limit` of all rows in the same order; a page at `offset` is the same from each database’s first offset + limit', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ at: fc.integer({ min: 0, max: 20 }), id: fc.string({ maxLength: 3 }) }), {
          selector: (r) => r.id,
          maxLength: 40,
        }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 12 }),
        (rows, databases, limit, offset) => {
          const all = [...rows].sort(order);
          const byDatabase = Array.from({ length: databases }, (_, d) =>
            all.filter((_, i) => i % databases === d),
          );
          const firstPage = byDatabase.map((list) => list.slice(0, limit));
          expect(mergeSorted(firstPage, order, limit)).toEqual(all.slice(0, limit));
          const deeper = byDatabase.map((list) => list.slice(0, offset + limit));
          expect(mergeSorted(deeper, order, offset + limit).slice(offset)).toEqual(
            all.slice(offset, offset + limit),
          );
        },
      ),
    );
  });

  it('a limit of 0 or below gives nothing, ties keep database order', () => {
    expect(mergeSorted([[{ at: 1, id: 'a' }]], order, 0)).toEqual([]);
    expect(mergeSorted([[{ at: 1, id: 'a' }]], order, -1)).toEqual([]);
    const sameTime = ascending<Row>((r) => r.at);
    expect(
      mergeSorted(
        [
          [{ at: 1, id: 'first' }],
          [
            { at: 0, id: 'zero' },
            { at: 1, id: 'second' },
          ],
        ],
        sameTime,
        3,
      ).map((r) => r.id),
    ).toEqual(['zero', 'first', 'second']);
  });
});

import { dealSource } from '../src/table/deal-source';

/** The live deals' randomness answers every bound with a whole number below it (issue 10). */
describe('dealSource.below', () => {
  it('gives whole numbers from 0 to bound - 1, each of them over many draws, and 0 for a bound of 1', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const n = dealSource.below(7);
      expect(Number.isInteger(n)).toBe(true);
      seen.add(n);
    }
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(dealSource.below(1)).toBe(0);
  });
});

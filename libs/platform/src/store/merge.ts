/*
 * Lists read from every database of the shard map (decision 0027) are merged as one query would have
 * ordered and cut them: each database is asked for the whole first page (its own `limit`), so the
 * first `limit` of the merged, sorted rows are the first `limit` of all of them.
 */

/** The rows of every database, sorted by `compare` (stable: ties keep database order), cut to `limit`. */
export function mergeSorted<T>(
  lists: readonly (readonly T[])[],
  compare: (a: T, b: T) => number,
  limit: number,
): T[] {
  return lists.flat().sort(compare).slice(0, Math.max(0, limit));
}

/** Ascending by `key` (numbers or strings). */
export const ascending =
  <T>(key: (row: T) => number | string) =>
  (a: T, b: T): number => {
    const x = key(a);
    const y = key(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };

/** Descending by `key`. */
export const descending =
  <T>(key: (row: T) => number | string) =>
  (a: T, b: T): number =>
    ascending(key)(b, a);

/** `compare`s in turn: the first that tells two rows apart orders them. */
export const byEach =
  <T>(...compares: ((a: T, b: T) => number)[]) =>
  (a: T, b: T): number => {
    for (const compare of compares) {
      const order = compare(a, b);
      if (order !== 0) return order;
    }
    return 0;
  };

export const sum = (values: readonly number[]): number => values.reduce((total, n) => total + n, 0);

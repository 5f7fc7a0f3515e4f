import { z } from 'zod';

/*
 * Views as changes (issue 14, decision 0036). After a move a seat's view differs from the one
 * before in a few places: a tile on the board, an entry in the log, the turn, the clock, the hand.
 * The table-service sends those as a list of operations on the view the seat was sent last, and the
 * client applies them; the whole view still goes out on a join, a sync and whenever the seat changed
 * hands. Applying a change to the view at its base gives, key for key, the view at its version.
 */

/** The keys from the view's root to the value an operation changes (object keys only, never an index). */
const PathSchema = z.array(z.string().min(1).max(40)).max(8);

/**
 * One operation: `set` a value (a key added or replaced), `push` items onto the end of an array, or
 * `unset` a key that the newer view no longer has.
 */
export const ViewChangeOpSchema = z.union([
  z.object({ set: PathSchema.min(1), to: z.unknown() }).strict(),
  z.object({ push: PathSchema.min(1), items: z.array(z.unknown()).min(1) }).strict(),
  z.object({ unset: PathSchema.min(1) }).strict(),
]);
export type ViewChangeOp = z.infer<typeof ViewChangeOpSchema>;

/** The operations that turn the view at one version into the view at a later one, in order. */
export const ViewChangeSchema = z.array(ViewChangeOpSchema).max(200);
export type ViewChange = ViewChangeOp[];

type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (value: Json): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether two JSON values are equal, key for key (key order aside). */
export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i += 1) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!(key in b) || !jsonEqual(a[key], b[key])) return false;
  return true;
}

/**
 * Appends to `out` the operations that turn `before` into `after` (JSON values, as JSON.stringify
 * would write them: keys whose value is undefined count as absent), the paths prefixed with `at`.
 * Objects are compared key by key; an array that only grew is a `push`, any other array a `set`.
 */
export function viewChangeOf(
  before: Json,
  after: Json,
  at: readonly string[] = [],
  out: ViewChange = [],
): ViewChange {
  if (before === after) return out;
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(after)) {
      const next = after[key];
      if (next === undefined) continue;
      const previous = before[key];
      if (previous === undefined) out.push({ set: [...at, key], to: next });
      else viewChangeOf(previous, next, [...at, key], out);
    }
    for (const key of Object.keys(before))
      if (before[key] !== undefined && after[key] === undefined) out.push({ unset: [...at, key] });
    return out;
  }
  if (Array.isArray(before) && Array.isArray(after) && after.length > before.length) {
    let grew = true;
    for (let i = 0; i < before.length && grew; i += 1) grew = jsonEqual(before[i], after[i]);
    if (grew) {
      out.push({ push: [...at], items: after.slice(before.length) });
      return out;
    }
  }
  if (!jsonEqual(before, after)) out.push({ set: [...at], to: after });
  return out;
}

/** The keys a change may never name: they would reach an object's prototype. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

/** A change that does not fit the view it was applied to (a wrong base, a corrupt frame). */
export class ViewChangeMismatchError extends Error {}

/**
 * The view `change` makes of `view`, which is left as it was: the objects and arrays on the changed
 * paths are copied (each once, however many operations go through it), everything else is shared
 * with `view`. Throws ViewChangeMismatchError when an operation does not fit (a path through
 * something that is not an object, a push onto something that is not an array): the client then
 * asks for the whole view again. Several changes in a row apply as one, their operations in order.
 */
export function applyViewChange<T>(view: T, change: readonly ViewChangeOp[]): T {
  const copies = new Set<unknown>();
  const copied = <C extends object>(node: C): C => {
    if (copies.has(node)) return node;
    const copy = (Array.isArray(node) ? [...node] : { ...node }) as C;
    copies.add(copy);
    return copy;
  };
  if (!isObject(view)) throw new ViewChangeMismatchError('the view is not an object');
  const root = copied(view);
  for (const op of change) {
    const path = 'set' in op ? op.set : 'push' in op ? op.push : op.unset;
    let parent: JsonObject = root;
    for (let depth = 0; depth < path.length; depth += 1) {
      const key = path[depth]!;
      if (FORBIDDEN_KEYS.has(key)) throw new ViewChangeMismatchError(`the key ${key} is not allowed`);
      if (depth === path.length - 1) {
        if ('set' in op) parent[key] = op.to;
        else if ('unset' in op) delete parent[key];
        else {
          const list = parent[key];
          if (!Array.isArray(list)) throw new ViewChangeMismatchError(`${path.join('.')} is not a list`);
          const into = copied(list as Json[]);
          for (const item of op.items) into.push(item);
          parent[key] = into;
        }
      } else {
        const child = parent[key];
        if (!isObject(child))
          throw new ViewChangeMismatchError(`${path.slice(0, depth + 1).join('.')} is not an object`);
        parent = parent[key] = copied(child);
      }
    }
  }
  return root as T;
}

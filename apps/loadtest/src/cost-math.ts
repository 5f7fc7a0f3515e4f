/** Rounding and division shared by the cost figures. */

/** `value` rounded to `digits` decimals. */
export const round = (value: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

/** `total / actions`, rounded; null when there is no action to divide by. */
export const perAction = (total: number, actions: number, digits = 3): number | null =>
  actions > 0 ? round(total / actions, digits) : null;

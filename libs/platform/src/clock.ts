/** Time is read in one place, so tests can drive it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const CLOCK = Symbol('CLOCK');

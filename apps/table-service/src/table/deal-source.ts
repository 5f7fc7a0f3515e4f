import { randomInt } from 'node:crypto';
import type { Rng } from '@dominoes/rules';

/**
 * The randomness of every live deal and draw pile: one `crypto.randomInt` (the operating system's
 * CSPRNG) per Fisher–Yates step, so a deal of 28 tiles is one of 28! ≈ 2^98 orders and no hand, or
 * anything else a player sees, tells anything about another hand or the next draw. The seeded
 * generator of `libs/rules` is predictable and lint keeps it out of the services.
 */
export const dealSource: Rng = {
  below: (bound: number) => randomInt(bound),
};

import { randomInt } from 'node:crypto';
import type { Rng } from '@dominoes/rules';

/**
 * The randomness of every live deal and draw pile: one `crypto.randomInt` (the operating system's
 * CSPRNG) per Fisher–Yates step, so a deal of 28 tiles is one of 28! ≈ 2^98 orders and no hand, or
 * anything else a player sees, tells anything about another hand or the next draw. The seeded
 * generator of `libs/rules` is predictable and lint keeps it out of the services.
 */
export const dealSource: Rng = {
  // A method, not an arrow: a mutant of it is then inside its body, reached by the tests that deal
  // (an arrow is made when the module loads, where the mutation run counts no test as reaching it).
  below(bound: number): number {
    return randomInt(bound);
  },
};

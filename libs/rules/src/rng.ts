/**
 * Where a deal's randomness comes from. The rules never make their own: every shuffle asks an `Rng`
 * the caller passes in.
 *
 * - Live tables use a cryptographically secure source (the table-service's `dealSource`, one
 *   `crypto.randomInt` per Fisher–Yates step): about 2^98 possible deals of 28 tiles, and nothing a
 *   player sees tells anything about the next draw or another hand.
 * - Tests, benchmarks and tools use `createSeededRng`, which is reproducible and therefore
 *   predictable: lint keeps it out of the services (eslint.config.mjs). Replays need neither: the
 *   deal is stored in the log.
 */
export interface Rng {
  /** A uniformly distributed whole number in [0, bound); bound is a whole number from 1 to 2^32. */
  below(bound: number): number;
}

/** A reproducible generator: the same seed gives the same numbers. */
export interface SeededRng extends Rng {
  /** A float in [0, 1), like Math.random. */
  fraction(): number;
}

const TWO_32 = 4294967296;

/**
 * sfc32 whose whole 128-bit state comes from the seed (four independent 32-bit hashes of its
 * text), so distinct seeds are not folded into a 32-bit space. Predictable by design: for tests,
 * benchmarks and tools only, never for a live deal.
 */
export function createSeededRng(seed: number | string): SeededRng {
  let [a, b, c, d] = seedState(String(seed));
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  // sfc32's first outputs still show the seed's structure: discard them, as its author advises.
  for (let i = 0; i < 15; i++) next();
  return {
    below(bound: number): number {
      checkBound(bound);
      // Rejection sampling: no modulo bias.
      const limit = TWO_32 - (TWO_32 % bound);
      for (;;) {
        const value = next();
        if (value < limit) return value % bound;
      }
    },
    fraction: () => next() / TWO_32,
  };
}

/** cyrb128: four 32-bit hashes of the text, each over every character. */
function seedState(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

function checkBound(bound: number): void {
  if (!Number.isInteger(bound) || bound < 1 || bound > TWO_32) {
    throw new RangeError(`an Rng bound is a whole number from 1 to 2^32; got ${bound}`);
  }
}

/** Fisher–Yates on a copy: one `rng.below` per step. */
export function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.below(i + 1);
    const tmp = out[i] as T;
    out[i] = out[j] as T;
    out[j] = tmp;
  }
  return out;
}

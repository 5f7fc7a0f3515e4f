import { TokenBucket } from '../src/ws/token-bucket';

describe('the token bucket of a socket (frames per second, burst)', () => {
  it('gives `burst` frames at once, then one per 1/perSecond s, never more than the burst saved up', () => {
    const bucket = new TokenBucket(10, 3, 0);
    expect([bucket.take(0), bucket.take(0), bucket.take(0), bucket.take(0)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(bucket.take(99)).toBe(false); // 0.99 of a frame
    expect(bucket.take(100)).toBe(true); // 1 frame after 100 ms at 10/s
    expect(bucket.take(100)).toBe(false);
    // A long quiet time saves up the burst, not more.
    const after = [1, 2, 3, 4].map(() => bucket.take(60_000));
    expect(after).toEqual([true, true, true, false]);
  });

  it('a clock that goes back gives nothing and takes nothing back', () => {
    const bucket = new TokenBucket(10, 1, 1000);
    expect(bucket.take(1000)).toBe(true);
    expect(bucket.take(500)).toBe(false);
    expect(bucket.take(600)).toBe(true);
  });
});

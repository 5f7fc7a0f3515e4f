import { EventEmitter } from 'node:events';
import { createLogger, type Redis } from '@dominoes/platform';
import { redisNames } from '@dominoes/protocol';
import { ShardLeases } from '../src/shards/shard-leases';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Just enough of a Redis for the leases, that can hang (every command waits, as ioredis's do while
 * Redis is away) and lose its keys (as a restarted, empty Redis has).
 */
class FakeRedis extends EventEmitter {
  status = 'ready';
  hanging = false;
  readonly keys = new Map<string, string>();
  private readonly waiting: (() => void)[] = [];

  private answer<T>(value: () => T): Promise<T> {
    if (!this.hanging) return Promise.resolve(value());
    return new Promise((resolve) => this.waiting.push(() => resolve(value())));
  }

  /** Redis answers again: the commands that waited get their answers (from the state by then). */
  resume(): void {
    this.hanging = false;
    for (const answer of this.waiting.splice(0)) answer();
  }

  zadd = () => this.answer(() => 1);
  zremrangebyscore = () => this.answer(() => 0);
  zcard = () => this.answer(() => 1);
  zrem = () => this.answer(() => 1);
  eval = (script: string, _n: number, key: string, holder: string) =>
    this.answer(() => {
      const current = this.keys.get(key);
      if (script.includes("'pexpire'")) return current === holder ? 1 : 0;
      if (script.includes("'del'")) return current === holder ? Number(this.keys.delete(key)) : 0;
      if (current !== undefined && current !== holder) return 0;
      this.keys.set(key, holder);
      return 1;
    });
}

describe('shard leases', () => {
  const names = redisNames('test_leases');
  const events: string[] = [];
  let redis: FakeRedis;
  let leases: ShardLeases;

  beforeEach(() => {
    events.length = 0;
    redis = new FakeRedis();
    leases = new ShardLeases(
      redis as unknown as Redis,
      names,
      2,
      'replica-a',
      {
        acquired: (shard) => events.push(`+${shard}`),
        lost: (shard) => events.push(`-${shard}`),
      },
      createLogger('leases-test', 'silent'),
      { ttlMs: 300, tickMs: 50 },
    );
    leases.start();
  });
  afterEach(async () => {
    redis.resume();
    await leases.stop();
  });

  it('a lease Redis does not confirm within its ttl is given up while Redis hangs, and taken again when it answers', async () => {
    await sleep(100);
    expect(leases.owned.size).toBe(2);
    redis.hanging = true;
    redis.keys.clear(); // and when it answers again, it has lost every key
    await sleep(100);
    expect(leases.owned.size).toBe(2); // within the ttl: still ours
    await sleep(350);
    expect(leases.owned.size).toBe(0);
    expect(events.filter((e) => e.startsWith('-')).sort()).toEqual(['-0', '-1']);
    redis.resume();
    await sleep(150);
    expect(leases.owned.size).toBe(2);
    expect(events.filter((e) => e.startsWith('+'))).toHaveLength(4);
  });

  it('a dropped connection gives every lease up at once; the next tick takes them again (its own leases included)', async () => {
    await sleep(100);
    expect(leases.owned.size).toBe(2);
    events.length = 0;
    redis.emit('close');
    expect(leases.owned.size).toBe(0);
    expect(events.sort()).toEqual(['-0', '-1']);
    // The keys are still there and still this replica's: it takes them back without waiting for the ttl.
    await sleep(100);
    expect(leases.owned.size).toBe(2);
  });

  it('a lease another replica holds is not taken', async () => {
    await leases.stop();
    redis = new FakeRedis();
    redis.keys.set(names.shardLease(0), 'replica-b');
    redis.keys.set(names.shardLease(1), 'replica-b');
    leases = new ShardLeases(
      redis as unknown as Redis,
      names,
      2,
      'replica-a',
      { acquired: (shard) => events.push(`+${shard}`), lost: () => undefined },
      createLogger('leases-test', 'silent'),
      { ttlMs: 300, tickMs: 50 },
    );
    leases.start();
    await sleep(100);
    expect(leases.owned.size).toBe(0);
  });
});

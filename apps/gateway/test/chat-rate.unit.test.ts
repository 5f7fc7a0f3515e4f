import { redisNames } from '@dominoes/protocol';
import { ChatRate } from '../src/chat/chat-rate';
import { uniquePrefix } from './support';
import { RedisConnections } from './unit-fakes';

const redis = new RedisConnections();
afterAll(() => redis.closeAll());

describe('ChatRate (real Redis)', () => {
  it("lets a player send the limit's messages in a window and refuses the next, on the player's key with the window's TTL", async () => {
    const names = redisNames(uniquePrefix('chat_rate'), 4);
    const store = redis.open('chat-rate-test');
    const rate = new ChatRate(store, names, { messages: 3, windowMs: 60_000 });
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await rate.take('p1'));
    expect(outcomes).toEqual([true, true, true, false, false]);
    // Refused ones count too: a flood stays refused until the window ends.
    expect(await store.get(names.chatRate('p1'))).toBe('5');
    const ttl = await store.pttl(names.chatRate('p1'));
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    // Another player has a count of their own.
    expect(await rate.take('p2')).toBe(true);
  });

  it('the first message starts the window: later ones do not push its end back', async () => {
    const names = redisNames(uniquePrefix('chat_rate'), 4);
    const store = redis.open('chat-rate-test');
    const rate = new ChatRate(store, names, { messages: 10, windowMs: 60_000 });
    await rate.take('p');
    await store.pexpire(names.chatRate('p'), 5_000);
    await rate.take('p');
    expect(await store.pttl(names.chatRate('p'))).toBeLessThanOrEqual(5_000);
  });

  it('two gateways (two clients on one Redis) share one count per player', async () => {
    const names = redisNames(uniquePrefix('chat_rate'), 4);
    const limit = { messages: 2, windowMs: 60_000 };
    const a = new ChatRate(redis.open('chat-rate-a'), names, limit);
    const b = new ChatRate(redis.open('chat-rate-b'), names, limit);
    expect([await a.take('p'), await b.take('p'), await a.take('p')]).toEqual([true, true, false]);
  });

  it('a new window begins once the last one has expired', async () => {
    const names = redisNames(uniquePrefix('chat_rate'), 4);
    const rate = new ChatRate(redis.open('chat-rate-test'), names, { messages: 1, windowMs: 100 });
    expect([await rate.take('p'), await rate.take('p')]).toEqual([true, false]);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await rate.take('p')).toBe(true);
  });

  it('throws when Redis does not answer the count (the caller answers UNAVAILABLE)', async () => {
    const names = redisNames(uniquePrefix('chat_rate'), 4);
    const store = redis.open('chat-rate-test');
    const rate = new ChatRate(store, names, { messages: 1, windowMs: 1_000 });
    await store.set(names.chatRate('p'), 'not a number');
    await expect(rate.take('p')).rejects.toThrow('the chat counter did not answer');
  });
});

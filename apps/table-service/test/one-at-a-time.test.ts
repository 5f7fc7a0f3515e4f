import { OneAtATime } from '../src/spectators/one-at-a-time';

/**
 * The per-socket queue of the spectators' watch intents (table-spectators.ts): one key's work in
 * order, a failure not blocking what follows, and nothing kept once a key's work is done (a key per
 * socket: a map that kept them would grow with every socket ever seen).
 */
describe('OneAtATime', () => {
  it("runs one key's work in the order given, other keys meanwhile; a failure does not block the next; a key is forgotten when its work is done", async () => {
    const queue = new OneAtATime();
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = queue.run('a', async () => {
      await gate;
      order.push('a1');
      return 1;
    });
    const failing = queue.run('a', () => Promise.reject(new Error('refused')));
    const third = queue.run('a', async () => order.push('a3'));
    const other = queue.run('b', async () => order.push('b1'));
    expect(queue.size).toBe(2);
    await other;
    expect(order).toEqual(['b1']);
    release();
    expect(await first).toBe(1);
    await expect(failing).rejects.toThrow('refused');
    await third;
    expect(order).toEqual(['b1', 'a1', 'a3']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.size).toBe(0);
  });

  it("a key's earlier work ending does not forget the work still queued after it: what is queued next still waits for that", async () => {
    const queue = new OneAtATime();
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = queue.run('a', async () => order.push('a1'));
    const second = queue.run('a', async () => {
      await gate;
      order.push('a2');
    });
    // a1 ended after a2 was queued: the key stays, with a2 its last work.
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.size).toBe(1);
    const third = queue.run('a', async () => order.push('a3'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['a1']);
    release();
    await Promise.all([second, third]);
    expect(order).toEqual(['a1', 'a2', 'a3']);
  });
});

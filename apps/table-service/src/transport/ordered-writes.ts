import type { RedisClient } from '@dominoes/platform';

type Pipeline = ReturnType<RedisClient['pipeline']>;
type Results = [error: Error | null, result: unknown][];

/**
 * The writes of one Redis connection (one Redis, never a cluster) that may share a round trip
 * (decision 0027): commands added in the same turn of the event loop go out as ONE pipeline when
 * the loop turns (setImmediate), in the order they were added. An intent's views (the engine's
 * publish), its reply and its XACK are added one after the other without waiting for Redis, so
 * they leave in one write and Redis runs them in that order: views, reply, ack. The intents of
 * other tables answered in the same turn join the same write.
 *
 * One per connection (`orderedWrites(redis)`): everything that must keep its order relative to
 * the others has to go through the same one.
 */
export class OrderedWrites {
  private pipeline: Pipeline | null = null;
  private results: Promise<Results> | null = null;

  constructor(private readonly redis: RedisClient) {}

  /**
   * Adds the commands `build` queues on the pipeline; resolves with their own results (an error
   * per failed command, as `exec` gives them), or rejects when the whole pipeline failed.
   */
  add(build: (pipeline: Pipeline) => void): Promise<Results> {
    if (!this.pipeline || !this.results) {
      const pipeline = this.redis.pipeline();
      this.pipeline = pipeline;
      this.results = new Promise<void>((turned) => setImmediate(turned)).then(async () => {
        this.pipeline = null;
        this.results = null;
        return ((await pipeline.exec()) ?? []) as Results;
      });
    }
    const from = this.pipeline.length;
    build(this.pipeline);
    const to = this.pipeline.length;
    return this.results.then((all) => all.slice(from, to));
  }
}

const perConnection = new WeakMap<RedisClient, OrderedWrites>();

/** The connection's one OrderedWrites. */
export function orderedWrites(redis: RedisClient): OrderedWrites {
  let writes = perConnection.get(redis);
  if (!writes) {
    writes = new OrderedWrites(redis);
    perConnection.set(redis, writes);
  }
  return writes;
}

/** The first error among a pipeline's results, thrown. */
export function throwIfFailed(results: Results): void {
  const failed = results.find(([error]) => error !== null)?.[0];
  if (failed) throw failed;
}

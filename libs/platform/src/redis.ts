import Redis, { Cluster, type ChainableCommander, type ClusterOptions, type RedisOptions } from 'ioredis';
import { writeTogether, type WriteWindow } from './tick-writes';

export { Cluster, Redis };

/** One Redis or a Redis Cluster: every service talks to either through the same commands. */
export type RedisClient = Redis | Cluster;

/**
 * Where Redis is: REDIS_URL, or, when REDIS_CLUSTER_NODES lists any node (`host:port,...`, a few
 * are enough: the client learns the others), a Redis Cluster. A service config is one; a bare URL
 * too (the tests' one Redis).
 */
export type RedisTarget =
  string | { readonly redisUrl: string; readonly redisClusterNodes?: readonly string[] | undefined };

/** The options of createRedis beyond ioredis's own. */
export interface CreateRedisOptions extends RedisOptions {
  /**
   * A subscriber of sharded channels (seat views, replies, control): on a cluster its SSUBSCRIBEs go
   * to the node that holds each channel's slot (ioredis's sharded subscribers), and follow a failover.
   */
  readonly sharded?: boolean;
  /**
   * The commands issued in one tick (`tick`), or in one turn of the event loop (`turn`), leave in
   * one write (writeTogether on every connection the client opens, to each node of a cluster): what
   * ioredis's `enableAutoPipelining` does for throughput, without a Pipeline object per tick
   * (decision 0033). Replies still come one by one.
   */
  readonly writesTogether?: WriteWindow;
}

/** Where a connection reports that it lost Redis and got it back (a service's logger fits). */
export interface RedisConnectionReporter {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

/** A JSON line on stderr, shaped like the services' pino lines: for connections given no logger. */
const line =
  (level: number) =>
  (fields: Record<string, unknown>, message: string): void =>
    void process.stderr.write(
      `${JSON.stringify({ level, time: new Date().toISOString(), ...fields, msg: message })}\n`,
    );
const stderrReporter: RedisConnectionReporter = { warn: line(40), info: line(30) };

/**
 * A Redis connection. ioredis reconnects by itself (every 100 ms, 200 ms, ... at most every 2 s),
 * re-subscribes a subscriber's channels and resends the commands that were under way.
 *
 * - `maxRetriesPerRequest: null` (the default here): a command issued while Redis is away waits for
 *   it to come back. Right for blocking readers (stream reads, BullMQ workers, subscribers) and for
 *   the table-service, whose work cannot go on without Redis anyway.
 * - A caller that must answer someone soon (the gateway's intent writer, the deadline producer)
 *   passes a small number: its commands then fail after that many reconnect attempts.
 *
 * An `error` listener is always attached: without one ioredis prints every failed reconnect attempt
 * with its stack. Instead one line says Redis is unreachable, and one that it is back.
 */
export function createRedis(
  target: string,
  name: string,
  options?: CreateRedisOptions,
  reporter?: RedisConnectionReporter,
): Redis;
export function createRedis(
  target: RedisTarget,
  name: string,
  options?: CreateRedisOptions,
  reporter?: RedisConnectionReporter,
): RedisClient;
export function createRedis(
  target: RedisTarget,
  name: string,
  options: CreateRedisOptions = {},
  reporter: RedisConnectionReporter = stderrReporter,
): RedisClient {
  const { sharded, writesTogether, ...redisOptions } = options;
  const settings: RedisOptions = {
    connectionName: name,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times) => Math.min(times * 100, 2000),
    ...redisOptions,
  };
  const nodes = typeof target === 'string' ? [] : (target.redisClusterNodes ?? []);
  const url = typeof target === 'string' ? target : target.redisUrl;
  const redis: RedisClient =
    nodes.length > 0
      ? createCluster(nodes, clusterAuth(url, settings), sharded === true)
      : new Redis(url, settings);
  if (writesTogether !== undefined) writeTogetherOnConnect(redis, writesTogether);
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    reporter.warn({ redis: name, err: error.message }, 'redis connection lost; reconnecting');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    reporter.info({ redis: name }, 'redis connection back');
  });
  return redis;
}

/** Every socket `redis` connects (each node's, on a cluster) writes each window's commands together. */
function writeTogetherOnConnect(redis: RedisClient, window: WriteWindow): void {
  const each = (node: Redis): void => {
    node.on('connect', () => writeTogether(node.stream, window));
  };
  if (onCluster(redis)) redis.on('+node', each);
  else each(redis);
}

/** `host:port` or `redis://[user:password@]host:port` of one cluster node. */
export function clusterNode(text: string): { host: string; port: number; password?: string } {
  const url = new URL(text.includes('://') ? text : `redis://${text}`);
  const port = Number(url.port || 6379);
  return {
    host: url.hostname,
    port,
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

/**
 * On a cluster REDIS_URL gives only what every node shares: its user, password and rediss:// (TLS),
 * so that REDIS_CLUSTER_NODES can be plain `host:port` (a ConfigMap) and the password stay in the
 * Secret that holds REDIS_URL. A password in a node's own URL wins.
 */
function clusterAuth(url: string, settings: RedisOptions): RedisOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return settings;
  }
  return {
    ...settings,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * A Redis Cluster client. A primary that dies is replaced by its replica within the cluster's
 * node timeout plus an election (about 2-5 s with cluster-node-timeout 2000): meanwhile a command
 * to its slots is retried, every `retryDelayOnFailover`/`retryDelayOnClusterDown` ms, up to
 * `maxRedirections` times (about 20 s in all), and not failed at once.
 */
function createCluster(nodes: readonly string[], redisOptions: RedisOptions, sharded: boolean): Cluster {
  const parsed = nodes.map(clusterNode);
  const password = parsed.find((node) => node.password)?.password;
  const { enableAutoPipelining, enableOfflineQueue, enableReadyCheck, ...perNode } = redisOptions;
  const options: ClusterOptions = {
    redisOptions: { ...perNode, ...(password ? { password } : {}) },
    clusterRetryStrategy: (times) => Math.min(times * 100, 2000),
    enableReadyCheck: enableReadyCheck ?? true,
    ...(enableAutoPipelining !== undefined ? { enableAutoPipelining } : {}),
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    maxRedirections: 100,
    slotsRefreshInterval: 2_000,
    shardedSubscribers: sharded,
  };
  return new Cluster(
    parsed.map(({ host, port }) => ({ host, port })),
    options,
  );
}

/** Is this a Redis Cluster client (sharded pub/sub, one command per slot) or one Redis? */
export const onCluster = (redis: RedisClient): redis is Cluster => redis.isCluster;

/**
 * Publishes on a channel named by redisNames: SPUBLISH on a cluster (delivered by the one node
 * that holds the channel's slot, instead of broadcast to every node), PUBLISH on one Redis.
 * `to` is the client or a pipeline of it.
 */
export function publishOn(
  to: RedisClient,
  cluster: boolean,
  channel: string,
  message: string,
): Promise<unknown>;
export function publishOn(
  to: ChainableCommander,
  cluster: boolean,
  channel: string,
  message: string,
): unknown;
export function publishOn(
  to: RedisClient | ChainableCommander,
  cluster: boolean,
  channel: string,
  message: string,
): unknown {
  return cluster ? to.spublish(channel, message) : to.publish(channel, message);
}

/**
 * A subscriber's three calls for the mode of its client: SSUBSCRIBE/SUNSUBSCRIBE and `smessage` on
 * a cluster (made with `sharded: true`), SUBSCRIBE/UNSUBSCRIBE and `message` on one Redis.
 */
export function subscriberOf(redis: RedisClient) {
  const cluster = onCluster(redis);
  return {
    cluster,
    subscribe: (channel: string): Promise<unknown> =>
      cluster ? redis.ssubscribe(channel) : redis.subscribe(channel),
    unsubscribe: (channel: string): Promise<unknown> =>
      cluster ? redis.sunsubscribe(channel) : redis.unsubscribe(channel),
    onMessage: (listener: (channel: string, message: string) => void): void =>
      void redis.on(cluster ? 'smessage' : 'message', listener),
    /**
     * Called whenever the subscriptions were made again (ioredis re-subscribes after a reconnection,
     * and on a cluster after a failover or a slot move: `subscribersReady`), not for the first
     * connection. A message published while they were down is lost (pub/sub delivers at most once).
     */
    onResubscribed: (listener: () => void): void => {
      let connected = redis.status === 'ready';
      redis.on(cluster ? 'subscribersReady' : 'ready', () => {
        if (connected) listener();
        connected = true;
      });
    },
  };
}

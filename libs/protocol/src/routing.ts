/** Names of the Redis keys and channels the services share, and the shard of a table. */

export const DEFAULT_TABLE_SHARDS = 16;
export const DEFAULT_REDIS_PREFIX = 'dominoes';
export const DEADLINE_QUEUE = 'deadlines';
export const INTENT_GROUP = 'table-service';

/** The one message pattern on the intent streams (the table-service's `@MessagePattern`). */
export const INTENT_PATTERN = 'intent';
/** The field of an intent stream entry that holds the envelope as JSON: `XADD <stream> ... * m <json>`. */
export const INTENT_FIELD = 'm';
/** `XADD ... MAXLEN ~ n`: how many entries a shard's intent stream keeps at most (roughly). */
export const INTENT_STREAM_MAXLEN = 100_000;

/** FNV-1a: stable across processes and languages. */
export function shardOf(tableId: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < tableId.length; i++) {
    h ^= tableId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

/** How many BullMQ deadline queues by default (DEADLINE_GROUPS): one, as on one Redis. */
export const DEFAULT_DEADLINE_GROUPS = 1;

/** The deadline queue group of a shard: shard `s` of `groups` groups is in group `s mod groups`. */
export function deadlineGroupOf(shard: number, groups: number): number {
  return shard % groups;
}

/**
 * Every key and channel under one prefix (REDIS_PREFIX), so that test suites, or two deployments,
 * can share a Redis without seeing each other: pub/sub channels ignore the db index.
 *
 * Redis Cluster (decision 0025): every name holds a hash tag (`{...}`), the part of the name
 * Redis hashes to find its slot. Everything of a shard (its intent stream, its lease, the seat
 * channels of its tables) is tagged `{shard:N}`, so it lives on one node; everything of a gateway
 * (heartbeat, control and reply channels) `{gateway:ID}`; a deadline queue group's BullMQ keys
 * `{deadlines:G}` (BullMQ's scripts touch several keys of a queue at once, so they must share a
 * slot). No command ever names two tags. On one Redis the tags are just characters of the names.
 * `shards` (TABLE_SHARDS) is needed for the table channels: a table's channels carry its shard.
 */
export function redisNames(prefix: string = DEFAULT_REDIS_PREFIX, shards: number = DEFAULT_TABLE_SHARDS) {
  const shardTag = (shard: number): string => `${prefix}:{shard:${shard}}`;
  const gatewayTag = (gatewayId: string): string => `${prefix}:{gateway:${gatewayId}}`;
  return {
    prefix,
    shards,
    /** BullMQ's own key prefix of deadline queue group `group` (hash-tagged: one slot per group). */
    bullPrefix: (group: number): string => `${prefix}:bull:{deadlines:${group}}`,
    intentStream: (shard: number): string => `${shardTag(shard)}:intents`,
    /**
     * A table's seats' views (decision 0037): one message per change holds each seat's own view or
     * change (`encodeSeatMessages`); every gateway with a socket bound to one of the table's seats
     * listens, and sends each socket its own seat's part only.
     */
    viewsChannel: (tableId: string): string => `${shardTag(shardOf(tableId, shards))}:table:${tableId}:views`,
    replyChannel: (gatewayId: string): string => `${gatewayTag(gatewayId)}:replies`,
    shardLease: (shard: number): string => `${shardTag(shard)}:lease`,
    /** Live table-service replicas: a sorted set of heartbeats (one key, its own slot). */
    replicaSet: `${prefix}:replicas`,
    /**
     * A gateway's heartbeat: its boot epoch (the first socket number, boot time in ms), set with a
     * TTL every few seconds and deleted on a clean shutdown. While it is missing, or holds a larger
     * epoch (the gateway restarted under the same id), the table-service treats that gateway's
     * older connection ids as closed.
     */
    gatewayAlive: (gatewayId: string): string => `${gatewayTag(gatewayId)}:alive`,
    /** What a gateway is asked to do by the others (GatewayControlSchema). */
    gatewayControl: (gatewayId: string): string => `${gatewayTag(gatewayId)}:control`,
    /** One player's sockets on every gateway: connection ids scored by their hello time (one key). */
    playerSockets: (playerId: string): string => `${prefix}:{player:${playerId}}:sockets`,
    /** A table's public view for its spectators (decision 0018): published only while someone watches. */
    spectatorChannel: (tableId: string): string =>
      `${shardTag(shardOf(tableId, shards))}:table:${tableId}:spectators`,
    /** The watching sockets of a shard's tables: a hash, connection id → `{tableId, playerId}` as JSON. */
    shardWatchers: (shard: number): string => `${shardTag(shard)}:watchers`,
    /** A table's chat (decision 0020): every gateway with a player or spectator of the table listens. */
    chatChannel: (tableId: string): string => `${shardTag(shardOf(tableId, shards))}:table:${tableId}:chat`,
    /** A table's last CHAT_HISTORY_KEPT chat messages, newest first (a list with a TTL; the channel's slot). */
    chatRecent: (tableId: string): string =>
      `${shardTag(shardOf(tableId, shards))}:table:${tableId}:chat:recent`,
    /** One player's chat messages in the current rate window, on every gateway (a counter with a TTL). */
    chatRate: (playerId: string): string => `${prefix}:{player:${playerId}}:chat:rate`,
    /** The gateways' per-address HTTP limit counters (decision 0008): one key per script call, any slot. */
    rateLimit: (action: string, subject: string): string => `${prefix}:ratelimit:${action}:${subject}`,
    /** Changes of public tables (LobbyUpdateSchema), table-service → every gateway's lobby sockets (one channel, its own slot). */
    lobbyChannel: `${prefix}:{lobby}`,
  };
}

export type RedisNames = ReturnType<typeof redisNames>;

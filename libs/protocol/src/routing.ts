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

/**
 * Every key and channel under one prefix (REDIS_PREFIX), so that test suites, or two deployments,
 * can share a Redis without seeing each other: pub/sub channels ignore the db index.
 */
export function redisNames(prefix: string = DEFAULT_REDIS_PREFIX) {
  return {
    prefix,
    /** BullMQ's own key prefix. */
    bullPrefix: `${prefix}:bull`,
    intentStream: (shard: number): string => `${prefix}:intents:${shard}`,
    seatChannel: (tableId: string, seat: number): string => `${prefix}:table:${tableId}:seat:${seat}`,
    replyChannel: (gatewayId: string): string => `${prefix}:replies:${gatewayId}`,
    shardLease: (shard: number): string => `${prefix}:lease:shard:${shard}`,
    /** Live table-service replicas: a sorted set of heartbeats. */
    replicaSet: `${prefix}:replicas`,
    /**
     * A gateway's heartbeat: its boot epoch (the first socket number, boot time in ms), set with a
     * TTL every few seconds and deleted on a clean shutdown. While it is missing, or holds a larger
     * epoch (the gateway restarted under the same id), the table-service treats that gateway's
     * older connection ids as closed.
     */
    gatewayAlive: (gatewayId: string): string => `${prefix}:gateway:${gatewayId}:alive`,
    /** What a gateway is asked to do by the others (GatewayControlSchema). */
    gatewayControl: (gatewayId: string): string => `${prefix}:gateway:${gatewayId}:control`,
    /** One player's sockets on every gateway: connection ids scored by their hello time. */
    playerSockets: (playerId: string): string => `${prefix}:player:${playerId}:sockets`,
    /** A table's public view for its spectators (decision 0018): published only while someone watches. */
    spectatorChannel: (tableId: string): string => `${prefix}:table:${tableId}:spectators`,
    /** The watching sockets of a shard's tables: a hash, connection id → `{tableId, playerId}` as JSON. */
    shardWatchers: (shard: number): string => `${prefix}:watchers:shard:${shard}`,
    /** A table's chat (decision 0020): every gateway with a player or spectator of the table listens. */
    chatChannel: (tableId: string): string => `${prefix}:table:${tableId}:chat`,
    /** A table's last CHAT_HISTORY_KEPT chat messages, newest first (a list with a TTL). */
    chatRecent: (tableId: string): string => `${prefix}:table:${tableId}:chat:recent`,
    /** One player's chat messages in the current rate window, on every gateway (a counter with a TTL). */
    chatRate: (playerId: string): string => `${prefix}:player:${playerId}:chat:rate`,
    /** Changes of public tables (LobbyUpdateSchema), table-service → every gateway's lobby sockets (one channel, its own slot). */
    lobbyChannel: `${prefix}:{lobby}`,
  };
}

export type RedisNames = ReturnType<typeof redisNames>;

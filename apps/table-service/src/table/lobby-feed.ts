import { onCluster, publishOn, type RedisClient } from '@dominoes/platform';
import type { LobbyTable, LobbyUpdate, RedisNames } from '@dominoes/protocol';
import { isPresent, type TableState } from './table-state';
import { tableSettings } from './table-views';

/*
 * The lobby's live feed (issue 12, decision 0019): after a change of a public table is stored, one
 * update on the lobby channel, and only when what the lobby shows of it changed (listed or not, a
 * seat taken or freed, the host, the status). A move changes none of these: the hot path publishes
 * nothing more; a presence change publishes only when it lists or unlists a waiting table (its
 * last present seat went away, or one came back: decision 0026). A private table never gets one.
 */

/** Where lobby updates go: the lobby channel in the service; a list in the engine's tests. */
export interface LobbyPublisher {
  publish(update: LobbyUpdate): Promise<void>;
}

/**
 * Listed: public, and in play, or waiting with a seat present (decision 0026): an emptied table, or
 * one whose players all closed their tabs, leaves the lobby; it comes back when one of them returns.
 */
function listed(table: TableState): boolean {
  if (table.public !== true) return false;
  if (table.status === 'playing') return true;
  return table.status === 'waiting' && table.seats.some(isPresent);
}

/** The table as the lobby shows it, or null when it is not listed. */
export function lobbyEntry(table: TableState): LobbyTable | null {
  if (!listed(table) || (table.status !== 'waiting' && table.status !== 'playing')) return null;
  return {
    ...tableSettings(table),
    status: table.status,
    players: table.seats.map((s) => s?.name ?? null),
    host: table.seats.find((s) => s !== null && s.playerId === table.hostPlayerId)?.name ?? null,
    openedAt: table.openedAt ?? 0,
    version: table.version,
    public: true,
  };
}

/** Whether the lobby sees the same of both: listing, status, host, who sits where (never a move's change). */
function sameInLobby(a: TableState, b: TableState): boolean {
  if (listed(a) !== listed(b) || a.status !== b.status || a.hostPlayerId !== b.hostPlayerId) return false;
  if (a.seats === b.seats) return true;
  if (a.seats.length !== b.seats.length) return false;
  return a.seats.every((s, i) => (s?.playerId ?? null) === (b.seats[i]?.playerId ?? null));
}

/** The update a stored change of `before` (null: a new table) into `after` makes, or null for none. */
export function lobbyUpdateOf(before: TableState | null, after: TableState): LobbyUpdate | null {
  if (after.public !== true && before?.public !== true) return null;
  if (before !== null && sameInLobby(before, after)) return null;
  if (before === null && !listed(after)) return null;
  return { tableId: after.id, version: after.version, table: lobbyEntry(after) };
}

/** Publishes lobby updates on the lobby channel (names.lobbyChannel), read by every gateway. */
export class RedisLobbyPublisher implements LobbyPublisher {
  constructor(
    /** A Redis connection (one node or a cluster): PUBLISH, or SPUBLISH on a cluster (decision 0025). */
    private readonly redis: RedisClient,
    private readonly names: RedisNames,
  ) {}

  async publish(update: LobbyUpdate): Promise<void> {
    await publishOn(this.redis, onCluster(this.redis), this.names.lobbyChannel, JSON.stringify(update));
  }
}

/**
 * The ids the services make for each other. An intent id is unique per table and makes an intent
 * apply at most once (the log's unique key), so every sender of the same intent must spell it the
 * same way: the table-service closes a dead gateway's socket with the very id the gateway would
 * have sent, and the overdue sweep fires a deadline with the timer-service's id.
 */
export const intentIds = {
  /** A player's intent from a socket: the player and the id the browser gave it. */
  player: (playerId: string, clientId: string): string => `${playerId}:${clientId}`,
  /** `POST /api/tables`: one per code tried. */
  create: (playerId: string, tableCode: string): string => `${playerId}:create:${tableCode}`,
  /** The socket is gone (closed, or its gateway died): presence `{connected: false}`. */
  closed: (connectionId: string): string => `${connectionId}:closed`,
  /** The socket left this table for another (its `binding`-th): presence `{connected: false}`. */
  left: (connectionId: string, binding: number): string => `${connectionId}:left:${binding}`,
  /**
   * The gateway's own sync, its `n`-th for the socket: once the socket is bound to its seat, and when
   * a view's change does not fit what the socket was sent last (decision 0036).
   */
  sync: (connectionId: string, n: number): string => `${connectionId}:sync:${n}`,
  /** The socket's `n`-th watch (or its end): never stored, so only unique enough to route its reply. */
  watch: (connectionId: string, n: number, on: boolean): string =>
    `${connectionId}:${on ? 'watch' : 'unwatch'}:${n}`,
  /** A deadline firing, by the deadline's key (the version that set it). */
  deadline: (key: string): string => `deadline:${key}`,
};

/** A gateway id (GATEWAY_ID): letters, digits, `_`, `.`, `-`, 1 to 64 of them. */
export const GATEWAY_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** A connection id: `<gatewayId>:<seq>`, seq counting up from the gateway's boot epoch (its boot time in ms). */
export interface ConnectionRef {
  readonly gatewayId: string;
  readonly seq: number;
}

export const connectionId = (gatewayId: string, seq: number): string => `${gatewayId}:${seq}`;

const CONNECTION_ID = new RegExp(`^(${GATEWAY_ID_PATTERN.source.slice(1, -1)}):(\\d{1,16})$`);

/** The gateway and number of a connection id; null for anything else. */
export function parseConnectionId(id: string): ConnectionRef | null {
  const match = CONNECTION_ID.exec(id);
  if (!match) return null;
  const seq = Number(match[2]);
  return Number.isSafeInteger(seq) ? { gatewayId: match[1]!, seq } : null;
}

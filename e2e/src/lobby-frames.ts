import type { LobbyTable, ServerMessage } from '@dominoes/protocol';
import { TestPlayer, type PlayerEndpoints } from './players';
import type { TestSystem } from './system';

/* What the lobby suites read of a player's frames (decisions 0019, 0026). */

export type LobbyFrame = Extract<ServerMessage, { type: 'lobby' }>;
export type UpdateFrame = Extract<ServerMessage, { type: 'lobbyUpdate' }>;

/** The next frame of `p` that `predicate` accepts (frames already received count, from index `from`). */
export async function nextFrame<T extends ServerMessage>(
  p: TestPlayer,
  predicate: (f: ServerMessage) => f is T,
  from = 0,
  timeoutMs = 10_000,
): Promise<T> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const found = p.frames.slice(from).find(predicate);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(
    `${p.name}: the expected frame did not arrive; got ${JSON.stringify(p.frames.slice(from).map((f) => (f.type === 'lobbyUpdate' ? f : f.type)))}`,
  );
}

export const isLobby = (f: ServerMessage): f is LobbyFrame => f.type === 'lobby';

/** A `lobbyUpdate` of `tableId` whose table `check` accepts. */
export const updateOf =
  (tableId: string, check: (t: LobbyTable | null) => boolean = () => true) =>
  (f: ServerMessage): f is UpdateFrame =>
    f.type === 'lobbyUpdate' && f.tableId === tableId && check(f.table);

/** Subscribes `p` to the lobby and waits for the whole lobby. */
export async function subscribeLobby(p: TestPlayer): Promise<LobbyFrame> {
  const from = p.frames.length;
  await p.client.lobby(true);
  return nextFrame(p, isLobby, from);
}

/** The HTTP and WebSocket addresses of each of `system`'s gateways. */
export const gatewayEndpoints = (system: TestSystem, count: number): PlayerEndpoints[] =>
  Array.from({ length: count }, (_, i) => ({
    httpUrl: system.gatewayUrl(i),
    wsUrl: `${system.gatewayUrl(i).replace('http', 'ws')}/ws`,
  }));

/** A new player on `endpoints`, its socket connected unless `connect` is false. */
export async function playerOn(
  endpoints: PlayerEndpoints,
  name: string,
  connect = true,
): Promise<TestPlayer> {
  const p = await TestPlayer.create(endpoints, name);
  if (connect) await p.connect();
  return p;
}

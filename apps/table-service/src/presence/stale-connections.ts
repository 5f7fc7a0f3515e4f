import type { Clock, Logger, RedisClient } from '@dominoes/platform';
import {
  intentIds,
  parseConnectionId,
  type IntentEnvelope,
  type IntentReply,
  type RedisNames,
} from '@dominoes/protocol';
import type { TableState } from '../table/table-state';

/** What the sweeper needs of the TableEngine. */
export interface SweptEngine {
  cachedTables(): Iterable<TableState>;
  handle(envelope: IntentEnvelope): Promise<IntentReply>;
}

export interface StaleConnectionOptions {
  readonly engine: SweptEngine;
  readonly redis: RedisClient;
  readonly names: RedisNames;
  readonly clock: Clock;
  readonly logger: Logger;
  /** True while this replica holds the lease of the table's shard. */
  readonly owns: (tableId: string) => boolean;
  /** How long a gateway's heartbeat must be missing, without a break, before its connections are closed. */
  readonly graceMs: number;
  /** Time between two sweeps. */
  readonly intervalMs: number;
  /** Presence intents handed to the engine at once (each is one Postgres write). */
  readonly concurrency?: number;
}

interface SeatConnection {
  readonly table: TableState;
  readonly seat: number;
  readonly connectionId: string;
  readonly seq: number;
}

type Reason = 'gateway-gone' | 'gateway-restarted';

/** How long stop() waits for a sweep under way (a Redis or Postgres that does not answer must not hold it). */
const STOP_WAIT_MS = 5_000;

/**
 * Closes the connections of gateways that died without saying so (kill -9, OOM, a lost node).
 *
 * A gateway tells the table a socket is gone with a `presence {connected: false}` intent whose id is
 * `<connectionId>:closed`. A dead gateway sends none, so its connection ids would stay on the seats
 * and the seats would look connected (45 s turns instead of P17's 5 s) until their players came back.
 * Every gateway keeps a heartbeat key holding its boot epoch (`names.gatewayAlive`). Every interval
 * this sweeper reads the keys of the gateways named by the seats of this replica's tables, in one
 * MGET, and treats a connection as closed when:
 * - its gateway's key has been missing, at every sweep, for at least the grace (a restarted, empty
 *   Redis has no keys until the gateways' next heartbeat: the grace keeps that from dropping anyone);
 * - or the key holds an epoch above the connection's number: the gateway restarted under the same id,
 *   so the connection belongs to its previous life.
 * For each, it hands the engine the very envelope the gateway would have sent: stored, published and
 * deduplicated like any other intent (the same intent id, so at most once if the gateway did send it).
 */
export class StaleConnectionSweeper {
  /** When each gateway named on a seat was first seen without a heartbeat (since then, at every sweep). */
  private readonly missingSince = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly options: StaleConnectionOptions) {}

  start(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => void this.tick(), this.options.intervalMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = null;
    this.running = this.sweep().then(
      () => undefined,
      (error: unknown) => {
        if (!this.stopped) this.options.logger.error({ err: error }, 'stale-connection sweep failed');
      },
    );
    await this.running;
    this.running = null;
    this.start();
  }

  /** No more sweeps; waits (a while) for the one under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.running) return;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([this.running, new Promise((r) => (timeout = setTimeout(r, STOP_WAIT_MS)))]);
    clearTimeout(timeout);
  }

  /** One pass; resolves to the number of connections it closed. */
  async sweep(): Promise<number> {
    const { engine, redis, names, clock, owns, graceMs } = this.options;
    const byGateway = new Map<string, SeatConnection[]>();
    for (const table of engine.cachedTables()) {
      if (!owns(table.id)) continue;
      table.seats.forEach((seat, index) => {
        for (const connectionId of seat?.connections ?? []) {
          const ref = parseConnectionId(connectionId);
          if (!ref) continue;
          const list = byGateway.get(ref.gatewayId) ?? [];
          list.push({ table, seat: index, connectionId, seq: ref.seq });
          byGateway.set(ref.gatewayId, list);
        }
      });
    }
    for (const gatewayId of [...this.missingSince.keys()]) {
      if (!byGateway.has(gatewayId)) this.missingSince.delete(gatewayId);
    }
    if (byGateway.size === 0) return 0;

    const gateways = [...byGateway.keys()];
    // One GET per gateway, not an MGET: each heartbeat has its gateway's hash tag, so on a cluster
    // they are on different slots (on one Redis they leave in one write: writesTogether, decision 0033).
    const epochs = await Promise.all(gateways.map((id) => redis.get(names.gatewayAlive(id))));
    if (this.stopped) return 0;
    const now = clock.now();
    const stale: { connection: SeatConnection; gatewayId: string; reason: Reason }[] = [];
    gateways.forEach((gatewayId, i) => {
      const connections = byGateway.get(gatewayId)!;
      const value = epochs[i] ?? null;
      if (value === null) {
        const since = this.missingSince.get(gatewayId) ?? now;
        this.missingSince.set(gatewayId, since);
        if (now - since < graceMs) return;
        this.options.logger.warn(
          { gatewayId, missingMs: now - since, connections: connections.length },
          'gateway heartbeat gone: closing its connections',
        );
        for (const connection of connections) stale.push({ connection, gatewayId, reason: 'gateway-gone' });
        return;
      }
      this.missingSince.delete(gatewayId);
      const epoch = Number(value);
      if (!Number.isFinite(epoch)) return;
      for (const connection of connections) {
        if (epoch > connection.seq) stale.push({ connection, gatewayId, reason: 'gateway-restarted' });
      }
    });
    if (stale.length === 0) return 0;

    let closed = 0;
    const queue = stale.slice();
    const worker = async (): Promise<void> => {
      for (let next = queue.shift(); next && !this.stopped; next = queue.shift()) {
        if (await this.close(next.connection, next.gatewayId, next.reason)) closed++;
      }
    };
    const concurrency = Math.max(1, this.options.concurrency ?? 8);
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
    this.options.logger.info({ closed, stale: stale.length }, 'stale connections closed');
    return closed;
  }

  /** The gateway's own `<connectionId>:closed` presence intent, through the engine. */
  private async close(connection: SeatConnection, gatewayId: string, reason: Reason): Promise<boolean> {
    const { engine, clock, logger, owns } = this.options;
    const { table, seat, connectionId } = connection;
    const player = table.seats[seat];
    if (!player || !owns(table.id)) return false;
    const envelope: IntentEnvelope = {
      intentId: intentIds.closed(connectionId),
      tableId: table.id,
      player: { id: player.playerId, name: player.name },
      connectionId,
      replyTo: null,
      sentAt: clock.now(),
      intent: { kind: 'presence', connected: false },
    };
    const fields = { tableId: table.id, seat, conn: connectionId, gatewayId, reason };
    try {
      const reply = await engine.handle(envelope);
      if (!reply.ok) {
        logger.warn({ ...fields, code: reply.code }, 'stale connection not closed; trying again next sweep');
        return false;
      }
      logger.debug({ ...fields, version: reply.version }, 'stale connection closed');
      return true;
    } catch (error) {
      logger.error({ ...fields, err: error }, 'stale connection not closed; trying again next sweep');
      return false;
    }
  }
}

import type { Clock, Logger, Redis } from '@dominoes/platform';
import { intentIds, parseConnectionId, type RedisNames } from '@dominoes/protocol';
import type { TableSpectators } from './table-spectators';

export interface StaleWatcherOptions {
  readonly spectators: TableSpectators;
  readonly redis: Pick<Redis, 'get'>;
  readonly names: RedisNames;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How long a gateway's heartbeat must be missing before its watching sockets are dropped. */
  readonly graceMs: number;
  readonly intervalMs: number;
}

/**
 * Drops the watchers of gateways that died without saying so (decision 0018), by the rule the
 * presence sweep (presence/stale-connections.ts) uses for seats: the gateway's heartbeat key missing
 * for the grace, or holding a later boot epoch than the socket's number. The unwatch goes through
 * TableSpectators like the gateway's own, so the players see the count go down.
 */
export class StaleWatcherSweeper {
  private readonly missingSince = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: StaleWatcherOptions) {}

  start(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.sweep()
        .catch((error: unknown) => this.options.logger.warn({ err: error }, 'stale-watcher sweep failed'))
        .finally(() => this.start());
    }, this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** One pass; resolves to how many watching sockets it dropped. */
  async sweep(): Promise<number> {
    const { spectators, redis, names, clock, graceMs } = this.options;
    const byGateway = new Map<
      string,
      { connectionId: string; tableId: string; playerId: string; seq: number }[]
    >();
    for (const [connectionId, watching] of spectators.registry.connections()) {
      const ref = parseConnectionId(connectionId);
      if (!ref) continue;
      const list = byGateway.get(ref.gatewayId) ?? [];
      list.push({ connectionId, ...watching, seq: ref.seq });
      byGateway.set(ref.gatewayId, list);
    }
    for (const gatewayId of [...this.missingSince.keys()])
      if (!byGateway.has(gatewayId)) this.missingSince.delete(gatewayId);
    const gateways = [...byGateway.keys()];
    // One GET per gateway: on a cluster each gateway's key has a slot of its own.
    const epochs = await Promise.all(gateways.map((id) => redis.get(names.gatewayAlive(id))));
    const now = clock.now();
    let dropped = 0;
    for (const [i, gatewayId] of gateways.entries()) {
      const value = epochs[i] ?? null;
      let stale: (seq: number) => boolean;
      if (value === null) {
        const since = this.missingSince.get(gatewayId) ?? now;
        this.missingSince.set(gatewayId, since);
        stale = () => now - since >= graceMs;
      } else {
        this.missingSince.delete(gatewayId);
        const epoch = Number(value);
        stale = (seq) => Number.isFinite(epoch) && epoch > seq;
      }
      for (const watcher of byGateway.get(gatewayId)!) {
        if (this.stopped || !stale(watcher.seq)) continue;
        const reply = await spectators.handle({
          intentId: intentIds.watch(watcher.connectionId, 0, false),
          tableId: watcher.tableId,
          player: { id: watcher.playerId, name: '' },
          connectionId: watcher.connectionId,
          replyTo: null,
          sentAt: now,
          intent: { kind: 'watch', on: false },
        });
        if (reply.ok) dropped++;
      }
    }
    if (dropped > 0) this.options.logger.info({ dropped }, 'watchers of gone gateways dropped');
    return dropped;
  }
}

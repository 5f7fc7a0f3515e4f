import type { Logger } from '@dominoes/platform';
import {
  encodeSpectatorEvent,
  type IntentEnvelope,
  type IntentReply,
  type RedisNames,
} from '@dominoes/protocol';
import type { SeatPublisher } from '../table/table-ports';
import type { TableState } from '../table/table-state';
import { occupiedSeats, seatMessages, spectatorView } from '../table/table-views';
import { OneAtATime } from './one-at-a-time';
import type { TableWatchers } from './table-watchers';

/** What the engine asks of the spectators at every stored change (EngineDeps.spectators). */
export interface SpectatorHook {
  /** How many players watch the table: in every seat's view. */
  watchers(tableId: string): number;
  /** After the seats' views of a stored change: the public view, on the spectator channel, if anyone watches. */
  published(table: TableState, traceparent?: string): Promise<void>;
}

/** What the spectators need of the engine: its copy of a table. */
export interface WatchedTables {
  load(tableId: string): Promise<TableState | null>;
}

/**
 * Watching tables, on the table-service (decision 0018): applies the gateways' `watch` intents
 * (never stored: watching changes no table, its version or its log), answers each with the
 * spectator's first view, and publishes the public view of every stored change while someone
 * watches. A change of the number of watchers sends the players (and the spectators) the same
 * version again with the new count.
 */
export class TableSpectators implements SpectatorHook {
  private tables: WatchedTables | null = null;
  private readonly queue = new OneAtATime();

  constructor(
    readonly registry: TableWatchers,
    /** PUBLISH (SPUBLISH on a cluster) of one message on one channel. */
    private readonly publish: (channel: string, message: string) => Promise<unknown>,
    private readonly names: RedisNames,
    private readonly seats: SeatPublisher,
    private readonly logger: Logger,
  ) {}

  /** The engine, once it is built (it takes this hook in its own deps). */
  attach(tables: WatchedTables): void {
    this.tables = tables;
  }

  watchers(tableId: string): number {
    return this.registry.count(tableId);
  }

  async published(table: TableState, traceparent?: string): Promise<void> {
    const watchers = this.registry.count(table.id);
    if (watchers === 0) return;
    await this.publish(
      this.names.spectatorChannel(table.id),
      encodeSpectatorEvent({
        tableId: table.id,
        version: table.version,
        view: spectatorView(table, watchers),
        ...(traceparent ? { traceparent } : {}),
      }),
    );
  }

  /**
   * A `watch` intent: `on` starts watching (the reply holds the first view), off ends it. The intents
   * of one socket are applied one at a time, in order (a watch and the unwatch right after it).
   */
  handle(envelope: IntentEnvelope): Promise<IntentReply> {
    return this.queue.run(envelope.connectionId ?? '', () => this.apply(envelope));
  }

  private async apply(envelope: IntentEnvelope): Promise<IntentReply> {
    const { intentId, tableId, intent, player, connectionId } = envelope;
    if (intent.kind !== 'watch') throw new Error(`not a watch intent: ${intent.kind}`);
    if (player === null || connectionId === null)
      return {
        ok: false,
        intentId,
        code: 'UNAUTHENTICATED',
        message: 'Watching needs a player and a socket.',
      };
    if (!intent.on) {
      const left = await this.registry.remove(connectionId);
      if (left !== null) await this.countChanged(left);
      return { ok: true, intentId, version: null, seat: null };
    }
    const table = await this.load(tableId);
    if (!table)
      return { ok: false, intentId, code: 'TABLE_NOT_FOUND', message: `There is no table ${tableId}.` };
    const outcome = await this.registry.add(connectionId, { tableId, playerId: player.id });
    if (!outcome.ok)
      return {
        ok: false,
        intentId,
        code: outcome.code,
        message: 'This table has as many watchers as it can take.',
      };
    if (outcome.left !== null) await this.countChanged(outcome.left);
    // The newest copy: a change may have been stored while the watcher was being added.
    const now = (await this.load(tableId)) ?? table;
    if (outcome.changed) await this.countChanged(tableId, now);
    const view = JSON.stringify(spectatorView(now, this.registry.count(tableId)));
    return { ok: true, intentId, version: now.version, seat: null, view };
  }

  /** The players and the spectators get the table's current version again, with the new count. */
  private async countChanged(tableId: string, known?: TableState): Promise<void> {
    const table = known ?? (await this.load(tableId));
    if (!table) return;
    const watchers = this.registry.count(tableId);
    try {
      await this.seats.publish(seatMessages(table, occupiedSeats(table), watchers, null));
      await this.published(table);
    } catch (error) {
      // The count is only shown: the next change of the table sends it again.
      this.logger.warn({ err: error, tableId }, 'the new number of watchers was not published');
    }
  }

  private load(tableId: string): Promise<TableState | null> {
    if (!this.tables) throw new Error('TableSpectators used before the engine was attached');
    return this.tables.load(tableId);
  }
}

import { ServiceMetrics } from '@dominoes/platform';
import { TableStatusSchema } from '@dominoes/protocol';
import type { EngineMetrics } from './table/table-engine';
import type { TableState } from './table/table-state';

export class TableServiceMetrics extends ServiceMetrics implements EngineMetrics {
  private readonly intents = this.counter(
    'dominoes_intents_total',
    'Intents handled by the table-service, by kind and outcome (applied or an error code).',
    ['kind', 'outcome'],
  );

  intent(kind: string, outcome: string): void {
    this.intents.inc({ kind, outcome });
  }

  /** The gauges read on each scrape: the tables this replica holds, and its shards. */
  watch(tables: () => Iterable<TableState>, ownedShards: () => number): void {
    this.gauge('dominoes_active_tables', 'Tables this replica holds, by state.', ['state'], (gauge) => {
      // Every state from 0, each scrape: a state no table is in any more reads 0, not its last count.
      const counts = Object.fromEntries(TableStatusSchema.options.map((state) => [state, 0]));
      for (const t of tables()) counts[t.status] += 1;
      for (const [state, n] of Object.entries(counts)) gauge.set({ state }, n);
    });
    this.gauge('dominoes_owned_shards', 'Shards this replica holds the lease of.', [], (gauge) =>
      gauge.set(ownedShards()),
    );
  }
}

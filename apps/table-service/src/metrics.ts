import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { EngineMetrics } from './table/table-engine';
import type { TableState } from './table/table-state';

export class TableServiceMetrics implements EngineMetrics {
  readonly registry = new Registry();
  private readonly intents = new Counter({
    name: 'dominoes_intents_total',
    help: 'Intents handled by the table-service, by kind and outcome (applied or an error code).',
    labelNames: ['kind', 'outcome'],
    registers: [this.registry],
  });

  constructor(tables: () => Iterable<TableState>, ownedShards: () => number) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'dominoes_active_tables',
      help: 'Tables this replica holds, by state.',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const counts: Record<string, number> = { waiting: 0, playing: 0, finished: 0 };
        for (const t of tables()) counts[t.status] = (counts[t.status] ?? 0) + 1;
        for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
      },
    });
    new Gauge({
      name: 'dominoes_owned_shards',
      help: 'Shards this replica holds the lease of.',
      registers: [this.registry],
      collect() {
        this.set(ownedShards());
      },
    });
  }

  intent(kind: string, outcome: string): void {
    this.intents.inc({ kind, outcome });
  }
}

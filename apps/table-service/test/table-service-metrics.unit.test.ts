import { TableServiceMetrics } from '../src/metrics';
import type { TableState } from '../src/table/table-state';

const table = (status: TableState['status']) => ({ status }) as TableState;

/** The table-service's gauges, read from its own registry as a scrape reads them. */
describe('table-service metrics: dominoes_active_tables', () => {
  it('counts the held tables by state, every state listed, and a state no table is in any more reads 0 on the next scrape', async () => {
    const metrics = new TableServiceMetrics(false);
    let held: TableState[] = [table('closed'), table('playing'), table('playing'), table('waiting')];
    metrics.watch(
      () => held,
      () => 3,
    );
    const first = await metrics.registry.metrics();
    expect(first).toContain('dominoes_active_tables{state="closed"} 1');
    expect(first).toContain('dominoes_active_tables{state="playing"} 2');
    expect(first).toContain('dominoes_active_tables{state="waiting"} 1');
    expect(first).toContain('dominoes_active_tables{state="finished"} 0');
    expect(first).toContain('dominoes_owned_shards 3');

    held = [table('finished')];
    const second = await metrics.registry.metrics();
    expect(second).toContain('dominoes_active_tables{state="closed"} 0');
    expect(second).toContain('dominoes_active_tables{state="playing"} 0');
    expect(second).toContain('dominoes_active_tables{state="waiting"} 0');
    expect(second).toContain('dominoes_active_tables{state="finished"} 1');
  });
});

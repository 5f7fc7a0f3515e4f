import { createSeededRng, RULE_DURATIONS, type Rng } from '@dominoes/rules';
import type { TableEvent } from '../../src/table/table-events';
import { decide, openTable, type PolicyContext } from '../../src/table/table-policy';
import type { TableState } from '../../src/table/table-state';
import { accepted, policyEnvelopes } from './policy-intents';

/** The instant a played table opens at. */
export const START = 1_000_000;

export const policyContext = (now: number, rng: Rng = createSeededRng(5)): PolicyContext => ({
  now,
  rng,
  durations: RULE_DURATIONS,
});

export interface Played {
  readonly events: TableEvent[];
  /** The table after each accepted intent. */
  readonly states: TableState[];
  readonly final: TableState;
}

/**
 * Through the policy alone: opens table MATCH1 for host `h`, seats `players` (connected), then fires
 * each deadline at its instant (every move the deadline's own) until `until`.
 */
export function playByDeadlines(
  config: Parameters<typeof openTable>[2],
  players: string[],
  until: (t: TableState) => boolean,
  rng: Rng = createSeededRng(5),
  envelope = policyEnvelopes('MATCH1', 'm'),
): Played {
  const opened = accepted(
    openTable('MATCH1', { id: 'h', name: 'h' }, config, 'c-h', { now: START, waitingTableTtlMs: 900_000 }),
  );
  const events: TableEvent[] = [...opened.events];
  const states: TableState[] = [];
  let table: TableState = { ...opened.table, version: opened.events.length };
  const apply = (e: ReturnType<typeof envelope>, now: number) => {
    const d = accepted(decide(table, e, policyContext(now, rng)));
    events.push(...d.events);
    table = { ...d.table, version: table.version + d.events.length };
    states.push(table);
  };
  for (const p of players) apply(envelope(p, { kind: 'join' }, `c-${p}`), START);
  for (let guard = 0; !until(table) && guard < 5000; guard++) {
    const due = table.deadline!;
    apply(envelope(null, { kind: 'deadline', key: due.key, dueAt: due.at }), due.at);
  }
  return { events, states, final: table };
}

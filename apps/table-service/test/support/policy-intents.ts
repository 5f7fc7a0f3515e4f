import type { IntentEnvelope, TableIntent } from '@dominoes/protocol';
import type { Decision } from '../../src/table/table-policy';

/** Envelopes for `decide` on one table, with ids `<prefix>1`, `<prefix>2`, ... */
export function policyEnvelopes(tableId: string, prefix: string) {
  let counter = 0;
  return (
    player: string | null,
    intent: TableIntent,
    connectionId: string | null = null,
  ): IntentEnvelope => ({
    intentId: `${prefix}${++counter}`,
    tableId,
    player: player ? { id: player, name: player } : null,
    connectionId,
    replyTo: null,
    sentAt: 0,
    intent,
  });
}

/** The decision, or the refusal's code and message as a thrown error. */
export const accepted = (d: Decision): Extract<Decision, { ok: true }> => {
  if (!d.ok) throw new Error(`${d.code}: ${d.message}`);
  return d;
};

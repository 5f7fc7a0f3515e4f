import { isDeepStrictEqual } from 'node:util';
import { seatView } from '@dominoes/rules';
import { replayLog, type LogRow } from '../src/stored-log';
import type { SentIntent, ShownView } from './play';

export interface TableCheck {
  readonly tableId: string;
  /** Acknowledged intents not in the log. */
  readonly lost: string[];
  /** Intent ids in the log more than once. */
  readonly doubled: string[];
  /** Intents answered with an error ("not applied") that are in the log. */
  readonly refusedButStored: string[];
  /** Views a player was shown that the stored log, replayed through libs/rules, does not give. */
  readonly wrongViews: string[];
  readonly acked: number;
  readonly refused: number;
  readonly unknown: { readonly stored: number; readonly notStored: number };
  readonly viewsCompared: number;
}

const canonical = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/**
 * One table's log against what its players sent and were shown: every ack stored once, no refused
 * intent stored, no intent id twice, and every kept view equal to libs/rules' view of that seat after
 * replaying the log up to the view's version (a view at version v shows the state the rows with
 * seq <= v make).
 */
export function checkTable(
  tableId: string,
  rows: readonly LogRow[],
  sent: readonly SentIntent[],
  shown: readonly ShownView[],
): TableCheck {
  const count = new Map<string, number>();
  for (const row of rows)
    if (row.intent_id !== null) count.set(row.intent_id, (count.get(row.intent_id) ?? 0) + 1);
  const stored = (id: string) => count.get(id) ?? 0;
  const acked = sent.filter((s) => s.outcome === 'acked');
  const refused = sent.filter((s) => s.outcome === 'refused');
  const unknown = sent.filter((s) => s.outcome === 'unknown' || s.outcome === 'pending');
  const wrongViews: string[] = [];
  try {
    replayLog(rows); // every action of every match legal, every deal opened by the seat the rules name
  } catch (error) {
    wrongViews.push(`the log does not replay: ${(error as Error).message}`);
  }
  for (const view of shown) {
    try {
      const replayed = replayLog(rows.filter((r) => r.seq <= view.version)).find(
        (m) => m.number === view.matchNumber,
      );
      if (!replayed) {
        wrongViews.push(`v${view.version} seat ${view.seat}: match ${view.matchNumber} is not in the log`);
        continue;
      }
      const expected = canonical(seatView(replayed.state, view.seat));
      if (!isDeepStrictEqual(expected, canonical(view.game))) {
        const e = expected as typeof view.game;
        wrongViews.push(
          `v${view.version} seat ${view.seat} match ${view.matchNumber}: shown scores ${JSON.stringify(view.game.scores)} log ${view.game.log.length}, replayed ${JSON.stringify(e.scores)} log ${e.log.length}`,
        );
      }
    } catch (error) {
      wrongViews.push(`v${view.version} seat ${view.seat}: ${(error as Error).message}`);
    }
  }
  return {
    tableId,
    lost: acked.filter((s) => stored(s.intentId) === 0).map((s) => s.intentId),
    doubled: [...count].filter(([, n]) => n > 1).map(([id]) => id),
    refusedButStored: refused.filter((s) => stored(s.intentId) > 0).map((s) => `${s.intentId} (${s.code})`),
    wrongViews,
    acked: acked.length,
    refused: refused.length,
    unknown: {
      stored: unknown.filter((s) => stored(s.intentId) > 0).length,
      notStored: unknown.filter((s) => stored(s.intentId) === 0).length,
    },
    viewsCompared: shown.length,
  };
}

/** The first move of each table at or after `since`, in ms after it (Infinity: the table never moved). */
export function movedAfter(moves: readonly number[], since: number): number {
  const first = moves.find((t) => t >= since);
  return first === undefined ? Number.POSITIVE_INFINITY : first - since;
}

/** The longest time a table went without moving between `from` and `to` (its first and last gaps included). */
export function longestPause(moves: readonly number[], from: number, to: number): number {
  let previous = from;
  let longest = 0;
  for (const t of moves) {
    if (t < from || t > to) continue;
    longest = Math.max(longest, t - previous);
    previous = t;
  }
  return Math.max(longest, to - previous);
}

import { createLogger, type Redis } from '@dominoes/platform';
import type { IntentEnvelope, IntentReply } from '@dominoes/protocol';
import { ShardedStreamsServer, type ShardedStreamsOptions } from '../../src/transport/sharded-streams.server';

/**
 * A suite's shard transport: `options` as given, a logger named `label` (silent unless TEST_LOG_LEVEL
 * is set), and leases `ttlMs` long renewed every 100 ms.
 */
export function quietTransport(
  label: string,
  options: Omit<ShardedStreamsOptions, 'logger' | 'leaseTiming'> & { readonly ttlMs: number },
): ShardedStreamsServer {
  const { ttlMs, ...given } = options;
  return new ShardedStreamsServer({
    ...given,
    logger: createLogger(label, process.env.TEST_LOG_LEVEL ?? 'silent'),
    leaseTiming: { ttlMs, tickMs: 100 },
  });
}

/** The reply to an intent the table applied (at version 1, no seat): what a stand-in engine answers. */
export const appliedReply = (e: IntentEnvelope): IntentReply => ({
  ok: true,
  intentId: e.intentId,
  version: 1,
  seat: null,
});

/**
 * A transport suite's Redis cleanup: removes every key under `prefix:` (the suite's own) through
 * `admin`, then disconnects each of `connections` and `admin` (one not made yet is skipped).
 */
export async function dropPrefix(
  prefix: string,
  admin: Redis | undefined,
  ...connections: (Redis | undefined)[]
): Promise<void> {
  const keys = admin ? await admin.keys(`${prefix}:*`) : [];
  if (keys.length > 0) await admin?.del(...keys);
  for (const connection of [...connections, admin]) connection?.disconnect();
}

/**
 * A throwaway system for load tests on this machine: every service as a process, on a database
 * and Redis prefix of its own (e2e's TestSystem), until Ctrl-C.
 *
 *   npx tsx apps/loadtest/scripts/test-system.ts [--turn-ms 45000] [--break-ms 30000] [--shards 16]
 *
 * Prints one JSON line: the gateway URL, the three /metrics URLs, the system's own database and its
 * Redis, ready for --url, --metrics, --database-url and --redis-url.
 * Run `npm run build` first (the services start from their dist/).
 */
import { TestSystem } from '../../../e2e/src/system';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a whole number`);
  return value;
}

async function main(): Promise<void> {
  const system = await TestSystem.start(`loadtest-${Date.now().toString(36)}`, {
    turnMs: option('turn-ms', 45_000),
    breakMs: option('break-ms', 30_000),
    shards: option('shards', 16),
  });
  const metrics = ['gateway', 'table-service', 'timer-service']
    .map((name) => `${name}=${system.metricsUrl(name)}`)
    .join(',');
  process.stdout.write(
    `${JSON.stringify({
      url: system.httpUrl,
      metrics,
      databaseUrl: system.stores.databaseUrl,
      redisUrl: system.stores.redisUrl,
    })}\n`,
  );
  const stop = () => {
    void system.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`test-system: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

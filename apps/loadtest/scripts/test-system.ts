/**
 * A throwaway system for load tests on this machine: `npm start`'s own start-up (scripts/start.js:
 * migrations, then every service as a process) on free ports, on a database and Redis prefix of its
 * own, until Ctrl-C; then the database is dropped.
 *
 *   npx tsx apps/loadtest/scripts/test-system.ts [--turn-ms 45000] [--break-ms 30000] [--shards 16]
 *
 * Prints one JSON line: the gateway URL, the three /metrics URLs, the system's own database and its
 * Redis, ready for --url, --metrics, --database-url and --redis-url. The services' logs go to stderr.
 * Run `npm run build` first (the services start from their dist/).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../../libs/platform/src/free-port';
import { createTestStores } from '../../../libs/platform/src/test-stores';

const ROOT = join(__dirname, '../../..');

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a whole number`);
  return value;
}

/** Waits for every URL to answer 200 (the services' /health/ready), or for `exited` to say why not. */
async function ready(
  urls: readonly string[],
  exited: () => string | null,
  timeoutMs = 120_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (const url of urls) {
    for (;;) {
      const why = exited();
      if (why !== null) throw new Error(why);
      if (Date.now() > until) throw new Error(`${url} was not ready within ${timeoutMs} ms`);
      const ok = await fetch(url).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function main(): Promise<void> {
  const turnMs = option('turn-ms', 45_000);
  const breakMs = option('break-ms', 30_000);
  const shards = option('shards', 16);
  const stores = await createTestStores(`loadtest-${Date.now().toString(36)}`);
  const [gateway, metricsPort, tableService, timerService] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const child = spawn(process.execPath, [join(ROOT, 'scripts/start.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: stores.databaseUrl,
      REDIS_URL: stores.redisUrl,
      REDIS_PREFIX: stores.redisPrefix,
      TABLE_SHARDS: String(shards),
      TURN_MS: String(turnMs),
      BREAK_MS: String(breakMs),
      PORT: String(gateway),
      METRICS_PORT: String(metricsPort),
      TABLE_SERVICE_PORT: String(tableService),
      TIMER_SERVICE_PORT: String(timerService),
    },
    // stdout is this script's one JSON line: the services' logs go to stderr.
    stdio: ['ignore', 2, 2],
  });
  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    const done = () => void stores.dispose().finally(() => process.exit(code));
    if (child.exitCode !== null) done();
    else {
      child.once('exit', done);
      child.kill('SIGTERM');
    }
  };
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  child.once('exit', (code) => {
    if (!stopping) {
      process.stderr.write(`test-system: scripts/start.js exited (${code}); stopping\n`);
      stop(1);
    }
  });
  const url = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;
  try {
    await ready(
      [gateway, tableService, timerService].map((port) => url(port, '/health/ready')),
      () => (child.exitCode === null ? null : `scripts/start.js exited (${child.exitCode})`),
    );
  } catch (error) {
    process.stderr.write(`test-system: ${error instanceof Error ? error.message : String(error)}\n`);
    stop(1);
    return;
  }
  const metrics = [
    `gateway=${url(metricsPort, '/metrics')}`,
    `table-service=${url(tableService, '/metrics')}`,
    `timer-service=${url(timerService, '/metrics')}`,
  ].join(',');
  process.stdout.write(
    `${JSON.stringify({ url: url(gateway, ''), metrics, databaseUrl: stores.databaseUrl, redisUrl: stores.redisUrl })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`test-system: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

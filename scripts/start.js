#!/usr/bin/env node
/**
 * `npm start`: runs the whole system on this machine as plain processes, against the local
 * Postgres and Redis (DATABASE_URL / REDIS_URL, localhost by default). It checks both are
 * reachable, applies the migrations, then starts table-service, timer-service and gateway, each
 * as its own process, with their logs prefixed. Ctrl-C stops everything.
 */
const { spawn, spawnSync } = require('node:child_process');

/** A larger young generation: fewer scavenges of the per-action garbage (decision 0031; the Dockerfile's NODE_OPTIONS). */
const SERVICE_HEAP_FLAG = '--max-semi-space-size=64';
const { join } = require('node:path');
const { checkPostgres, checkRedis, readBaseConfig, createRedis } = require('@dominoes/platform');

const root = join(__dirname, '..');
const colours = { migrate: 35, 'table-service': 36, 'timer-service': 33, gateway: 32 };

function prefixed(name, stream) {
  let buffer = '';
  stream.on('data', (chunk) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop();
    for (const line of lines)
      process.stdout.write(`\x1b[${colours[name.split('#')[0]]}m${name.padEnd(15)}\x1b[0m ${line}\n`);
  });
}

async function main() {
  const config = readBaseConfig();
  const problems = (
    await Promise.all([checkPostgres(config.databaseUrl), checkRedis(config.redisUrl)])
  ).filter(Boolean);
  if (problems.length > 0) {
    for (const p of problems) console.error(`\n${p}`);
    console.error('\nThen run `npm start` again. (`docker compose up` runs everything, stores included.)');
    process.exit(1);
  }
  // BullMQ's delayed jobs are up to ~100 ms late at Redis's default hz 10 (docs/operations.md).
  const redis = createRedis(config.redisUrl, 'start', { maxRetriesPerRequest: 1 });
  const hz = await redis.config('GET', 'hz').catch(() => null);
  if (hz && Number(hz[1]) < 100) {
    await redis.config('SET', 'hz', '100').then(
      () => console.log('redis: hz raised to 100 for timely deadlines'),
      () => console.log('redis: hz is below 100; deadlines may fire up to 100 ms late'),
    );
  }
  redis.disconnect();

  const migrate = spawnSync(process.execPath, [join(root, 'apps/migrate/dist/main.js')], {
    env: { ...process.env, LOG_PRETTY: '1' },
    stdio: 'inherit',
  });
  if (migrate.status !== 0) process.exit(migrate.status ?? 1);

  const children = [];
  let stopping = false;
  const stopAll = (code) => {
    if (stopping) return;
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    setTimeout(() => process.exit(code), 3000).unref();
    Promise.all(
      children.map((c) => new Promise((r) => (c.exitCode !== null ? r() : c.once('exit', r)))),
    ).then(() => process.exit(code));
  };
  // Replicas: GATEWAYS, TABLE_SERVICES, TIMER_SERVICES (1 each by default; `npm run start:cluster`
  // runs 2, 3 and 2). Instance i of a service listens on its base port + 100 * i; gateway i serves
  // /metrics on METRICS_PORT (9464) + 100 * i (not on its players' port).
  const services = [
    {
      name: 'table-service',
      base: Number(process.env.TABLE_SERVICE_PORT ?? 8081),
      count: Number(process.env.TABLE_SERVICES ?? 1),
    },
    {
      name: 'timer-service',
      base: Number(process.env.TIMER_SERVICE_PORT ?? 8082),
      count: Number(process.env.TIMER_SERVICES ?? 1),
    },
    { name: 'gateway', base: Number(process.env.PORT ?? 8080), count: Number(process.env.GATEWAYS ?? 1) },
  ];
  const metricsBase = Number(process.env.METRICS_PORT ?? 9464);
  // Development mode (no TOKEN_SECRET): the gateway signs with the public development secret and
  // listens on 127.0.0.1 only, so anyone who can reach it can mint tokens anyway; the per-address
  // HTTP limits protect nothing there and would stop a load test from this machine (thousands of
  // identities from one address). Each stays settable; with a TOKEN_SECRET the gateway's defaults hold.
  const devLimits =
    process.env.TOKEN_SECRET === undefined || process.env.TOKEN_SECRET === ''
      ? Object.fromEntries(
          ['RATE_LIMIT_IDENTITIES', 'RATE_LIMIT_TABLES', 'RATE_LIMIT_LOOKUP_MISSES', 'RATE_LIMIT_QUICK_PLAYS']
            .filter((name) => process.env[name] === undefined)
            .map((name) => [name, '0']),
        )
      : {};
  if (Object.keys(devLimits).length > 0)
    console.log(
      `no TOKEN_SECRET (development, loopback only): per-address HTTP limits off (${Object.keys(devLimits).join(', ')}=0)`,
    );
  const instances = services.flatMap(({ name, base, count }) =>
    Array.from({ length: Math.max(1, count) }, (_, i) => ({
      name,
      label: count > 1 ? `${name}#${i}` : name,
      port: base + 100 * i,
      metricsPort: name === 'gateway' ? metricsBase + 100 * i : undefined,
    })),
  );
  for (const { name, label, port, metricsPort } of instances) {
    // SERVICE_NODE_ARGS: extra node flags for every service, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
    // (node refuses --cpu-prof in NODE_OPTIONS). docs/performance.md shows how it is used. The
    // services' young generation is the image's (NODE_OPTIONS in the Dockerfile, decision 0031).
    // <NAME>_NODE_ARGS (GATEWAY_NODE_ARGS, TABLE_SERVICE_NODE_ARGS, TIMER_SERVICE_NODE_ARGS): one
    // service's own, after the others (the last of a repeated V8 flag wins).
    const ownArgs = process.env[`${name.toUpperCase().replace(/-/g, '_')}_NODE_ARGS`] ?? '';
    const nodeArgs = [
      SERVICE_HEAP_FLAG,
      ...(process.env.SERVICE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
      ...ownArgs.split(/\s+/).filter(Boolean),
    ];
    const child = spawn(process.execPath, [...nodeArgs, join(root, 'apps', name, 'dist/main.js')], {
      env: {
        LOG_PRETTY: '1',
        ...devLimits,
        ...process.env,
        PORT: String(port),
        ...(metricsPort === undefined ? {} : { METRICS_PORT: String(metricsPort) }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    prefixed(label, child.stdout);
    prefixed(label, child.stderr);
    child.on('exit', (code, signal) => {
      if (!stopping) {
        console.error(`${label} exited (${signal ?? code}); stopping the others.`);
        stopAll(1);
      }
    });
    children.push(child);
  }
  const gateways = instances.filter((i) => i.name === 'gateway');
  const urls = gateways.map((i) => `http://localhost:${i.port}`);
  const metrics = gateways.map((i) => `http://localhost:${i.metricsPort}/metrics`);
  setTimeout(
    () =>
      console.log(
        `\n  Play at ${urls.join(' or ')}   (Ctrl-C stops everything)\n  Gateway metrics: ${metrics.join(', ')}\n`,
      ),
    1500,
  ).unref();
  process.on('SIGINT', () => stopAll(0));
  process.on('SIGTERM', () => stopAll(0));
}

main().catch((error) => {
  console.error(`start: ${error.message}`);
  process.exit(1);
});

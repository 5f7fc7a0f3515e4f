import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { wiringSteps } from '../../../e2e/src/wiring-test';
import { redisNames } from '@dominoes/protocol';
import { startGateway, type GatewayApp } from '../src/gateway-app';
import type { GatewayConfig } from '../src/config';
import { eventually, FakeTableService, identity, RawSocket, testConfig } from './support';

/**
 * The gateway's module wiring that needs its own database (migrated): two databases of which the
 * second holds no shard and does not exist (its readiness check is named, not required), the lobby
 * and quick play on a socket (the socket's address's table limit, the socket seated), the HTTP API's
 * tables and history, the HTTP pipeline around a built web client, the development secret's warning,
 * and the database connections released at shutdown.
 */
let stores: TestStores;
let config: GatewayConfig;
let gateway: GatewayApp;
let fake: FakeTableService;
let base: string;
const sockets: RawSocket[] = [];
const { logger, lines } = recordingLogger();
const webDist = mkdtempSync(join(tmpdir(), 'gateway-wiring-web-'));
const ASSET = 'app-0123abcd.js';

beforeAll(async () => {
  writeFileSync(join(webDist, 'index.html'), '<!doctype html><title>dominoes</title>');
  writeFileSync(join(webDist, 'robots.txt'), 'User-agent: *');
  mkdirSync(join(webDist, 'assets'));
  writeFileSync(join(webDist, 'assets', ASSET), 'console.log(1);');
  stores = await createTestStores('gateway_wiring');
  config = testConfig(stores.redisPrefix, {
    REDIS_URL: stores.redisUrl,
    DATABASE_URLS: `${stores.databaseUrl},${stores.databaseUrl}_that_does_not_exist`,
    DATABASE_SHARD_MAP: '0-3:0',
    TRUSTED_PROXIES: '127.0.0.1,::1',
    RATE_LIMIT_TABLES: '2',
    // The public development secret (loopback only): its warning is logged at start.
    TOKEN_SECRET: '',
    WEB_DIST: webDist,
  });
  fake = new FakeTableService(stores.redisPrefix, stores.redisUrl);
  fake.respond = (envelope) => ({ ok: true, intentId: envelope.intentId, version: 1, seat: 0 });
  await fake.start();
}, 60_000);

afterAll(async () => {
  for (const socket of sockets) socket.ws.terminate();
  await gateway?.shutdown();
  await fake?.stop();
  await stores?.dispose();
  rmSync(webDist, { recursive: true, force: true });
});

/** Connections to the suite's database now (seen from the server's admin database). */
async function databaseConnections(): Promise<number> {
  const admin = new URL(stores.databaseUrl);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      'select count(*) as n from pg_stat_activity where datname = $1',
      [name],
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

/** A socket that said hello as a new player; `from` is its address (X-Forwarded-For, a trusted proxy). */
async function helloSocket(
  name: string,
  from?: string,
): Promise<{ socket: RawSocket; token: string; playerId: string }> {
  const { token, playerId } = await identity(base, name);
  const socket = new RawSocket(`ws://127.0.0.1:${gateway.port}/ws`, {
    headers: from === undefined ? {} : { 'x-forwarded-for': from },
  });
  sockets.push(socket);
  await socket.opened;
  expect(await socket.hello(token)).toMatchObject({ type: 'welcome' });
  return { socket, token, playerId };
}

describe('the gateway’s wiring on its own databases', () => {
  // One test: it starts the app, then runs the steps, each named for what it proves (why: wiringSteps).
  const { step, test } = wiringSteps();

  step(
    'is ready with its shards’ database up; a database of no shard that is down is named in the body but not required',
    async () => {
      const ready = await fetch(`${base}/health/ready`);
      expect(await ready.json()).toEqual({ status: 'ok', redis: 'ok', postgres: 'ok', postgres_1: 'down' });
      expect(ready.status).toBe(200);
    },
  );

  step('a socket’s lobby frame is answered with the lobby, read from Postgres', async () => {
    const { socket } = await helloSocket('Lia');
    socket.send({ type: 'lobby', id: 'l1', on: true });
    const lobby = await socket.next((f) => f['type'] === 'lobby' || f['type'] === 'error');
    expect(lobby).toMatchObject({ type: 'lobby', tables: [], counts: { waiting: 0, playing: 0 }, yours: [] });
  });

  step(
    'quick play on a socket opens a table for the socket (its connection on the host seat) under the socket address’s table limit',
    async () => {
      const { socket, playerId } = await helloSocket('Quinn');
      socket.send({ type: 'quickPlay', id: 'q1', variant: 'draw' });
      await socket.next((f) => f['id'] === 'q1' && (f['type'] === 'ack' || f['type'] === 'error'));
      const create = fake.received.find((e) => e.intent.kind === 'create' && e.player?.id === playerId)!;
      expect(create.connectionId).toMatch(new RegExp(`^${config.gatewayId}:\\d+$`));
      expect(create.replyTo).toBe(redisNames(stores.redisPrefix, 4).replyChannel(config.gatewayId));
      // RATE_LIMIT_TABLES=2: the socket's open used one of this address's two tables.
      const { token } = await identity(base, 'Quinn');
      const open = () =>
        fetch(`${base}/api/tables`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ variant: 'draw' }),
        });
      expect((await open()).status).toBe(201);
      expect((await open()).status).toBe(429);
      const metrics = await (await fetch(`http://127.0.0.1:${gateway.metricsPort}/metrics`)).text();
      expect(metrics).toMatch(/^dominoes_http_rate_limit_total\{action="table",outcome="limited"\} 1$/m);
    },
  );

  step(
    'the seated socket talks at its table: the chat relay checks its seat and the table’s chat in Postgres, and the message comes back on the chat channel',
    async () => {
      const { socket, playerId } = await helloSocket('Cleo', '203.0.113.5');
      socket.send({ type: 'quickPlay', id: 'q2', variant: 'draw', seats: 2 });
      await socket.next((f) => f['id'] === 'q2' && f['type'] === 'ack');
      const create = fake.received.find((e) => e.intent.kind === 'create' && e.player?.id === playerId)!;
      const pg = new Client({ connectionString: stores.databaseUrl });
      await pg.connect();
      try {
        await pg.query(
          `insert into game_tables (id, variant, seat_count, target, one_round, host_player_id, status, version, state)
         values ($1, 'draw', 2, 100, false, $2, 'waiting', 1, $3::jsonb)`,
          [
            create.tableId,
            playerId,
            JSON.stringify({ seats: [{ playerId, connections: [create.connectionId] }, null] }),
          ],
        );
      } finally {
        await pg.end();
      }
      socket.send({ type: 'chat', id: 'c1', text: 'hello table' });
      const answer = await socket.next((f) => f['id'] === 'c1');
      expect(answer).toMatchObject({ type: 'ack' });
      const heard = await socket.next((f) => f['type'] === 'chat');
      expect(heard).toMatchObject({ message: { tableId: create.tableId, seat: 0, playerId, name: 'Cleo' } });
    },
  );

  step(
    'POST /api/tables answers the table’s link under PUBLIC_URL; GET /api/matches reads the history of every database (one down: 503)',
    async () => {
      const { token } = await identity(base, 'Tess');
      const headers = {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'x-forwarded-for': '198.51.100.7',
      };
      const created = await fetch(`${base}/api/tables`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ variant: 'draw' }),
      });
      expect(created.status).toBe(201);
      const { tableId, link } = (await created.json()) as { tableId: string; link: string };
      expect(link).toBe(`http://dominoes.test/t/${tableId}`);
      const matches = await fetch(`${base}/api/matches`, { headers });
      // The history reads every database (a player's matches may be in any): the missing one is a 503.
      expect(matches.status).toBe(503);
      expect(await matches.json()).toMatchObject({ error: { code: 'UNAVAILABLE' } });
    },
  );

  step(
    'logs that it listens, where, as which gateway, with its web client; and warns of the development secret',
    () => {
      const listening = lines.find(
        (l) => l.msg === `gateway listening on :${gateway.port} (http://dominoes.test)`,
      );
      expect(listening).toMatchObject({
        level: 30,
        port: gateway.port,
        metricsPort: gateway.metricsPort,
        url: 'http://dominoes.test',
        gatewayId: config.gatewayId,
        shards: 4,
        webClient: webDist,
      });
      expect(config.devTokenSecret).toBe(true);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 40,
          msg: expect.stringMatching(/^TOKEN_SECRET is not set: using the public development secret/),
        }),
      );
    },
  );

  step(
    'serves the built web client: index.html never cached, other files for an hour, hashed assets for good; security headers on all, no X-Powered-By',
    async () => {
      const page = await fetch(`${base}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>dominoes</title>');
      expect(page.headers.get('cache-control')).toBe('no-cache');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('x-powered-by')).toBeNull();
      const robots = await fetch(`${base}/robots.txt`);
      expect(robots.status).toBe(200);
      expect(robots.headers.get('cache-control')).toBe('public, max-age=3600');
      const asset = await fetch(`${base}/assets/${ASSET}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toMatch(/immutable/);
      expect(asset.headers.get('x-frame-options')).toBe('DENY');
    },
  );

  step(
    'the API refuses another site’s origin (403) and a body that is not JSON (400), with its error body',
    async () => {
      const foreign = await fetch(`${base}/api/identity`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://evil.test' },
        body: JSON.stringify({ name: 'Eve' }),
      });
      expect(foreign.status).toBe(403);
      expect(await foreign.json()).toMatchObject({ error: { code: 'FORBIDDEN_ORIGIN' } });
      const broken = await fetch(`${base}/api/identity`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name":',
      });
      expect(broken.status).toBe(400);
      expect(await broken.json()).toMatchObject({
        error: { code: expect.any(String), message: expect.any(String) },
      });
    },
  );

  step('shutdown closes its database connections', async () => {
    expect(await databaseConnections()).toBeGreaterThan(0);
    await gateway.shutdown();
    await eventually(async () => (await databaseConnections()) === 0, 3000, 'the pools closed');
  });

  test(async () => {
    gateway = await startGateway(config, { logger, defaultMetrics: false });
    base = `http://127.0.0.1:${gateway.port}`;
  });
});

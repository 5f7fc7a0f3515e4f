import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import {
  CreateTableResponseSchema,
  getTable,
  IdentityResponseSchema,
  ProtocolError,
  TABLE_CODE_ALPHABET,
  type IntentEnvelope,
} from '@dominoes/protocol';
import { signToken } from '../src/auth/tokens';
import type { GatewayApp } from '../src/gateway-app';
import { FakeTableService, startTestGateway, testConfig, TEST_SECRET } from './support';

let stores: TestStores;
let gateway: GatewayApp;
let fake: FakeTableService;
let base: string;
let token: string;
let playerId: string;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
interface ErrorJson {
  error: { code: string; message: string };
}
const json = async (response: Response): Promise<ErrorJson> => (await response.json()) as ErrorJson;
const auth = () => ({ authorization: `Bearer ${token}` });
const creates = () => fake.received.filter((e) => e.intent.kind === 'create');

beforeAll(async () => {
  stores = await createTestStores('gateway_http');
  const config = testConfig(stores.redisPrefix, {
    DATABASE_URL: stores.databaseUrl,
    REDIS_URL: stores.redisUrl,
    REPLY_TIMEOUT_MS: '2000',
  });
  fake = new FakeTableService(stores.redisPrefix, stores.redisUrl);
  await fake.start();
  gateway = await startTestGateway(config);
  base = `http://127.0.0.1:${gateway.port}`;
  const response = await post('/api/identity', { name: 'Ana' });
  ({ token, playerId } = IdentityResponseSchema.parse(await json(response)));
}, 30_000);

afterAll(async () => {
  await gateway?.shutdown();
  await fake?.stop();
  await stores?.dispose();
});

beforeEach(() => {
  fake.received.length = 0;
  fake.respond = (envelope) => ({ ok: true, intentId: envelope.intentId, version: 1, seat: 0 });
});

describe('POST /api/identity', () => {
  it('gives a signed token, a fresh player id and the (trimmed) name', async () => {
    const response = await post('/api/identity', { name: '  Bruno ' });
    expect(response.status).toBe(200);
    const body = IdentityResponseSchema.parse(await json(response));
    expect(body.name).toBe('Bruno');
    expect(body.playerId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.playerId).not.toBe(playerId);
    expect(body.token.split('.')).toHaveLength(2);
  });

  it.each([
    ['an empty name', { name: '' }],
    ['a name of 25 characters', { name: 'x'.repeat(25) }],
    ['a control character', { name: 'a\u0007b' }],
    ['no name', {}],
    ['an extra field', { name: 'Ana', admin: true }],
    ['a number', { name: 7 }],
  ])('refuses %s with 400 INVALID_MESSAGE', async (_label, body) => {
    const response = await post('/api/identity', body);
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({ error: { code: 'INVALID_MESSAGE', message: expect.any(String) } });
  });

  it('answers bad JSON with 400 BAD_JSON and a body over 16 kB with 413 FRAME_TOO_LARGE', async () => {
    const bad = await post('/api/identity', '{"name": ');
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.code).toBe('BAD_JSON');
    const big = await post('/api/identity', { name: 'x'.repeat(17_000) });
    expect(big.status).toBe(413);
    expect((await json(big)).error.code).toBe('FRAME_TOO_LARGE');
  });
});

describe('POST /api/tables', () => {
  it('sends a create intent for a fresh 12-character code and answers 201 with the link', async () => {
    const response = await post('/api/tables', { variant: 'partnership', target: 150 }, auth());
    expect(response.status).toBe(201);
    const body = CreateTableResponseSchema.parse(await json(response));
    expect(body.link).toBe(`http://dominoes.test/t/${body.tableId}`);
    expect(body.tableId).toHaveLength(12);
    expect([...body.tableId].every((c) => TABLE_CODE_ALPHABET.includes(c))).toBe(true);
    const [sent] = creates() as [IntentEnvelope];
    expect(sent).toMatchObject({
      intentId: `${playerId}:create:${body.tableId}`,
      tableId: body.tableId,
      player: { id: playerId, name: 'Ana' },
      connectionId: null,
      intent: { kind: 'create', config: { variant: 'partnership', target: 150 } },
    });
    expect(sent.replyTo).toMatch(/:\{gateway:gw-[^}]+\}:replies$/);
  });

  it('defaults the variant to partnership', async () => {
    const response = await post('/api/tables', {}, auth());
    expect(response.status).toBe(201);
    expect(creates()[0]!.intent).toEqual({ kind: 'create', config: { variant: 'partnership' } });
  });

  it('retries with a new code when the table-service says the code is taken', async () => {
    let refusals = 2;
    fake.respond = (envelope) =>
      refusals-- > 0
        ? { ok: false, intentId: envelope.intentId, code: 'TABLE_CODE_TAKEN', message: 'table code taken' }
        : { ok: true, intentId: envelope.intentId, version: 1, seat: 0 };
    const response = await post('/api/tables', { target: 100 }, auth());
    expect(response.status).toBe(201);
    const body = CreateTableResponseSchema.parse(await json(response));
    const codes = creates().map((e) => e.tableId);
    expect(codes).toHaveLength(3);
    expect(new Set(codes).size).toBe(3);
    expect(codes[2]).toBe(body.tableId);
  });

  it.each([49, 75, 550, 0, -50, 100.5, 'abc', '100', null, true])(
    'refuses target %p with 400 INVALID_TARGET',
    async (target) => {
      const response = await post('/api/tables', { variant: 'partnership', target }, auth());
      expect(response.status).toBe(400);
      const body = await json(response);
      expect(body.error.code).toBe('INVALID_TARGET');
      expect(body.error.message).toMatch(/50 to 500 in steps of 50/);
      expect(creates()).toHaveLength(0);
    },
  );

  it('refuses other bad configurations with the rules\u2019 codes', async () => {
    const cases: [unknown, string][] = [
      [{ variant: 'chess' }, 'INVALID_CONFIG'],
      [{ variant: 'partnership', seats: 3 }, 'INVALID_SEAT_COUNT'],
      [{ variant: 'partnership', oneRound: true }, 'INVALID_CONFIG'],
      [{ variant: 'draw', seats: 'two' }, 'INVALID_SEAT_COUNT'],
      [{ variant: 'draw', colour: 'red' }, 'INVALID_MESSAGE'],
      [[1, 2], 'INVALID_MESSAGE'],
    ];
    for (const [body, code] of cases) {
      const response = await post('/api/tables', body, auth());
      expect([response.status, (await json(response)).error.code]).toEqual([400, code]);
    }
    expect(creates()).toHaveLength(0);
  });

  it('passes the table-service\u2019s refusal on as 400 with its code', async () => {
    fake.respond = (envelope) => ({
      ok: false,
      intentId: envelope.intentId,
      code: 'INVALID_TARGET',
      message: 'The target must be 100.',
    });
    const response = await post('/api/tables', { variant: 'five-tile' }, auth());
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({
      error: { code: 'INVALID_TARGET', message: 'The target must be 100.' },
    });
  });

  it('answers 503 UNAVAILABLE when the table-service does not answer in time', async () => {
    fake.respond = () => null;
    const response = await post('/api/tables', {}, auth());
    expect(response.status).toBe(503);
    expect((await json(response)).error.code).toBe('UNAVAILABLE');
  });

  it('needs a valid, unexpired token', async () => {
    const none = await post('/api/tables', {});
    expect([none.status, (await json(none)).error.code]).toEqual([401, 'UNAUTHENTICATED']);
    const forged = await post(
      '/api/tables',
      {},
      {
        authorization: `Bearer ${signToken({ pid: playerId, name: 'Ana' }, 'not-the-secret-xxxxxxxxxxxxxxxxxxx', Date.now())}`,
      },
    );
    expect([forged.status, (await json(forged)).error.code]).toEqual([401, 'TOKEN_INVALID']);
    const old = signToken({ pid: playerId, name: 'Ana' }, TEST_SECRET, Date.now() - 31 * 24 * 3600 * 1000);
    const expired = await post('/api/tables', {}, { authorization: `Bearer ${old}` });
    expect([expired.status, (await json(expired)).error.code]).toEqual([401, 'TOKEN_EXPIRED']);
    expect(creates()).toHaveLength(0);
  });
});

describe('GET /api/tables/:code', () => {
  it('reads the table summary from Postgres, names by seat', async () => {
    const pg = new Client({ connectionString: stores.databaseUrl });
    await pg.connect();
    try {
      await pg.query(
        `insert into game_tables (id, variant, seat_count, target, one_round, host_player_id, status, version, state)
         values ('KQ7MZPR2T4VW', 'partnership', 4, 150, false, '6f1c2a8e-0d1b-4c55-9a3e-2b7d9f0e1a22', 'waiting', 3, '{}')`,
      );
      await pg.query(
        `insert into table_seats (table_id, seat, player_id, name) values
         ('KQ7MZPR2T4VW', 0, '6f1c2a8e-0d1b-4c55-9a3e-2b7d9f0e1a22', 'Ana'), ('KQ7MZPR2T4VW', 2, '7f1c2a8e-0d1b-4c55-9a3e-2b7d9f0e1a22', 'Caio')`,
      );
    } finally {
      await pg.end();
    }
    await expect(getTable(base, 'KQ7MZPR2T4VW')).resolves.toEqual({
      tableId: 'KQ7MZPR2T4VW',
      variant: 'partnership',
      seatCount: 4,
      target: 150,
      oneRound: false,
      status: 'waiting',
      players: ['Ana', null, 'Caio', null],
    });
  });

  it.each(['ZZZZZZZZZZZZ', 'KQ7MZP', 'abc', 'KQ7MZPR2T4VW0', '%00'])(
    'answers 404 TABLE_NOT_FOUND for %p',
    async (code) => {
      const error = await getTable(base, code).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).code).toBe('TABLE_NOT_FOUND');
    },
  );
});

describe('health, metrics, web', () => {
  it('live is 200; ready is 200 with Redis and Postgres up', async () => {
    expect((await fetch(`${base}/health/live`)).status).toBe(200);
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await json(ready)).toEqual({ status: 'ok', redis: 'ok', postgres: 'ok' });
  });

  it('/metrics on the metrics port exposes the gateway metrics in Prometheus text', async () => {
    const response = await fetch(`http://127.0.0.1:${gateway.metricsPort}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await response.text();
    for (const name of [
      'dominoes_open_sockets',
      'dominoes_intents_total',
      'dominoes_action_to_view_seconds',
      'dominoes_ws_frames_refused_total',
    ]) {
      expect(text).toContain(`# TYPE ${name}`);
    }
    expect(text).toMatch(/dominoes_intents_total\{type="create",outcome="ok"\} \d+/);
  });

  it('serves a page at / and /t/:code while the web client is not built; unknown API routes are JSON 404s', async () => {
    for (const path of ['/', '/t/KQ7MZP']) {
      const response = await fetch(`${base}${path}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toMatch(/web client is not built/);
    }
    const missing = await fetch(`${base}/api/nothing`);
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('INVALID_MESSAGE');
  });
});

describe('the built web client', () => {
  it('is served as static files, with index.html for / and /t/:code; the API still answers', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'web-dist-'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Dominoes app</title>');
    writeFileSync(join(dist, 'app.js'), 'console.log("app")');
    const web = await startTestGateway(
      testConfig(stores.redisPrefix, {
        DATABASE_URL: stores.databaseUrl,
        REDIS_URL: stores.redisUrl,
        WEB_DIST: dist,
        GATEWAY_ID: 'gw-web',
      }),
    );
    const url = `http://127.0.0.1:${web.port}`;
    try {
      for (const path of ['/', '/t/KQ7MZP']) {
        const response = await fetch(`${url}${path}`);
        expect(response.status).toBe(200);
        expect(await response.text()).toContain('Dominoes app');
      }
      expect(await (await fetch(`${url}/app.js`)).text()).toBe('console.log("app")');
      expect((await fetch(`${url}/api/tables/ZZZZZZ`)).status).toBe(404);
    } finally {
      await web.shutdown();
      rmSync(dist, { recursive: true, force: true });
    }
  });
});

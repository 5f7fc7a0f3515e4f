/**
 * The HTTP API's per-address limits, through real gateways on a real Redis and Postgres:
 * identities, table creations and failed table-code lookups (issue 10).
 */
import { Client } from 'pg';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { IdentityResponseSchema } from '@dominoes/protocol';
import { readGatewayConfig } from '../src/config';
import type { GatewayApp } from '../src/gateway-app';
import { FakeTableService, startTestGateway, testConfig } from './support';

let stores: TestStores;
let fake: FakeTableService;
const gateways: GatewayApp[] = [];
const EXISTING = 'KQ7MZPR2T4VW';

interface Answer {
  status: number;
  code: string | undefined;
  message: string | undefined;
  retryAfter: string | null;
}

async function call(
  gateway: GatewayApp,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer & { json: unknown }> {
  const response = await fetch(`http://127.0.0.1:${gateway.port}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as { error?: { code: string; message: string } };
  return {
    status: response.status,
    code: json.error?.code,
    message: json.error?.message,
    retryAfter: response.headers.get('retry-after'),
    json,
  };
}

/** A gateway with its own Redis prefix (its own counts) unless `prefix` is shared. */
async function gatewayWith(env: Record<string, string>, prefix = `${stores.redisPrefix}_${gateways.length}`) {
  const gateway = await startTestGateway(
    testConfig(prefix, {
      DATABASE_URL: stores.databaseUrl,
      REDIS_URL: stores.redisUrl,
      GATEWAY_ID: `gw-limits-${gateways.length}`,
      ...env,
    }),
  );
  gateways.push(gateway);
  return gateway;
}

const newIdentity = (gateway: GatewayApp, headers: Record<string, string> = {}) =>
  call(gateway, 'POST', '/api/identity', { name: 'Ana' }, headers);

beforeAll(async () => {
  stores = await createTestStores('gateway_limits');
  const pg = new Client({ connectionString: stores.databaseUrl });
  await pg.connect();
  try {
    await pg.query(
      `insert into game_tables (id, variant, seat_count, target, one_round, host_player_id, status, version, state)
       values ($1, 'partnership', 4, 150, false, '6f1c2a8e-0d1b-4c55-9a3e-2b7d9f0e1a22', 'waiting', 1, '{}')`,
      [EXISTING],
    );
  } finally {
    await pg.end();
  }
}, 30_000);

afterAll(async () => {
  for (const gateway of gateways) await gateway.shutdown();
  await fake?.stop();
  await stores?.dispose();
});

describe('defaults', () => {
  it('per address and minute: 10 identities, 20 tables, 30 failed lookups, 30 quick plays', () => {
    const config = readGatewayConfig({ TOKEN_SECRET: 'x'.repeat(40) });
    expect(config.httpLimits).toEqual({
      identity: { max: 10, windowMs: 60_000 },
      table: { max: 20, windowMs: 60_000 },
      'lookup-miss': { max: 30, windowMs: 60_000 },
      'quick-play': { max: 30, windowMs: 60_000 },
    });
  });

  it('a limit that is not a whole number from 0 is refused at start', () => {
    expect(() => readGatewayConfig({ RATE_LIMIT_TABLES: '-1' })).toThrow(/RATE_LIMIT_TABLES/);
    expect(() => readGatewayConfig({ RATE_LIMIT_WINDOW_MS: 'soon' })).toThrow(/RATE_LIMIT_WINDOW_MS/);
  });
});

describe('POST /api/identity', () => {
  it('past RATE_LIMIT_IDENTITIES from one address: 429 RATE_LIMITED with Retry-After; refused bodies do not count', async () => {
    const gateway = await gatewayWith({ RATE_LIMIT_IDENTITIES: '3' });
    for (let i = 0; i < 5; i++) {
      expect((await call(gateway, 'POST', '/api/identity', { name: '' })).status).toBe(400);
    }
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await newIdentity(gateway));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
    IdentityResponseSchema.parse(answers[0]!.json);
    const refused = answers[3]!;
    expect(refused.code).toBe('RATE_LIMITED');
    expect(refused.message).toMatch(/Too many new identities from your address; try again in \d+ s\./);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    expect(refused.message).toContain(`in ${refused.retryAfter} s`);
  });

  it('the limit holds across two gateway replicas (one count in Redis)', async () => {
    const shared = `${stores.redisPrefix}_shared`;
    const a = await gatewayWith({ RATE_LIMIT_IDENTITIES: '4' }, shared);
    const b = await gatewayWith({ RATE_LIMIT_IDENTITIES: '4', GATEWAY_ID: 'gw-limits-b' }, shared);
    const statuses = [];
    for (const gateway of [a, b, a, b, a, b]) statuses.push((await newIdentity(gateway)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('is open again when the window is over', async () => {
    const gateway = await gatewayWith({ RATE_LIMIT_IDENTITIES: '1', RATE_LIMIT_WINDOW_MS: '1000' });
    expect((await newIdentity(gateway)).status).toBe(200);
    const refused = await newIdentity(gateway);
    expect([refused.status, refused.retryAfter]).toEqual([429, '1']);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await newIdentity(gateway)).status).toBe(200);
  });

  it('X-Forwarded-For from an untrusted peer is ignored: a spoofed header gives no new budget', async () => {
    const gateway = await gatewayWith({ RATE_LIMIT_IDENTITIES: '2' });
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await newIdentity(gateway, { 'x-forwarded-for': `198.51.100.${i}` })).status);
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it('behind a trusted proxy (TRUSTED_PROXIES, here a range) each forwarded client has its own budget', async () => {
    const gateway = await gatewayWith({ RATE_LIMIT_IDENTITIES: '2', TRUSTED_PROXIES: '127.0.0.0/8' });
    const from = (client: string) => newIdentity(gateway, { 'x-forwarded-for': client });
    const statuses = [];
    for (const client of ['198.51.100.1', '198.51.100.1', '198.51.100.1', '198.51.100.2', '198.51.100.2']) {
      statuses.push((await from(client)).status);
    }
    expect(statuses).toEqual([200, 200, 429, 200, 200]);
    // A client cannot escape by prepending its own hop: the proxy appends the real address last.
    expect((await from('10.9.9.9, 198.51.100.1')).status).toBe(429);
    // IPv6 clients count by their /64.
    expect((await from('2001:db8:1:2::a')).status).toBe(200);
    expect((await from('2001:db8:1:2::b')).status).toBe(200);
    expect((await from('2001:db8:1:2::c')).status).toBe(429);
  });
});

describe('POST /api/tables', () => {
  it('past RATE_LIMIT_TABLES from one address: 429 RATE_LIMITED, and no create intent is sent', async () => {
    const gateway = await gatewayWith({ RATE_LIMIT_TABLES: '2' });
    fake = new FakeTableService(`${stores.redisPrefix}_${gateways.length - 1}`, stores.redisUrl);
    await fake.start();
    const { token } = IdentityResponseSchema.parse((await newIdentity(gateway)).json);
    const auth = { authorization: `Bearer ${token}` };
    // Refused configurations and tokens do not count.
    expect((await call(gateway, 'POST', '/api/tables', { target: 7 }, auth)).status).toBe(400);
    expect((await call(gateway, 'POST', '/api/tables', {})).status).toBe(401);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await call(gateway, 'POST', '/api/tables', {}, auth));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 429, 429]);
    expect(answers[2]).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/new tables/) });
    expect(Number(answers[2]!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(fake.received.filter((e) => e.intent.kind === 'create')).toHaveLength(2);
  });
});

describe('POST /api/quick-play', () => {
  it('past RATE_LIMIT_QUICK_PLAYS from one address: 429 RATE_LIMITED before any search or table (a flood cannot hold the configuration\u2019s lock); refused bodies and tokens do not count', async () => {
    const gateway = await gatewayWith({ RATE_LIMIT_QUICK_PLAYS: '2', RATE_LIMIT_TABLES: '0' });
    await fake?.stop(); // the table suite's stand-in: one at a time
    fake = new FakeTableService(`${stores.redisPrefix}_${gateways.length - 1}`, stores.redisUrl);
    await fake.start();
    const { token } = IdentityResponseSchema.parse((await newIdentity(gateway)).json);
    const auth = { authorization: `Bearer ${token}` };
    expect((await call(gateway, 'POST', '/api/quick-play', { variant: 'chess' }, auth)).status).toBe(400);
    expect((await call(gateway, 'POST', '/api/quick-play', { variant: 'draw' })).status).toBe(401);
    const answers = [];
    for (let i = 0; i < 4; i++)
      answers.push(await call(gateway, 'POST', '/api/quick-play', { variant: 'draw', seats: 2 }, auth));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429, 429]);
    expect(answers[2]).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/quick play/) });
    expect(fake.received.filter((e) => e.intent.kind === 'create').length).toBeLessThanOrEqual(2);
  });
});

describe('GET /api/tables/:code', () => {
  it('past RATE_LIMIT_LOOKUP_MISSES failed lookups: 429, even for a table that exists; found tables do not count', async () => {
    const gateway = await gatewayWith({ RATE_LIMIT_LOOKUP_MISSES: '3' });
    for (let i = 0; i < 6; i++)
      expect((await call(gateway, 'GET', `/api/tables/${EXISTING}`)).status).toBe(200);
    const misses = [];
    for (const code of ['ZZZZZZZZZZZZ', 'YYYYYYYYYYYY', 'abc', 'XXXXXXXXXXXX']) {
      misses.push(await call(gateway, 'GET', `/api/tables/${code}`));
    }
    expect(misses.map((a) => [a.status, a.code])).toEqual([
      [404, 'TABLE_NOT_FOUND'],
      [404, 'TABLE_NOT_FOUND'],
      [404, 'TABLE_NOT_FOUND'],
      [429, 'RATE_LIMITED'],
    ]);
    expect(Number(misses[3]!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(misses[3]!.message).toMatch(/lookups of tables that do not exist/);
    // Now a guess that would hit is refused too: a limited client learns nothing.
    expect((await call(gateway, 'GET', `/api/tables/${EXISTING}`)).status).toBe(429);
  });

  it('40 guesses in parallel get exactly RATE_LIMIT_LOOKUP_MISSES answers', async () => {
    const gateway = await gatewayWith({ RATE_LIMIT_LOOKUP_MISSES: '5' });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(gateway, 'GET', `/api/tables/${String(i).padStart(12, 'Q')}`),
      ),
    );
    expect(answers.filter((a) => a.status === 404)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(35);
  });
});

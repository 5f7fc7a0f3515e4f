/**
 * The HTTP API's controllers (ApiController, HistoryController) on one gateway started once, on real
 * Redis and a fresh Postgres database (a stand-in table-service answers the create intents): every
 * refusal a client can reach, with its status, code and message, the per-address limits (each test
 * from addresses of its own, through a trusted proxy), paging bounds, and the controllers called
 * directly on a database that does not exist for the 503s.
 */
import type { IncomingMessage } from 'node:http';
import { Client } from 'pg';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { MAX_MATCH_PAGE } from '@dominoes/protocol';
import { createMatch, HOST_TARGETS_TEXT } from '@dominoes/rules';
import { signToken, verifyToken } from '../src/auth/tokens';
import type { GatewayConfig } from '../src/config';
import { startGateway, type GatewayApp } from '../src/gateway-app';
import { ApiController } from '../src/http/api.controller';
import { ApiError } from '../src/http/errors';
import { HistoryController } from '../src/http/history.controller';
import { HttpLimits } from '../src/http/http-limits';
import { QuickPlay } from '../src/lobby/quick-play';
import { TableOpener } from '../src/lobby/table-opener';
import { MatchHistory } from '../src/tables/match-history';
import { TableReader } from '../src/tables/table-reader';
import { FakeTableService, testConfig, TEST_SECRET } from './support';
import { TestClock } from './unit-fakes';

const ANA = '6f1c2a8e-0d1b-4c55-9a3e-2b7d9f0e1a22';
const BEN = '0b7e4d2c-9a1f-4e3b-8c5d-6a2f1e0d9c8b';
const WAITING = 'WAYTQQQQQQQA';
const PLAYING = 'PAYSQQQQQQQA';
const BROKEN = 'BRKNQQQQQQQA';
const DONE = 'DNNEQQQQQQQA';
const LIMIT = 2;

let stores: TestStores;
let gateway: GatewayApp;
let fake: FakeTableService;
let config: GatewayConfig;
let broken: TableReader;
const clock = new TestClock(Date.now());
const log = recordingLogger();

let lastAddress = 0;
/** An address no other test uses (each per-address limit starts empty). */
const freshAddress = () => `198.51.100.${++lastAddress}`;
const bearer = (pid = ANA, name = 'Ana') => `Bearer ${signToken({ pid, name }, TEST_SECRET, clock.now())}`;

interface Answer {
  status: number;
  headers: Headers;
  json: { error?: { code: string; message: string } } & Record<string, unknown>;
}

async function call(
  method: string,
  path: string,
  options: { body?: unknown; authorization?: string; from?: string; origin?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'x-forwarded-for': options.from ?? freshAddress() };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.authorization !== undefined) headers['authorization'] = options.authorization;
  if (options.origin !== undefined) headers['origin'] = options.origin;
  const response = await fetch(`http://127.0.0.1:${gateway.port}${path}`, {
    method,
    headers,
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : null };
}

const refusal = (status: number, code: string, message?: string) => ({
  status,
  json: { error: message === undefined ? { code } : { code, message } },
});

async function storeTable(pg: Client, id: string, status: string): Promise<void> {
  await pg.query(
    `insert into game_tables (id, variant, seat_count, target, one_round, host_player_id, status, version, state)
     values ($1, 'draw', 2, 100, false, $2, $3, 1, '{}')`,
    [id, ANA, status],
  );
}

async function storeMatch(pg: Client, id: string, finished: boolean): Promise<void> {
  await pg.query(
    `insert into matches (table_id, number, variant, target, one_round, seats, scores, winner_side, started_at, finished_at)
     values ($1, 1, 'draw', 100, false, $2::jsonb, '[0, 0]'::jsonb, null, now(), $3)`,
    [id, JSON.stringify([ANA, BEN]), finished ? new Date() : null],
  );
}

async function storeLog(pg: Client, id: string, hands: number[][][], stock: number[][]): Promise<void> {
  await pg.query(
    `insert into table_actions (table_id, seq, kind, seat, match_number, payload) values
       ($1, 1, 'match-started', null, 1, $2::jsonb), ($1, 2, 'round-dealt', null, 1, $3::jsonb)`,
    [
      id,
      JSON.stringify({
        config: { variant: 'draw', seats: 2, target: 100, oneRound: false },
        players: [ANA, BEN],
      }),
      JSON.stringify({ hands, stock, opener: 0, redeals: 0 }),
    ],
  );
}

/** The 28 tiles of a double-six set, in order. */
const TILES = Array.from({ length: 7 }, (_, a) => Array.from({ length: 7 - a }, (_, b) => [a, a + b])).flat();

beforeAll(async () => {
  stores = await createTestStores('gateway_http_unit');
  const pg = new Client({ connectionString: stores.databaseUrl });
  await pg.connect();
  try {
    await storeTable(pg, WAITING, 'waiting');
    await pg.query(`insert into table_seats (table_id, seat, player_id, name) values ($1, 0, $2, 'Ana')`, [
      WAITING,
      ANA,
    ]);
    await storeTable(pg, PLAYING, 'playing');
    await storeMatch(pg, PLAYING, false);
    await storeTable(pg, BROKEN, 'finished');
    await storeMatch(pg, BROKEN, true);
    await storeLog(pg, BROKEN, [[[6, 6]], [[5, 5]]], []);
    await storeTable(pg, DONE, 'finished');
    await storeMatch(pg, DONE, true);
    await storeLog(pg, DONE, [TILES.slice(0, 7), TILES.slice(7, 14)], TILES.slice(14));
  } finally {
    await pg.end();
  }
  config = testConfig(stores.redisPrefix, {
    DATABASE_URL: stores.databaseUrl,
    REDIS_URL: stores.redisUrl,
    TRUSTED_PROXIES: '127.0.0.1,::1',
    RATE_LIMIT_IDENTITIES: String(LIMIT),
    RATE_LIMIT_TABLES: String(LIMIT),
    RATE_LIMIT_LOOKUP_MISSES: String(LIMIT),
    RATE_LIMIT_QUICK_PLAYS: String(LIMIT),
    REPLY_TIMEOUT_MS: '2000',
  });
  fake = new FakeTableService(stores.redisPrefix, stores.redisUrl);
  fake.respond = (envelope) => ({ ok: true, intentId: envelope.intentId, version: 1, seat: 0 });
  await fake.start();
  gateway = await startGateway(config, { logger: log.logger, clock, defaultMetrics: false });
  broken = new TableReader(
    testConfig(stores.redisPrefix, { DATABASE_URL: `${stores.databaseUrl}_that_does_not_exist` }).shardMap,
  );
}, 60_000);

afterAll(async () => {
  await gateway?.shutdown();
  await broken?.close();
  await fake?.stop();
  await stores?.dispose();
});

describe('POST /api/identity', () => {
  it('a signed token (at the gateway’s clock), a fresh player id and the name; logged', async () => {
    const answer = await call('POST', '/api/identity', { body: { name: 'Ana' } });
    expect(answer.status).toBe(200);
    const { token, playerId, name } = answer.json as { token: string; playerId: string; name: string };
    expect(name).toBe('Ana');
    expect(playerId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const check = verifyToken(token, TEST_SECRET, clock.now());
    expect(check).toMatchObject({
      ok: true,
      claims: { pid: playerId, name: 'Ana', iat: Math.floor(clock.now() / 1000) },
    });
    expect(log.lines).toContainEqual(expect.objectContaining({ msg: 'identity issued', player: playerId }));
    const other = await call('POST', '/api/identity', { body: { name: 'Ana' } });
    expect(other.json['playerId']).not.toBe(playerId);
  });

  it.each([
    ['an empty name', { name: '' }, /^name: /],
    ['no name', {}, /^name: missing$/],
    ['an extra field', { name: 'Ana', admin: true }, /^unknown field 'admin'$/],
    ['a number', { name: 7 }, /^name: /],
  ])('%s is a 400 INVALID_MESSAGE that says what is wrong', async (_what, body, message) => {
    const answer = await call('POST', '/api/identity', { body });
    expect(answer).toMatchObject(refusal(400, 'INVALID_MESSAGE'));
    expect(answer.json.error!.message).toMatch(message);
  });

  it(`RATE_LIMIT_IDENTITIES (${LIMIT}) per address: then a 429 with Retry-After; refused bodies do not count`, async () => {
    const from = freshAddress();
    for (let i = 0; i < 3; i++)
      expect((await call('POST', '/api/identity', { body: {}, from })).status).toBe(400);
    for (let i = 0; i < LIMIT; i++)
      expect((await call('POST', '/api/identity', { body: { name: 'Ana' }, from })).status).toBe(200);
    const limited = await call('POST', '/api/identity', { body: { name: 'Ana' }, from });
    expect(limited).toMatchObject(refusal(429, 'RATE_LIMITED'));
    const seconds = limited.headers.get('retry-after');
    expect(seconds).toMatch(/^[1-9][0-9]*$/);
    expect(limited.json.error!.message).toBe(
      `Too many new identities from your address; try again in ${seconds} s.`,
    );
    expect((await call('POST', '/api/identity', { body: { name: 'Ana' } })).status).toBe(200);
  });
});

describe('POST /api/tables', () => {
  it('opens a table for the token’s player: 201 with its code and link, the create intent with the body’s config', async () => {
    fake.received.length = 0;
    const answer = await call('POST', '/api/tables', {
      authorization: bearer(),
      body: { variant: 'draw', seats: 3, target: 150, oneRound: true, public: true },
    });
    expect(answer.status).toBe(201);
    const tableId = answer.json['tableId'] as string;
    expect(answer.json).toEqual({ tableId, link: `http://dominoes.test/t/${tableId}` });
    expect(fake.received).toHaveLength(1);
    expect(fake.received[0]).toMatchObject({
      tableId,
      player: { id: ANA, name: 'Ana' },
      intent: {
        kind: 'create',
        config: { variant: 'draw', seats: 3, target: 150, oneRound: true, public: true },
      },
    });
  });

  it('no body at all is the default table (partnership)', async () => {
    fake.received.length = 0;
    const answer = await call('POST', '/api/tables', { authorization: bearer() });
    expect(answer.status).toBe(201);
    expect(fake.received[0]).toMatchObject({
      intent: { kind: 'create', config: { variant: 'partnership' } },
    });
  });

  it.each([
    ['no header', undefined, 'UNAUTHENTICATED', 'Send your token as "Authorization: Bearer <token>".'],
    ['another scheme', 'Basic abc', 'UNAUTHENTICATED', 'Send your token as "Authorization: Bearer <token>".'],
    [
      'a token of another secret',
      `Bearer ${signToken({ pid: ANA, name: 'Ana' }, 'another-secret-0123456789abcdef', Date.now())}`,
      'TOKEN_INVALID',
      'The token was not issued by this server.',
    ],
  ])('%s is a 401 with its code and message', async (_what, authorization, code, message) => {
    expect(await call('POST', '/api/tables', { authorization, body: {} })).toMatchObject(
      refusal(401, code, message),
    );
  });

  it('an expired token is a 401 TOKEN_EXPIRED (expiry read at the gateway’s clock)', async () => {
    const token = `Bearer ${signToken({ pid: ANA, name: 'Ana' }, TEST_SECRET, clock.now() - 120_000, 60)}`;
    expect(await call('POST', '/api/tables', { authorization: token, body: {} })).toMatchObject(
      refusal(401, 'TOKEN_EXPIRED'),
    );
  });

  const variants = "'partnership', 'draw' or 'five-tile'";
  it.each([
    [
      'a target that is text',
      { target: 'x' },
      'INVALID_TARGET',
      `The target must be a whole number ${HOST_TARGETS_TEXT}; got "x".`,
    ],
    [
      'a fractional target',
      { variant: 'draw', target: 1.5 },
      'INVALID_TARGET',
      `The target must be a whole number ${HOST_TARGETS_TEXT}; got 1.5.`,
    ],
    [
      'seats as text',
      { seats: 'two' },
      'INVALID_SEAT_COUNT',
      'seats must be a whole number (2 to 4; 4 for partnership).',
    ],
    ['an unknown variant', { variant: 'chess' }, 'INVALID_CONFIG', `variant must be ${variants}.`],
    [
      'the variant before the target',
      { variant: 'chess', target: 'x' },
      'INVALID_CONFIG',
      `variant must be ${variants}.`,
    ],
    ['oneRound as text', { oneRound: 'yes' }, 'INVALID_CONFIG', 'oneRound must be true or false.'],
    [
      'public as a number',
      { public: 1 },
      'INVALID_CONFIG',
      'public must be true (listed in the lobby) or false (private).',
    ],
    [
      'chat as a number',
      { chat: 1 },
      'INVALID_MESSAGE',
      'The body must be a JSON object with variant, target, seats, oneRound.',
    ],
    [
      'an unknown field',
      { colour: 'red' },
      'INVALID_MESSAGE',
      'The body must be a JSON object with variant, target, seats, oneRound.',
    ],
    [
      'an array',
      [1],
      'INVALID_MESSAGE',
      'The body must be a JSON object with variant, target, seats, oneRound.',
    ],
  ])('%s is a 400 with its code and message', async (_what, body, code, message) => {
    expect(await call('POST', '/api/tables', { authorization: bearer(), body })).toMatchObject(
      refusal(400, code, message),
    );
  });

  it('a configuration the rules refuse is a 400 with the rules’ code and message', async () => {
    const config = { variant: 'partnership' as const, seats: 3 };
    const check = createMatch({ ...config, target: undefined, oneRound: undefined });
    if (check.ok) throw new Error('the rules accept 3 seats for partnership');
    expect(await call('POST', '/api/tables', { authorization: bearer(), body: config })).toMatchObject(
      refusal(400, check.error.code, check.error.message),
    );
    const target = await call('POST', '/api/tables', { authorization: bearer(), body: { target: 75 } });
    expect(target).toMatchObject({ status: 400 });
    expect(target.json.error!.code).not.toBe('INVALID_MESSAGE');
  });

  it(`RATE_LIMIT_TABLES (${LIMIT}) per address; refused tokens and configurations do not count`, async () => {
    const from = freshAddress();
    expect((await call('POST', '/api/tables', { from, body: {} })).status).toBe(401);
    for (const body of [{ variant: 'chess' }, { variant: 'partnership', seats: 3 }, { target: 75 }])
      expect((await call('POST', '/api/tables', { from, authorization: bearer(), body })).status).toBe(400);
    for (let i = 0; i < LIMIT; i++)
      expect((await call('POST', '/api/tables', { from, authorization: bearer(), body: {} })).status).toBe(
        201,
      );
    const limited = await call('POST', '/api/tables', { from, authorization: bearer(), body: {} });
    expect(limited).toMatchObject(refusal(429, 'RATE_LIMITED'));
    expect(limited.json.error!.message).toBe(
      `Too many new tables from your address; try again in ${limited.headers.get('retry-after')} s.`,
    );
  });
});

describe('POST /api/quick-play', () => {
  it('no open table of the configuration: opens one and seats the player at it; the link; logged', async () => {
    const answer = await call('POST', '/api/quick-play', {
      authorization: bearer(BEN, 'Ben'),
      body: { variant: 'five-tile', seats: 3 },
    });
    expect(answer.status).toBe(200);
    const tableId = answer.json['tableId'] as string;
    expect(answer.json).toEqual({
      tableId,
      link: `http://dominoes.test/t/${tableId}`,
      seat: 0,
      created: true,
    });
    expect(log.lines).toContainEqual(
      expect.objectContaining({ msg: 'quick play', player: BEN, tableId, created: true }),
    );
  });

  it.each([
    ['no header', undefined, 'UNAUTHENTICATED'],
    [
      'a token of another secret',
      `Bearer ${signToken({ pid: ANA, name: 'Ana' }, 'another-secret-0123456789abcdef', Date.now())}`,
      'TOKEN_INVALID',
    ],
  ])('%s is a 401 with its code', async (_what, authorization, code) => {
    expect(await call('POST', '/api/quick-play', { authorization, body: { variant: 'draw' } })).toMatchObject(
      refusal(401, code),
    );
  });

  it.each([
    ['no body', undefined, 'INVALID_CONFIG', "variant must be 'partnership', 'draw' or 'five-tile'."],
    ['no variant', {}, 'INVALID_CONFIG', "variant must be 'partnership', 'draw' or 'five-tile'."],
    [
      'seats as text',
      { variant: 'draw', seats: 'x' },
      'INVALID_SEAT_COUNT',
      'seats must be a whole number (2 to 4; 4 for partnership).',
    ],
    [
      'a fractional target',
      { variant: 'draw', target: 2.5 },
      'INVALID_TARGET',
      `The target must be a whole number ${HOST_TARGETS_TEXT}; got 2.5.`,
    ],
    [
      'an unknown field',
      { variant: 'draw', public: true },
      'INVALID_MESSAGE',
      'The body must be a JSON object with variant, target, seats, oneRound.',
    ],
  ])('%s is a 400 with its code and message', async (_what, body, code, message) => {
    expect(await call('POST', '/api/quick-play', { authorization: bearer(), body })).toMatchObject(
      refusal(400, code, message),
    );
  });

  it(`RATE_LIMIT_QUICK_PLAYS (${LIMIT}) per address; refused bodies do not count`, async () => {
    const from = freshAddress();
    expect((await call('POST', '/api/quick-play', { from, authorization: bearer(), body: {} })).status).toBe(
      400,
    );
    for (let i = 0; i < LIMIT; i++) {
      const seated = await call('POST', '/api/quick-play', {
        from,
        authorization: bearer(),
        body: { variant: 'partnership' },
      });
      expect(seated.status).toBe(200);
    }
    const limited = await call('POST', '/api/quick-play', {
      from,
      authorization: bearer(),
      body: { variant: 'draw' },
    });
    expect(limited).toMatchObject(refusal(429, 'RATE_LIMITED'));
    expect(limited.json.error!.message).toMatch(/^Too many quick play requests from your address/);
  });

  it('a table quick play opens counts toward RATE_LIMIT_TABLES of the address', async () => {
    const from = freshAddress();
    for (let i = 0; i < LIMIT; i++)
      expect((await call('POST', '/api/tables', { from, authorization: bearer(), body: {} })).status).toBe(
        201,
      );
    const limited = await call('POST', '/api/quick-play', {
      from,
      authorization: bearer(BEN, 'Ben'),
      body: { variant: 'draw', seats: 4, target: 250 },
    });
    expect(limited).toMatchObject(refusal(429, 'RATE_LIMITED'));
    expect(limited.json.error!.message).toMatch(/^Too many new tables from your address/);
  });
});

describe('GET /api/tables/:code', () => {
  it('a table’s public summary', async () => {
    expect(await call('GET', `/api/tables/${WAITING}`)).toMatchObject({
      status: 200,
      json: {
        tableId: WAITING,
        variant: 'draw',
        seatCount: 2,
        target: 100,
        oneRound: false,
        status: 'waiting',
        players: ['Ana', null],
      },
    });
  });

  it('an unknown code is a 404 TABLE_NOT_FOUND naming (at most 16 characters of) it', async () => {
    expect(await call('GET', '/api/tables/ZZZZZZZZZZZZ')).toMatchObject(
      refusal(404, 'TABLE_NOT_FOUND', 'There is no table ZZZZZZZZZZZZ.'),
    );
    expect(await call('GET', `/api/tables/${'Q'.repeat(40)}`)).toMatchObject(
      refusal(404, 'TABLE_NOT_FOUND', `There is no table ${'Q'.repeat(16)}.`),
    );
  });

  it(`RATE_LIMIT_LOOKUP_MISSES (${LIMIT}) counts only the misses; then every lookup is a 429`, async () => {
    const from = freshAddress();
    for (let i = 0; i < LIMIT + 2; i++)
      expect((await call('GET', `/api/tables/${WAITING}`, { from })).status).toBe(200);
    for (let i = 0; i < LIMIT; i++)
      expect((await call('GET', '/api/tables/ZZZZZZZZZZZZ', { from })).status).toBe(404);
    const limited = await call('GET', '/api/tables/ZZZZZZZZZZZZ', { from });
    expect(limited).toMatchObject(refusal(429, 'RATE_LIMITED'));
    expect(limited.json.error!.message).toMatch(
      /^Too many lookups of tables that do not exist from your address/,
    );
    expect((await call('GET', `/api/tables/${WAITING}`, { from })).status).toBe(429);
  });
});

describe('GET /api/matches', () => {
  it('the token’s player’s matches, page 0 when none is asked for', async () => {
    const first = await call('GET', '/api/matches', { authorization: bearer() });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ page: 0, nextPage: null });
    expect((first.json['matches'] as { tableId: string }[]).map((m) => m.tableId).sort()).toEqual(
      [BROKEN, DONE, PLAYING].sort(),
    );
    expect(await call('GET', '/api/matches?page=0', { authorization: bearer() })).toEqual(
      expect.objectContaining({ status: 200, json: first.json }),
    );
    expect(
      await call('GET', '/api/matches', { authorization: bearer(BEN.replace('0b', '1b'), 'X') }),
    ).toMatchObject({
      status: 200,
      json: { matches: [], page: 0, nextPage: null },
    });
  });

  it(`pages 1 to ${MAX_MATCH_PAGE} are read (empty here)`, async () => {
    for (const page of ['1', String(MAX_MATCH_PAGE), '0010'])
      expect(await call('GET', `/api/matches?page=${page}`, { authorization: bearer() })).toMatchObject({
        status: 200,
        json: { matches: [], page: Number(page), nextPage: null },
      });
  });

  it.each([String(MAX_MATCH_PAGE + 1), '-1', '1.5', '1e2', '00001', '%201', 'x', '', '1&page=2'])(
    'page=%s is a 400 INVALID_MESSAGE with the bounds',
    async (page) => {
      expect(await call('GET', `/api/matches?page=${page}`, { authorization: bearer() })).toMatchObject(
        refusal(400, 'INVALID_MESSAGE', `page must be a whole number from 0 to ${MAX_MATCH_PAGE}.`),
      );
    },
  );

  it('a page that is not one string (a repeated key, as a parser may give it) is a 400, even ["5"]', async () => {
    const history = gateway.app.get(HistoryController);
    for (const page of [['5'], ['1', '2'], 5])
      await expect(history.matches(bearer(), page)).rejects.toMatchObject({
        status: 400,
        code: 'INVALID_MESSAGE',
      });
    await expect(history.matches(bearer(), '5')).resolves.toMatchObject({ page: 5 });
  });

  it('no token is a 401, before the page is looked at', async () => {
    expect(await call('GET', '/api/matches?page=x')).toMatchObject(refusal(401, 'UNAUTHENTICATED'));
  });
});

describe('GET /api/replays/:matchId', () => {
  it('a finished match’s replay, by its id', async () => {
    const answer = await call('GET', `/api/replays/${DONE}-1`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      matchId: `${DONE}-1`,
      variant: 'draw',
      target: 100,
      oneRound: false,
    });
  });

  it('a malformed id is a 400 INVALID_MESSAGE with an example', async () => {
    expect(await call('GET', '/api/replays/nope')).toMatchObject(
      refusal(
        400,
        'INVALID_MESSAGE',
        'A match id is a table code, "-" and the match number at that table, e.g. K7M2QXP4HT9R-1.',
      ),
    );
  });

  it('an id that finds nothing is a 404 MATCH_NOT_FOUND', async () => {
    expect(await call('GET', `/api/replays/${WAITING}-1`)).toMatchObject(
      refusal(404, 'MATCH_NOT_FOUND', `There is no match ${WAITING}-1.`),
    );
  });

  it('a match in play is a 409 MATCH_NOT_OVER', async () => {
    expect(await call('GET', `/api/replays/${PLAYING}-1`)).toMatchObject(
      refusal(
        409,
        'MATCH_NOT_OVER',
        'This match is still being played: its replay (with every hand) opens when it ends.',
      ),
    );
  });

  it('a stored log that does not replay is a logged 500 INTERNAL that says why', async () => {
    const answer = await call('GET', `/api/replays/${BROKEN}-1`);
    expect(answer).toMatchObject(refusal(500, 'INTERNAL'));
    const message = answer.json.error!.message;
    expect(message).toMatch(/^The stored log of this match does not replay: ./);
    const problem = message.slice('The stored log of this match does not replay: '.length);
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        level: 50,
        msg: 'replay: the stored log does not replay',
        matchId: `${BROKEN}-1`,
        problem,
      }),
    );
  });

  it(`misses (malformed ids too) count toward RATE_LIMIT_LOOKUP_MISSES (${LIMIT}); found matches, over or not, do not`, async () => {
    const from = freshAddress();
    for (const id of [`${PLAYING}-1`, `${DONE}-1`, `${BROKEN}-1`, `${PLAYING}-1`])
      expect((await call('GET', `/api/replays/${id}`, { from })).status).not.toBe(429);
    expect((await call('GET', '/api/replays/nope', { from })).status).toBe(400);
    expect((await call('GET', `/api/replays/${WAITING}-1`, { from })).status).toBe(404);
    expect(await call('GET', `/api/replays/${DONE}-1`, { from })).toMatchObject(refusal(429, 'RATE_LIMITED'));
  });
});

describe('the HTTP API around the controllers', () => {
  it('every answer carries the security headers; an unknown route is a 404 in the protocol’s shape', async () => {
    const answer = await call('GET', '/api/nope');
    expect(answer).toMatchObject(refusal(404, 'INVALID_MESSAGE', 'There is no such route.'));
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
    expect(answer.headers.get('content-security-policy')).toContain("connect-src 'self' ws://dominoes.test");
    expect(answer.headers.get('x-powered-by')).toBeNull();
  });

  it('health: live, and ready with Redis and Postgres up (the body names each)', async () => {
    expect((await call('GET', '/health/live')).status).toBe(200);
    const ready = await call('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(Object.values(ready.json).every((state) => state !== 'down')).toBe(true);
  });

  it('a page of another origin is refused before any handler; the public URL’s origin is served', async () => {
    const from = freshAddress();
    const foreign = await call('POST', '/api/identity', {
      from,
      origin: 'https://evil.example',
      body: { name: 'Ana' },
    });
    expect(foreign).toMatchObject(
      refusal(403, 'FORBIDDEN_ORIGIN', 'Requests from https://evil.example may not use this API.'),
    );
    const own = await call('POST', '/api/identity', {
      from,
      origin: 'http://dominoes.test',
      body: { name: 'Ana' },
    });
    expect(own.status).toBe(200);
  });
});

describe('the controllers on a database that does not answer', () => {
  const request = (from: string) =>
    ({
      socket: { remoteAddress: '127.0.0.1' },
      headers: { 'x-forwarded-for': from },
    }) as unknown as IncomingMessage;
  async function refusalOf(
    attempt: Promise<unknown>,
  ): Promise<{ status: number; code: string; message: string }> {
    try {
      await attempt;
    } catch (error) {
      if (error instanceof ApiError)
        return { status: error.status, code: error.code, message: error.message };
      throw error;
    }
    throw new Error('not refused');
  }
  const logged = (msg: string) => log.lines.filter((line) => line.msg === msg && line.level === 50);

  it('a table lookup is a logged 503 UNAVAILABLE, and does not count as a miss', async () => {
    const api = new ApiController(
      config,
      clock,
      log.logger,
      broken,
      gateway.app.get(HttpLimits),
      gateway.app.get(QuickPlay),
      gateway.app.get(TableOpener),
    );
    const from = freshAddress();
    for (let i = 0; i < LIMIT + 1; i++)
      expect(await refusalOf(api.getTable(request(from), WAITING))).toEqual({
        status: 503,
        code: 'UNAVAILABLE',
        message: 'Tables cannot be read right now; try again.',
      });
    expect(logged('table summary: Postgres failed').length).toBeGreaterThanOrEqual(LIMIT + 1);
    expect(logged('table summary: Postgres failed')[0]).toHaveProperty('err');
  });

  it('the match list and a replay are logged 503 UNAVAILABLE; a replay then does not count as a miss', async () => {
    const history = new HistoryController(
      config,
      clock,
      log.logger,
      new MatchHistory(broken.history),
      gateway.app.get(HttpLimits),
    );
    const unavailable = {
      status: 503,
      code: 'UNAVAILABLE',
      message: 'Matches cannot be read right now; try again.',
    };
    expect(await refusalOf(history.matches(bearer(), undefined))).toEqual(unavailable);
    expect(logged('match list: Postgres failed')).toHaveLength(1);
    expect(logged('match list: Postgres failed')[0]).toHaveProperty('err');
    const from = freshAddress();
    for (let i = 0; i < LIMIT + 1; i++)
      expect(await refusalOf(history.replay(request(from), `${DONE}-1`))).toEqual(unavailable);
    expect(logged('replay: Postgres failed')).toHaveLength(LIMIT + 1);
    expect(logged('replay: Postgres failed')[0]).toHaveProperty('err');
  });
});

/**
 * GET /api/matches and GET /api/replays/:matchId through a real gateway on a real Postgres and Redis,
 * on rows written straight into the schema (issue 12, decision 0021): paging and order, names of
 * players who left, the lookup limit on replay ids, a repeated page, a stored log the rules refuse.
 * (A whole match played through the services is e2e/test/match-history.e2e.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { MatchListResponseSchema, MATCH_PAGE_SIZE } from '@dominoes/protocol';
import { signToken } from '../src/auth/tokens';
import type { GatewayApp } from '../src/gateway-app';
import { startTestGateway, TEST_SECRET, testConfig } from './support';

let stores: TestStores;
let gateway: GatewayApp;
let pg: Client;
const ana = randomUUID();
const ben = randomUUID();
const token = (pid: string, name: string) => `Bearer ${signToken({ pid, name }, TEST_SECRET, Date.now())}`;

/** Table `id` with a match (number 1) of `seats`, started `minutesAgo`; finished unless `playing`. */
async function storeMatch(id: string, seats: string[], minutesAgo: number, playing = false): Promise<void> {
  await pg.query(
    `insert into game_tables (id, variant, seat_count, target, one_round, host_player_id, status, version, state)
     values ($1, 'draw', $2, 100, false, $3, $4, 1, '{}')`,
    [id, seats.length, seats[0], playing ? 'playing' : 'finished'],
  );
  await pg.query(
    `insert into matches (table_id, number, variant, target, one_round, seats, scores, winner_side, started_at, finished_at)
     values ($1, 1, 'draw', 100, false, $2::jsonb, '[101, 7]'::jsonb, $3, now() - make_interval(mins => $4), $5)`,
    [id, JSON.stringify(seats), playing ? null : 0, minutesAgo, playing ? null : new Date()],
  );
}

const LETTERS = 'ABCDEFGHJKMNPQRSTUVWXYZ';
/** Table code number `n`: MATCHTABQQ and two letters. */
const code = (n: number) =>
  `MATCHTABQQ${LETTERS[Math.floor(n / LETTERS.length)]}${LETTERS[n % LETTERS.length]}`;

async function get(path: string, authorization?: string) {
  const response = await fetch(`http://127.0.0.1:${gateway.port}${path}`, {
    headers: authorization ? { authorization } : {},
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  stores = await createTestStores('gateway_history');
  pg = new Client({ connectionString: stores.databaseUrl });
  await pg.connect();
  // 25 finished matches of Ana and Ben, one a minute; one of Ben alone with someone else.
  for (let i = 0; i < 25; i++) await storeMatch(code(i), [ana, ben], 100 - i);
  await storeMatch('BENZZZZZZZZZ', [ben, randomUUID()], 1);
  // Ana is seated at the newest table still; Ben left it: his name comes from the log's seat-taken row.
  await pg.query(`insert into table_seats (table_id, seat, player_id, name) values ($1, 0, $2, 'Ana')`, [
    code(24),
    ana,
  ]);
  await pg.query(
    `insert into table_actions (table_id, seq, kind, seat, payload) values ($1, 1, 'seat-taken', 1, $2::jsonb)`,
    [code(24), JSON.stringify({ playerId: ben, name: 'Ben' })],
  );
  gateway = await startTestGateway(
    testConfig(stores.redisPrefix, {
      DATABASE_URL: stores.databaseUrl,
      REDIS_URL: stores.redisUrl,
      GATEWAY_ID: 'gw-history',
      RATE_LIMIT_LOOKUP_MISSES: '3',
    }),
  );
}, 60_000);

afterAll(async () => {
  await gateway?.shutdown();
  await pg?.end();
  await stores?.dispose();
});

describe('GET /api/matches', () => {
  it('pages of MATCH_PAGE_SIZE, newest first, only the token’s; the names of a player who left come from the log', async () => {
    const first = MatchListResponseSchema.parse((await get('/api/matches', token(ana, 'Ana'))).json);
    expect(first.matches).toHaveLength(MATCH_PAGE_SIZE);
    expect(first.nextPage).toBe(1);
    expect(first.matches.map((m) => m.tableId)).toEqual(Array.from({ length: 20 }, (_, i) => code(24 - i)));
    expect(first.matches[0]).toMatchObject({
      players: ['Ana', 'Ben'],
      seat: 0,
      opponents: ['Ben'],
      partners: [],
      outcome: 'won',
      scores: [101, 7],
    });
    const second = MatchListResponseSchema.parse((await get('/api/matches?page=1', token(ana, 'Ana'))).json);
    expect(second.matches.map((m) => m.tableId)).toEqual(Array.from({ length: 5 }, (_, i) => code(4 - i)));
    expect(second.nextPage).toBeNull();
    // Ben: his own 26, his side's view (seat 1: lost), never a match he did not play in.
    const benFirst = MatchListResponseSchema.parse((await get('/api/matches', token(ben, 'Ben'))).json);
    expect(benFirst.matches[0]!.tableId).toBe('BENZZZZZZZZZ');
    expect(benFirst.matches[1]).toMatchObject({ tableId: code(24), seat: 1, outcome: 'lost' });
    const benSecond = MatchListResponseSchema.parse(
      (await get('/api/matches?page=1', token(ben, 'Ben'))).json,
    );
    expect(benSecond.matches).toHaveLength(6);
    const anaAll = [...first.matches, ...second.matches].map((m) => m.tableId);
    expect(anaAll).not.toContain('BENZZZZZZZZZ');
  });

  it('a repeated or bad page is a 400; a token of another secret a 401', async () => {
    expect((await get('/api/matches?page=1&page=2', token(ana, 'Ana'))).status).toBe(400);
    expect((await get('/api/matches?page=%20', token(ana, 'Ana'))).status).toBe(400);
    const foreign = `Bearer ${signToken({ pid: ana, name: 'Ana' }, 'another-secret-0123456789abcdef', Date.now())}`;
    expect(await get('/api/matches', foreign)).toMatchObject({
      status: 401,
      json: { error: { code: 'TOKEN_INVALID' } },
    });
    const expired = `Bearer ${signToken({ pid: ana, name: 'Ana' }, TEST_SECRET, Date.now() - 10_000, 1)}`;
    expect(await get('/api/matches', expired)).toMatchObject({
      status: 401,
      json: { error: { code: 'TOKEN_EXPIRED' } },
    });
  });
});

describe('GET /api/replays/:matchId', () => {
  it('a stored log the rules refuse is a 500 that says so, never a replay', async () => {
    await pg.query(
      `insert into table_actions (table_id, seq, kind, seat, match_number, payload) values
         ($1, 2, 'match-started', null, 1, $2::jsonb),
         ($1, 3, 'round-dealt', null, 1, $3::jsonb)`,
      [
        code(23),
        JSON.stringify({
          config: { variant: 'draw', seats: 2, target: 100, oneRound: false },
          players: [ana, ben],
        }),
        JSON.stringify({ hands: [[[6, 6]], [[5, 5]]], stock: [], opener: 0, redeals: 0 }),
      ],
    );
    const answer = await get(`/api/replays/${code(23)}-1`);
    expect(answer.status).toBe(500);
    expect(answer.json).toMatchObject({ error: { code: 'INTERNAL' } });
    expect(String((answer.json['error'] as { message: string }).message)).toMatch(/does not replay/);
  });

  it('ids that find nothing count toward RATE_LIMIT_LOOKUP_MISSES; found ones (over or not) do not', async () => {
    await storeMatch('PQAYXNGQQQQQ', [ana, ben], 0, true);
    for (let i = 0; i < 5; i++) expect((await get('/api/replays/PQAYXNGQQQQQ-1')).status).toBe(409);
    const misses = [];
    for (const id of ['ZZZZZZZZZZZZ-1', `${code(3)}-2`, 'nope', 'YYYYYYYYYYYY-1'])
      misses.push((await get(`/api/replays/${id}`)).status);
    expect(misses).toEqual([404, 404, 400, 429]);
    expect((await get('/api/replays/PQAYXNGQQQQQ-1')).status).toBe(429);
  });
});

import { LobbyQueries, type Logger } from '@dominoes/platform';
import { IdentityResponseSchema, LOBBY_MAX_WAITING } from '@dominoes/protocol';
import {
  createTwoDatabases,
  tableCodeIn,
  type TwoDatabases,
} from '../../../libs/platform/test/two-databases';
import { LobbyReader } from '../src/lobby/lobby-reader';
import { MatchHistory } from '../src/tables/match-history';
import { TableReader } from '../src/tables/table-reader';
import { FakeTableService, startTestGateway, testConfig } from './support';

/*
 * The gateway's readers over Postgres split by shard (issue 13, decision 0027), on two real
 * databases: a table is read in its shard's database; lists are asked of both and merged in the one
 * query's order and limit. The rows are seeded straight into each database (the table-service is the
 * writer; its routing is proved in apps/table-service/test/shard-databases.test.ts).
 */
describe("the gateway's readers over two databases", () => {
  let two: TwoDatabases;
  let tables: TableReader;
  let lobby: LobbyReader;
  const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const me = uuid(1);
  const other = uuid(2);
  const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
  const code = (database: number, seed: string, n = 0) => tableCodeIn(two, database, seed, n);

  interface Seed {
    readonly status?: 'waiting' | 'playing' | 'finished';
    readonly isPublic?: boolean;
    readonly minute: number;
    readonly seats?: readonly { seat: number; player: string; name: string; connections?: string[] }[];
    readonly seatsPresent?: number;
    readonly seatCount?: number;
    readonly chat?: boolean;
  }

  /** Writes table `id` into the database its shard is in (the test's own placement of it). */
  const seed = async (database: number, id: string, s: Seed) => {
    const db = two.client(database);
    const seats = s.seats ?? [{ seat: 0, player: other, name: 'Olga' }];
    const seatCount = s.seatCount ?? 2;
    const state = {
      seats: Array.from({ length: seatCount }, (_, i) => {
        const seat = seats.find((x) => x.seat === i);
        return seat ? { playerId: seat.player, name: seat.name, connections: seat.connections ?? [] } : null;
      }),
    };
    await db.$executeRawUnsafe(
      `insert into game_tables (id, variant, seat_count, target, one_round, host_player_id, status, version, state, is_public, chat, seats_present, created_at, updated_at)
       values ($1, 'draw', $2, 100, false, $3::uuid, $4, 3, $5::json, $6, $7, $8, $9::timestamptz, $9::timestamptz)`,
      id,
      seatCount,
      seats[0]!.player,
      s.status ?? 'waiting',
      JSON.stringify(state),
      s.isPublic ?? true,
      s.chat ?? true,
      s.seatsPresent ?? seats.length,
      at(s.minute),
    );
    for (const seat of seats)
      await db.$executeRawUnsafe(
        'insert into table_seats (table_id, seat, player_id, name) values ($1, $2, $3::uuid, $4)',
        id,
        seat.seat,
        seat.player,
        seat.name,
      );
  };

  beforeAll(async () => {
    two = await createTwoDatabases('split_readers');
    tables = new TableReader(two.map);
    lobby = new LobbyReader(two.map);
  });
  afterAll(async () => {
    await tables?.close();
    await lobby?.onApplicationShutdown();
    await two?.dispose();
  });

  it("a table's summary, chat setting, held seat and stored intent are read in its own database, whichever it is", async () => {
    const first = code(0, 'read');
    const second = code(1, 'read');
    await seed(0, first, { minute: 1, isPublic: false, chat: false });
    await seed(1, second, {
      minute: 2,
      isPublic: false,
      seats: [{ seat: 1, player: me, name: 'Mia', connections: ['gw-1:7'] }],
    });
    await two
      .client(1)
      .$executeRawUnsafe(
        `insert into table_actions (table_id, seq, kind, seat, payload, intent_id) values ($1, 1, 'seat-taken', 1, '{}', 'i-2')`,
        second,
      );
    expect(await tables.summary(first)).toMatchObject({ tableId: first, players: ['Olga', null] });
    expect(await tables.summary(second)).toMatchObject({ tableId: second, players: [null, 'Mia'] });
    expect(await tables.chatEnabled(first)).toBe(false);
    expect(await tables.chatEnabled(second)).toBe(true);
    expect(await tables.seatHeld(second, 1, me, 'gw-1:7')).toBe(true);
    expect(await tables.seatHeld(second, 1, me, 'gw-1:8')).toBe(false);
    expect(await tables.storedIntent(second, 'i-2', me)).toEqual({ version: 3, seat: 1 });
    expect([await tables.pingDatabase(0), await tables.pingDatabase(1)]).toEqual([true, true]);
    expect(tables.databaseCount).toBe(2);
  });

  it('the lobby lists the public tables of both databases: waiting oldest first, playing newest first, each part cut to its limit; counts and "your tables" add both', async () => {
    // Minutes interleave the databases: a merge that kept database order would fail.
    const waiting = [
      [0, 10],
      [1, 11],
      [0, 12],
      [1, 13],
    ] as const;
    const playing = [
      [1, 20],
      [0, 21],
      [1, 22],
    ] as const;
    const ids: Record<string, string> = {};
    for (const [i, [database, minute]] of waiting.entries()) {
      ids[`w${minute}`] = code(database, 'lobby-w', i);
      await seed(database, ids[`w${minute}`]!, {
        minute,
        seats: [
          { seat: 0, player: other, name: 'Olga' },
          ...(minute % 2 === 1 ? [{ seat: 1, player: me, name: 'Mia' }] : []),
        ],
      });
    }
    for (const [i, [database, minute]] of playing.entries()) {
      ids[`p${minute}`] = code(database, 'lobby-p', i);
      await seed(database, ids[`p${minute}`]!, { minute, status: 'playing' });
    }
    // Neither listed nor counted: a private table, and a waiting one with nobody present.
    await seed(1, code(1, 'lobby-x', 0), { minute: 5, isPublic: false });
    await seed(0, code(0, 'lobby-x', 0), { minute: 6, seatsPresent: 0 });

    const cut = await lobby.queries.publicTables(3, 2);
    expect(cut.map((row) => row.id)).toEqual([ids.w10, ids.w11, ids.w12, ids.p22, ids.p21]);

    const snapshot = await lobby.snapshot(me);
    const listed = snapshot.tables.map((t) => t.tableId).filter((id) => Object.values(ids).includes(id));
    expect(listed).toEqual([ids.w10, ids.w11, ids.w12, ids.w13, ids.p22, ids.p21, ids.p20]);
    expect(snapshot.tables.length).toBeLessThanOrEqual(LOBBY_MAX_WAITING + 20);
    expect(snapshot.counts).toEqual({ waiting: 4, playing: 3 });
    // "Your tables": the ones `me` sits at, newest first, over both databases (the first test's too).
    const yours = snapshot.yours.map((t) => t.tableId);
    expect(yours).toEqual([ids.w13, ids.w11, code(1, 'read')]);
    expect((await lobby.queries.tablesOf(me, 2)).map((row) => row.id)).toEqual([ids.w13, ids.w11]);
  });

  it("quick play's search finds an open table in the second database, and ranks the player's own table first and then the oldest over both", async () => {
    const config = { variant: 'draw', seatCount: 3, target: 100 };
    const search = (playerId: string, limit = 5) =>
      lobby.queries.withQuickPlayLock(config, (s) => s.candidates(playerId, limit), 5_000);
    expect(await search(me)).toEqual([]);
    const inSecond = code(1, 'quick', 0);
    await seed(1, inSecond, { minute: 40, seatCount: 3 });
    expect(await search(me)).toEqual([inSecond]);
    const olderInFirst = code(0, 'quick', 0);
    await seed(0, olderInFirst, { minute: 30, seatCount: 3 });
    const mineInSecond = code(1, 'quick', 1);
    await seed(1, mineInSecond, {
      minute: 50,
      seatCount: 3,
      seats: [{ seat: 0, player: me, name: 'Mia' }],
    });
    expect(await search(me)).toEqual([mineInSecond, olderInFirst, inSecond]);
    expect(await search(uuid(3), 2)).toEqual([olderInFirst, inSecond]);
  });

  it('quick play of one configuration waits for another holding its lock in the home database', async () => {
    const config = { variant: 'draw', seatCount: 4, target: 150 };
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = lobby.queries.withQuickPlayLock(
      config,
      async () => {
        order.push('first in');
        await held;
        order.push('first out');
      },
      5_000,
    );
    await new Promise((r) => setTimeout(r, 200));
    const second = lobby.queries.withQuickPlayLock(config, async () => void order.push('second in'), 5_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(order).toEqual(['first in']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first in', 'first out', 'second in']);
  });

  it('"your matches" merges both databases newest first, paged as one list would be', async () => {
    const player = uuid(9);
    // Eight matches, alternating databases by start minute; two tables per database.
    const tablesOf = [code(0, 'hist', 0), code(1, 'hist', 0), code(0, 'hist', 1), code(1, 'hist', 1)];
    for (const [t, id] of tablesOf.entries())
      await seed(t % 2, id, {
        minute: 60 + t,
        status: 'finished',
        isPublic: false,
        seats: [{ seat: 0, player, name: 'Pat' }],
      });
    const started: { id: string; number: number; minute: number }[] = [];
    for (let m = 0; m < 8; m++) {
      const t = m % 4;
      const number = Math.floor(m / 4) + 1;
      const minute = 100 + m;
      started.push({ id: tablesOf[t]!, number, minute });
      await two.client(t % 2).$executeRawUnsafe(
        `insert into matches (table_id, number, variant, target, one_round, seats, started_at, finished_at, winner_side, scores)
         values ($1, $2, 'draw', 100, false, $3::jsonb, $4::timestamptz, $4::timestamptz, 0, '[100, 0]')`,
        tablesOf[t],
        number,
        JSON.stringify([player, other]),
        at(minute),
      );
    }
    const newestFirst = started.sort((a, b) => b.minute - a.minute).map((m) => `${m.id}#${m.number}`);
    const history = new MatchHistory(tables.history);
    const page = (await history.matchesOf(player, 0)).matches.map((m) => `${m.tableId}#${m.number}`);
    expect(page).toEqual(newestFirst);
    for (const offset of [0, 3, 6]) {
      const rows = await tables.history.matchesOf(player, 3, offset);
      expect(rows.map((r) => `${r.tableId}#${r.number}`)).toEqual(newestFirst.slice(offset, offset + 3));
    }
    // One match of the second database, read (and replay-refused for its empty log) in its own.
    const second = started.find((m) => tables.history.databases.indexOfTable(m.id) === 1)!;
    expect(await tables.history.match(second.id, second.number)).toMatchObject({ tableId: second.id });
    expect(await history.replay(second.id, second.number)).toEqual({
      refused: 'not-replayable',
      message: 'The stored log holds no dealt round.',
    });
  });

  it("a second database that does not answer is left out of the lobby's lists and counts and of quick play's search, with one warning; the home database's tables are still offered", async () => {
    const warned: unknown[] = [];
    const logger = { warn: (fields: unknown) => warned.push(fields) } as unknown as Logger;
    const halfDown = new LobbyReader(
      { ...two.map, databaseUrls: [two.map.databaseUrls[0]!, 'postgresql://postgres@127.0.0.1:1/nowhere'] },
      logger,
    );
    try {
      const inHome = code(0, 'left-out');
      const inSecond = code(1, 'left-out');
      await seed(0, inHome, { minute: 95, seatCount: 4 });
      await seed(1, inSecond, { minute: 94, seatCount: 4 });
      const everything = await lobby.snapshot(me);
      expect(everything.tables.map((t) => t.tableId)).toEqual(expect.arrayContaining([inHome, inSecond]));

      const snapshot = await halfDown.snapshot(me);
      const listed = snapshot.tables.map((t) => t.tableId);
      expect(listed).toContain(inHome);
      expect(listed).not.toContain(inSecond);
      expect(snapshot.counts).toEqual(await new LobbyQueries(two.client(0)).publicCounts());
      const config = { variant: 'draw', seatCount: 4, target: 100 };
      expect(
        await halfDown.queries.withQuickPlayLock(config, (search) => search.candidates(me, 5), 5_000),
      ).toEqual([inHome]);
      // Once per database every 10 s, not once per read.
      expect(warned).toEqual([expect.objectContaining({ database: 1 })]);
    } finally {
      await halfDown.onApplicationShutdown();
    }
  });

  it('the gateway started with DATABASE_URLS over both is ready, finds a table of either database by its code, and its quick play seats the player at the open table of the second database', async () => {
    const prefix = `${two.stores[0].redisPrefix}_gw`;
    const fake = new FakeTableService(prefix, two.stores[0].redisUrl, 16);
    fake.respond = (envelope) => ({ ok: true, intentId: envelope.intentId, version: 4, seat: 1 });
    await fake.start();
    const gateway = await startTestGateway(
      testConfig(prefix, {
        DATABASE_URLS: two.databaseUrls,
        REDIS_URL: two.stores[0].redisUrl,
        TABLE_SHARDS: '16',
        REPLY_TIMEOUT_MS: '2000',
      }),
    );
    try {
      const base = `http://127.0.0.1:${gateway.port}`;
      expect((await fetch(`${base}/health/ready`)).status).toBe(200);
      const inFirst = code(0, 'http');
      const inSecond = code(1, 'http');
      await seed(0, inFirst, { minute: 70, isPublic: false });
      await seed(1, inSecond, {
        minute: 71,
        seatCount: 3,
        seats: [{ seat: 0, player: other, name: 'Olga' }],
      });
      await two.client(1).$executeRawUnsafe('update game_tables set target = 200 where id = $1', inSecond);
      for (const id of [inFirst, inSecond]) {
        const page = await fetch(`${base}/api/tables/${id}`);
        expect(page.status).toBe(200);
        expect(await page.json()).toMatchObject({ tableId: id });
      }
      const identity = IdentityResponseSchema.parse(
        await (
          await fetch(`${base}/api/identity`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'Quinn' }),
          })
        ).json(),
      );
      const quick = await fetch(`${base}/api/quick-play`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${identity.token}` },
        body: JSON.stringify({ variant: 'draw', seats: 3, target: 200 }),
      });
      expect(quick.status).toBe(200);
      expect(await quick.json()).toMatchObject({ tableId: inSecond, seat: 1, created: false });
      expect(fake.received.map((e) => [e.tableId, e.intent.kind])).toEqual([[inSecond, 'join']]);
    } finally {
      await gateway.shutdown();
      await fake.stop();
    }
  }, 30_000);

  it("a gateway whose second database does not answer stays ready (its body says postgres_1 down: only that database's tables pause); one whose home database does not answer is not ready", async () => {
    const prefix = `${two.stores[0].redisPrefix}_gwdown`;
    const unreachable = 'postgresql://postgres@127.0.0.1:1/nowhere';
    const ready = async (urls: string) => {
      const gateway = await startTestGateway(
        testConfig(prefix, { DATABASE_URLS: urls, REDIS_URL: two.stores[0].redisUrl, TABLE_SHARDS: '16' }),
      );
      try {
        const answer = await fetch(`http://127.0.0.1:${gateway.port}/health/ready`);
        return { status: answer.status, body: (await answer.json()) as Record<string, string> };
      } finally {
        await gateway.shutdown();
      }
    };
    const [home] = two.databaseUrls.split(',');
    expect(await ready(`${home},${unreachable}`)).toEqual({
      status: 200,
      body: { status: 'ok', redis: 'ok', postgres: 'ok', postgres_1: 'down' },
    });
    expect(await ready(`${unreachable},${home}`)).toEqual({
      status: 503,
      body: { status: 'unavailable', redis: 'ok', postgres: 'down', postgres_1: 'ok' },
    });
  }, 30_000);
});

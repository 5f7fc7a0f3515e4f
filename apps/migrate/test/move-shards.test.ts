import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  createPrisma,
  createRedis,
  loadMigrations,
  TableQueries,
  type PrismaClient,
} from '@dominoes/platform';
import { redisNames, shardOf } from '@dominoes/protocol';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { shardsMove } from '../src/move-shards/command';
import { copyShards } from '../src/move-shards/copy';

/*
 * Moving a shard group to another database (issue 13, docs/operations.md "Moving a shard group"), on
 * two real migrated databases per test: tables of every shard of 8, made by the table-service's own
 * statements (TableQueries: open, seat, deal, finish, archive), all in database 0; shards 4-7 move to
 * database 1.
 */
const SHARDS = 8;
const MOVED = [4, 5, 6, 7];
const RELATIONS = [
  'public.game_tables',
  'public.table_seats',
  'public.matches',
  'public.rounds',
  'public.table_actions',
  'archive.game_tables',
  'archive.table_seats',
  'archive.matches',
  'archive.rounds',
  'archive.table_actions',
];
const keyOf = (relation: string) => (relation.endsWith('game_tables') ? 'id' : 'table_id');

/** Two tables per shard: ids whose shard is known. */
function tableIds(): string[] {
  const ids: string[] = [];
  const perShard = new Array<number>(SHARDS).fill(0);
  for (let n = 0; ids.length < SHARDS * 2; n++) {
    const id = `MOVE${n.toString(36).toUpperCase()}`;
    const shard = shardOf(id, SHARDS);
    if (perShard[shard]! < 2) {
      perShard[shard]!++;
      ids.push(id);
    }
  }
  return ids;
}

const log = (seq: number, kind: string, payload: unknown, intentId: string | null = null) => ({
  seq,
  kind,
  seat: null,
  match_number: 1,
  round_number: 1,
  payload,
  intent_id: intentId,
});

/** A table as the table-service stores one: opened, two seats taken, match 1 dealt; every second one finished and archived. */
/** A name with what record text must quote and escape: quotes, a comma, parentheses, a backslash. */
const GUEST = `Bo "the, (best)" \\ O'Neil`;

async function seedTable(queries: TableQueries, id: string, finish: boolean): Promise<void> {
  const host = randomUUID();
  const guest = randomUUID();
  const state = (version: number, status: string) =>
    JSON.stringify({ id, version, status, note: 'kept  as  written' });
  await queries.insertTable(
    {
      id,
      variant: 'draw',
      seatCount: 2,
      target: 100,
      oneRound: false,
      hostPlayerId: host,
      status: 'waiting',
      deadlineAt: new Date(Date.UTC(2026, 11, 2, 1, 2, 3, 456)),
      isPublic: true,
      chat: true,
      state: state(0, 'waiting'),
      seatsPresent: 0,
    },
    100,
  );
  const match = { number: 1, variant: 'draw', target: 100, one_round: false, seats: [host, guest] };
  const change = (expectedVersion: number, version: number, status: string) => ({
    tableId: id,
    expectedVersion,
    version,
    state: state(version, status),
    status,
    deadlineAt: null,
    seatsPresent: 2,
    hostPlayerId: null,
    seatsFreed: [],
    expiresAt: null,
  });
  expect(
    await queries.append({
      ...change(0, 4, 'playing'),
      log: [
        log(1, 'seat-taken', { playerId: host, name: 'Ana' }, `${id}:i1`),
        log(2, 'seat-taken', { playerId: guest, name: GUEST }),
        log(3, 'match-started', { target: 100 }),
        log(4, 'round-dealt', { hands: [[[6, 6]], [[0, 1]]] }),
      ],
      seatsTaken: [
        { seat: 0, player_id: host, name: 'Ana' },
        { seat: 1, player_id: guest, name: GUEST },
      ],
      matches: [{ ...match, scores: null, winner_side: null, finished: false, abandoned: false }],
      rounds: [
        {
          match_number: 1,
          number: 1,
          opener: 0,
          deal: { hands: [[[6, 6]], [[0, 1]]] },
          result: null,
          finished: false,
        },
      ],
    }),
  ).toBe('stored');
  if (!finish) return;
  expect(
    await queries.append({
      ...change(4, 6, 'finished'),
      log: [
        log(5, 'round-ended', { result: { points: 12 } }, `${id}:i2`),
        log(6, 'match-ended', { winnerSide: 0 }),
      ],
      seatsTaken: [],
      matches: [{ ...match, scores: [100, 12], winner_side: 0, finished: true, abandoned: false }],
      rounds: [{ match_number: 1, number: 1, opener: 0, deal: null, result: { points: 12 }, finished: true }],
    }),
  ).toBe('stored');
  expect(await queries.archiveTable(id, new Date(Date.now() + 60_000))).toBe(true);
}

async function sql<T = Record<string, unknown>>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`SET TIME ZONE 'UTC'`);
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Every row of `ids` in every relation, as JSON text, sorted: what "identical" is checked against. */
async function rowsOf(url: string, ids: readonly string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const relation of RELATIONS) {
    const rows = await sql<{ j: string }>(
      url,
      `SELECT row_to_json(t)::text AS j FROM ${relation} t WHERE t.${keyOf(relation)} = ANY($1::text[]) ORDER BY 1`,
      [[...ids]],
    );
    out[relation] = rows.map((r) => r.j);
  }
  return out;
}

/** Every row of every relation (players too): a database's whole content, to prove nothing changed. */
async function everything(url: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const relation of [...RELATIONS, 'public.players']) {
    const rows = await sql<{ j: string }>(
      url,
      `SELECT row_to_json(t)::text AS j FROM ${relation} t ORDER BY 1`,
    );
    out[relation] = rows.map((r) => r.j);
  }
  return out;
}

interface Setup {
  readonly a: TestStores;
  readonly b: TestStores;
  readonly ids: string[];
  readonly moved: string[];
  readonly kept: string[];
  /** Moved tables still being played (the others are finished and archived). */
  readonly movedLive: string[];
  readonly prismaA: PrismaClient;
  /** The environment every service would run with: both databases, every shard in database 0. */
  readonly env: NodeJS.ProcessEnv;
}

const opened: Setup[] = [];

async function setup(): Promise<Setup> {
  const [a, b] = [await createTestStores('move_shards_a'), await createTestStores('move_shards_b')];
  const prismaA = createPrisma(a.databaseUrl, 2);
  const queries = new TableQueries(prismaA);
  const ids = tableIds();
  for (const [i, id] of ids.entries()) await seedTable(queries, id, i % 2 === 1);
  await sql(a.databaseUrl, `INSERT INTO players (id, name) VALUES ($1, 'Ana')`, [randomUUID()]);
  const moved = ids.filter((id) => MOVED.includes(shardOf(id, SHARDS)));
  const env = {
    DATABASE_URLS: `${a.databaseUrl},${b.databaseUrl}`,
    DATABASE_SHARD_MAP: '0-7:0',
    TABLE_SHARDS: String(SHARDS),
    REDIS_URL: a.redisUrl,
    REDIS_PREFIX: a.redisPrefix,
  };
  const kept = ids.filter((id) => !moved.includes(id));
  const movedLive = moved.filter((id) => ids.indexOf(id) % 2 === 0);
  const s = { a, b, ids, moved, kept, movedLive, prismaA, env };
  opened.push(s);
  return s;
}

afterEach(async () => {
  for (const s of opened.splice(0)) {
    await s.prismaA.$disconnect();
    await Promise.all([s.a.dispose(), s.b.dispose()]);
  }
});

async function move(argv: string[], env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await shardsMove(argv, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('shards:move (issue 13: moving a shard group to another database)', () => {
  it('copies every live and archived row of the moved shards, identical, counts checked; leaves the rest; prints the new DATABASE_SHARD_MAP', async () => {
    const s = await setup();
    const before = await everything(s.a.databaseUrl);
    const expected = await rowsOf(s.a.databaseUrl, s.moved);
    // Live and archived tables, with seats, matches, rounds and log rows, in the moved shards.
    for (const relation of RELATIONS) expect(expected[relation]!.length).toBeGreaterThan(0);

    const result = await move(['--shards', '4-7', '--to', '1'], s.env);

    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toContain('DATABASE_SHARD_MAP=0-3:0,4-7:1');
    expect(result.out).toContain(`public.table_actions: ${expected['public.table_actions']!.length}`);
    expect(result.out).toContain(`archive.table_actions: ${expected['archive.table_actions']!.length}`);
    expect(await rowsOf(s.b.databaseUrl, s.moved)).toEqual(expected);
    // Only the moved shards' tables are on the target; the source is untouched until --delete-source.
    expect(await rowsOf(s.b.databaseUrl, s.kept)).toEqual(Object.fromEntries(RELATIONS.map((r) => [r, []])));
    expect(await everything(s.a.databaseUrl)).toEqual(before);
    expect((await everything(s.b.databaseUrl))['public.players']).toEqual([]);

    // A moved table goes on from the target with the table-service's own statements, at its next version.
    const prismaB = createPrisma(s.b.databaseUrl, 1);
    try {
      const queriesB = new TableQueries(prismaB);
      const live = s.movedLive[0]!;
      expect((await queriesB.snapshot(live, 10))?.version).toBe(4n);
      expect(
        await queriesB.append({
          tableId: live,
          expectedVersion: 4,
          version: 5,
          state: '{}',
          status: 'playing',
          deadlineAt: null,
          seatsPresent: 2,
          hostPlayerId: null,
          log: [log(5, 'tile-played', { tile: [6, 6] }, `${live}:i9`)],
          seatsFreed: [],
          seatsTaken: [],
          matches: [],
          rounds: [],
          expiresAt: null,
        }),
      ).toBe('stored');
    } finally {
      await prismaB.$disconnect();
    }
  });

  it('refuses a second copy (the target holds those rows) and changes nothing: exit 2', async () => {
    const s = await setup();
    expect((await move(['--shards', '4-7', '--to', '1'], s.env)).code).toBe(0);
    const [a, b] = [await everything(s.a.databaseUrl), await everything(s.b.databaseUrl)];

    const again = await move(['--shards', '4-7', '--to', '1'], s.env);

    expect(again.code).toBe(2);
    expect(again.err).toMatch(
      /database 1 already holds rows of shards 4-7 \(archive\.game_tables 4, .*public\.game_tables 4, .*\): the copy was made already.*; nothing was changed/,
    );
    // One shard of the range is enough to refuse.
    expect((await move(['--shards', '5', '--to', '1'], s.env)).code).toBe(2);
    expect(await everything(s.a.databaseUrl)).toEqual(a);
    expect(await everything(s.b.databaseUrl)).toEqual(b);
  });

  it('refuses bad input with a clear error, exit 2, nothing changed on either database', async () => {
    const s = await setup();
    const unmigrated = `${s.b.databaseUrl}_empty`;
    const admin = new URL(s.b.databaseUrl);
    admin.pathname = '/postgres';
    await sql(admin.toString(), `CREATE DATABASE "${new URL(unmigrated).pathname.slice(1)}"`);
    const [a, b] = [await everything(s.a.databaseUrl), await everything(s.b.databaseUrl)];
    const redis = createRedis(s.a.redisUrl, 'move-shards-test');
    try {
      const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
        [['--shards', '4-8', '--to', '1'], s.env, /--shards "4-8": there are 8 shards \(0-7, TABLE_SHARDS\)/],
        [['--shards', '7-4', '--to', '1'], s.env, /7 is after 4/],
        [['--shards', 'x', '--to', '1'], s.env, /is not from-to or one shard/],
        [['--shards', '4-7', '--to', '2'], s.env, /--to "2": DATABASE_URLS lists 2 database\(s\) \(0-1\)/],
        [
          ['--shards', '4-7', '--to', '0'],
          s.env,
          /shards 4-7 are in database 0 already \(the same database\)/,
        ],
        [['--shards', '4-7'], s.env, /--to <database> is required/],
        [['--shards', '4-7', '--to', '1', '--force'], s.env, /unknown argument "--force"/],
        [
          ['--shards', '2-5', '--to', '1'],
          { ...s.env, DATABASE_SHARD_MAP: '0-3:0,4-7:1' },
          /shards 2-5 are in databases 0 and 1 .*one database's shards at a time/,
        ],
        [
          ['--shards', '4-7', '--to', '1'],
          { ...s.env, DATABASE_URLS: `${s.a.databaseUrl},${s.a.databaseUrl}` },
          /database 0 and database 1 of DATABASE_URLS are the same database/,
        ],
        [
          ['--shards', '4-7', '--to', '1'],
          { ...s.env, DATABASE_URLS: `${s.a.databaseUrl},${unmigrated}` },
          new RegExp(
            `database 1 is not migrated \\(${loadMigrations().length} migration\\(s\\) missing, first 20261130000000_init\\): run npm run migrate`,
          ),
        ],
        [
          ['--shards', '4-7', '--to', '1'],
          { ...s.env, DATABASE_SHARD_MAP: '0-6:0' },
          /DATABASE_SHARD_MAP shard 7 is in no database/,
        ],
      ];
      for (const [argv, env, message] of cases) {
        const result = await move(argv, env);
        expect({ argv, code: result.code, out: result.out }).toEqual({ argv, code: 2, out: '' });
        expect(result.err).toMatch(message);
        expect(result.err).toContain('nothing was changed');
      }
      // A wrong command line also shows how to write it.
      expect((await move(['--shards', '4-7', '--too', '1'], s.env)).err).toContain(
        'usage: npm run shards:move',
      );
      expect((await move(['--shards', '4-7', '--to', '0'], s.env)).err).not.toContain('usage:');
      // A table-service still owns a moved shard: the copy could miss its next write.
      const lease = redisNames(s.a.redisPrefix, SHARDS).shardLease(6);
      await redis.set(lease, 'replica-7', 'PX', 60_000);
      const owned = await move(['--shards', '4-7', '--to', '1'], s.env);
      expect(owned.code).toBe(2);
      expect(owned.err).toMatch(
        /shard\(s\) 6 \(replica replica-7\) are owned by a running table-service: stop every table-service first/,
      );
      await redis.del(lease);
    } finally {
      redis.disconnect();
      await sql(
        admin.toString(),
        `DROP DATABASE IF EXISTS "${new URL(unmigrated).pathname.slice(1)}" WITH (FORCE)`,
      );
    }
    expect(await everything(s.a.databaseUrl)).toEqual(a);
    expect(await everything(s.b.databaseUrl)).toEqual(b);
  });

  it('commits nothing on the target when a moved table was written on the source during the copy', async () => {
    const s = await setup();
    const [source, target] = [
      new Client({ connectionString: s.a.databaseUrl }),
      new Client({ connectionString: s.b.databaseUrl }),
    ];
    await Promise.all([source.connect(), target.connect()]);
    const queries = new TableQueries(s.prismaA);
    const live = s.movedLive[0]!;
    try {
      await expect(
        copyShards(source, target, {
          shards: MOVED,
          range: '4-7',
          totalShards: SHARDS,
          sourceName: 'database 0',
          targetName: 'database 1',
          // A table-service left running: it stores a player's tile while the rows are being copied.
          afterInsert: async () => {
            const version = Number((await queries.snapshot(live, 1))!.version);
            await sql(
              s.a.databaseUrl,
              `UPDATE game_tables SET seats_present = 1 WHERE id = $1 AND version = $2`,
              [live, version],
            );
          },
        }),
      ).rejects.toThrow(
        /shards 4-7 were written on database 0 during the copy \(public\.game_tables .*stop every table-service first; nothing was copied/,
      );
    } finally {
      await Promise.all([source.end(), target.end()]);
    }
    expect(await rowsOf(s.b.databaseUrl, s.ids)).toEqual(Object.fromEntries(RELATIONS.map((r) => [r, []])));
  });

  it("--delete-source, after the switch, removes exactly the moved tables' rows from the source; the log stays append-only", async () => {
    const s = await setup();
    const newMap = { ...s.env, DATABASE_SHARD_MAP: '0-3:0,4-7:1' };
    const args = ['--shards', '4-7', '--from', '0', '--delete-source'];
    // Before the copy the target lacks the tables: refused, nothing deleted.
    const early = await move(args, newMap);
    expect(early.code).toBe(2);
    expect(early.err).toMatch(/database 1 lacks 8 of the 8 tables of shards 4-7 on database 0/);
    expect((await move(['--shards', '4-7', '--to', '1'], s.env)).code).toBe(0);
    // With the old map (the switch not made yet): refused.
    const notSwitched = await move(args, s.env);
    expect(notSwitched.code).toBe(2);
    expect(notSwitched.err).toMatch(/DATABASE_SHARD_MAP still puts shards 4-7 in database 0/);
    const keptBefore = await rowsOf(s.a.databaseUrl, s.kept);
    const target = await everything(s.b.databaseUrl);
    const players = (await everything(s.a.databaseUrl))['public.players'];

    const result = await move(args, newMap);

    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toContain('deleted shards 4-7 (8 tables) from database 0');
    expect(await rowsOf(s.a.databaseUrl, s.moved)).toEqual(Object.fromEntries(RELATIONS.map((r) => [r, []])));
    expect(await rowsOf(s.a.databaseUrl, s.kept)).toEqual(keptBefore);
    expect((await everything(s.a.databaseUrl))['public.players']).toEqual(players);
    expect(await everything(s.b.databaseUrl)).toEqual(target);
    // The append-only triggers are on again, hot and archived.
    for (const relation of ['public.table_actions', 'archive.table_actions'])
      await expect(
        sql(s.a.databaseUrl, `DELETE FROM ${relation} WHERE table_id = ANY($1::text[])`, [s.kept]),
      ).rejects.toThrow(/append-only: DELETE refused/);
    // Run again: nothing left to delete.
    const again = await move(args, newMap);
    expect(again).toMatchObject({ code: 0 });
    expect(again.out).toContain('(0 tables)');
  });
});

describe('the built command (npm run shards:move)', () => {
  it('exits 2 with the reason on stderr for a range beyond TABLE_SHARDS, before touching any database', () => {
    const run = spawnSync(
      process.execPath,
      [join(__dirname, '../dist/move-shards/main.js'), '--shards', '9-20', '--to', '1'],
      {
        env: {
          ...process.env,
          DATABASE_URLS: 'postgresql://nobody@127.0.0.1:1/none,postgresql://nobody@127.0.0.1:1/other',
          TABLE_SHARDS: '16',
        },
        encoding: 'utf8',
      },
    );
    expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 2, stdout: '' });
    expect(run.stderr).toContain(
      'shards:move: --shards "9-20": there are 16 shards (0-15, TABLE_SHARDS); nothing was changed',
    );
  });
});

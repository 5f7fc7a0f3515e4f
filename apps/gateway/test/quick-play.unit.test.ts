import { readBaseConfig, ShardedStreamsClient } from '@dominoes/platform';
import {
  TABLE_CODE_ALPHABET,
  TABLE_CODE_LENGTH,
  type CreateTableRequest,
  type ErrorCode,
  type IntentEnvelope,
  type IntentReply,
} from '@dominoes/protocol';
import { createMatch } from '@dominoes/rules';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { ApiError } from '../src/http/errors';
import { IntentService } from '../src/intents/intent.service';
import { LobbyReader } from '../src/lobby/lobby-reader';
import { QuickPlay, type OpenTable } from '../src/lobby/quick-play';
import { newTableCode, TableOpener } from '../src/lobby/table-opener';
import { GatewayMetrics } from '../src/metrics';
import { TableReader } from '../src/tables/table-reader';
import { eventually, FakeTableService, SHARDS, suiteDatabase, type SuiteDatabase } from './support';
import { TestClock } from './unit-fakes';

/**
 * Quick play (issue 12, decision 0019) and the table opener, on their real collaborators: the lobby
 * reader's search and advisory lock on a real Postgres database of this suite (tables written as the
 * table-service stores them), the intent service on the real sharded-streams client, and a stand-in
 * table-service on the streams' far side that answers each join or create as the test says.
 */
let db: SuiteDatabase;
let reader: LobbyReader;
let tables: TableReader;
let tableService: FakeTableService;
let client: ShardedStreamsClient;
let intents: IntentService;

beforeAll(async () => {
  db = await suiteDatabase('quick_play_unit');
  reader = new LobbyReader(db.shardMap);
  tables = new TableReader(db.shardMap);
  tableService = new FakeTableService(db.stores.redisPrefix, db.stores.redisUrl, SHARDS);
  await tableService.start();
  client = new ShardedStreamsClient({
    redisUrl: db.stores.redisUrl,
    prefix: db.stores.redisPrefix,
    shards: SHARDS,
    replyChannel: `${db.stores.redisPrefix}:{gateway:qp}:replies`,
    replyTimeoutMs: 2_000,
    connectionName: 'quick-play-test',
  });
  const { logger } = recordingLogger();
  intents = new IntentService(client, new GatewayMetrics(false), logger, tables);
});
// Each test's tables are its own: the ones left waiting are finished after it.
afterEach(() => db.pg.query(`update game_tables set status = 'finished' where status = 'waiting'`));
afterAll(async () => {
  await client?.close();
  await tableService?.stop();
  await tables?.close();
  await reader?.onApplicationShutdown();
  await db?.close();
});

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
let players = 0;
/** A player of its own for each test (quick play puts a player's own table first). */
const newPlayer = (name: string) => ({ id: uuid(++players), name });
let minutes = 0;

interface SeededTable {
  readonly variant?: string;
  readonly seatCount?: number;
  readonly target?: number;
  readonly seated?: number;
  readonly isPublic?: boolean;
}

/** A waiting table as the table-service stores it: its row (opened one minute after the last) and its seated players. */
async function seedTable(t: SeededTable = {}): Promise<string> {
  const id = newTableCode();
  const seated = t.seated ?? 1;
  const host = uuid(900_000 + ++minutes);
  await db.pg.query(
    `insert into game_tables (id, variant, seat_count, target, one_round, host_player_id, status, version, state, is_public, chat, seats_present, created_at, updated_at)
     values ($1, $2, $3, $4, false, $5::uuid, 'waiting', 2, '{}'::json, $6, true, $7, $8, $8)`,
    [
      id,
      t.variant ?? 'draw',
      t.seatCount ?? 2,
      t.target ?? 100,
      host,
      t.isPublic ?? true,
      seated,
      new Date(Date.UTC(2026, 0, 1) + minutes * 60_000),
    ],
  );
  for (let seat = 0; seat < seated; seat++)
    await db.pg.query(
      `insert into table_seats (table_id, seat, player_id, name) values ($1, $2, $3::uuid, $4)`,
      [id, seat, seat === 0 ? host : uuid(800_000 + minutes * 10 + seat), `P${seat}`],
    );
  return id;
}

/** What the stand-in table-service received for these tables, in order. */
const receivedFor = (ids: readonly string[]) => tableService.received.filter((e) => ids.includes(e.tableId));

const seatedAt =
  (seat: number) =>
  (e: IntentEnvelope): IntentReply => ({ ok: true, intentId: e.intentId, version: 3, seat });
const refused =
  (code: ErrorCode, message = `refused: ${code}`) =>
  (e: IntentEnvelope): IntentReply => ({ ok: false, intentId: e.intentId, code, message });

function quickRig() {
  const clock = new TestClock(9_000_000);
  const { logger, lines } = recordingLogger();
  const quick = new QuickPlay(intents, reader, clock, logger);
  const opened: CreateTableRequest[] = [];
  const open: OpenTable = async (config) => {
    opened.push(config);
    return { tableId: 'OPENEDTABLE1' };
  };
  return { clock, lines, quick, opened, open };
}

const config = { variant: 'draw', seats: 2, target: 100 } as const;

describe('QuickPlay: a seat at an open public table, or a new one (real Postgres, real Redis streams)', () => {
  it('refuses a configuration the rules refuse with their code, a 400, before searching or sending', async () => {
    const { quick, open, opened } = quickRig();
    const before = tableService.received.length;
    const error = await quick
      .play(newPlayer('Ann'), { variant: 'draw', seats: 9 }, open)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_SEAT_COUNT' });
    const rules = createMatch({ variant: 'draw', seats: 9 });
    expect((error as ApiError).message).toBe(rules.ok ? '' : rules.error.message);
    expect(opened).toEqual([]);
    expect(tableService.received.length).toBe(before);
  });

  it('with no table of the configuration waiting, opens a new public one with the defaults filled in: seat 0, created', async () => {
    const { quick, open, opened } = quickRig();
    // Tables of other configurations, a private one and a full one are not candidates.
    const others = [
      await seedTable({ variant: 'five-tile', seatCount: 2, target: 100 }),
      await seedTable({ variant: 'partnership', seatCount: 4, target: 150 }),
      await seedTable({ variant: 'partnership', seatCount: 4, isPublic: false }),
      await seedTable({ variant: 'partnership', seatCount: 4, seated: 4 }),
    ];
    const made = createMatch({ variant: 'partnership' });
    if (!made.ok) throw new Error(made.error.message);
    const { seats, target } = made.value.config;
    expect(await quick.play(newPlayer('Ann'), { variant: 'partnership' }, open)).toEqual({
      tableId: 'OPENEDTABLE1',
      seat: 0,
      created: true,
    });
    expect(opened).toEqual([{ variant: 'partnership', seats, target, public: true }]);
    expect(receivedFor(others)).toEqual([]);
  });

  it('seats the player at the oldest waiting table of the configuration with a free seat: a join of theirs, with their socket', async () => {
    const { quick, open, opened, clock } = quickRig();
    const oldest = await seedTable(config);
    const newer = await seedTable(config);
    const ann = newPlayer('Ann');
    tableService.respond = seatedAt(1);
    clock.t = 9_100_000;
    expect(await quick.play(ann, config, open, 'gw-qp:7')).toEqual({
      tableId: oldest,
      seat: 1,
      created: false,
    });
    expect(opened).toEqual([]);
    const sent = receivedFor([oldest, newer]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      tableId: oldest,
      player: ann,
      connectionId: 'gw-qp:7',
      replyTo: client.replyChannel,
      sentAt: 9_100_000,
      intent: { kind: 'join' },
    });
    expect(sent[0]!.intentId).toMatch(new RegExp(`^${ann.id}:qp-[0-9a-f]{12}$`));
  });

  it('over HTTP (no socket) the join carries no connection; each join has an id of its own', async () => {
    const { quick, open } = quickRig();
    const table = await seedTable(config);
    tableService.respond = refused('TABLE_FULL');
    await quick.play(newPlayer('Ann'), config, open);
    await quick.play(newPlayer('Ben'), config, open);
    const sent = receivedFor([table]);
    expect(sent.map((e) => e.connectionId)).toEqual([null, null]);
    expect(new Set(sent.map((e) => e.intentId)).size).toBe(2);
  });

  it.each(['TABLE_FULL', 'TABLE_CLOSED', 'NOT_ALLOWED_NOW', 'TABLE_NOT_FOUND'] as const)(
    'a join refused %s (the table moved on) tries the next table',
    async (code) => {
      const { quick, open } = quickRig();
      const first = await seedTable(config);
      const second = await seedTable(config);
      tableService.respond = (e) => (e.tableId === first ? refused(code)(e) : seatedAt(1)(e));
      expect(await quick.play(newPlayer('Ann'), config, open)).toEqual({
        tableId: second,
        seat: 1,
        created: false,
      });
      expect(receivedFor([first, second]).map((e) => e.tableId)).toEqual([first, second]);
    },
  );

  it('tries five tables at most, oldest first, then opens a new one', async () => {
    const { quick, open, opened } = quickRig();
    const five = { variant: 'draw', seats: 3, target: 150 } as const;
    const seeded: string[] = [];
    for (let i = 0; i < 6; i++) seeded.push(await seedTable({ variant: 'draw', seatCount: 3, target: 150 }));
    tableService.respond = refused('TABLE_FULL');
    expect(await quick.play(newPlayer('Ann'), five, open)).toEqual({
      tableId: 'OPENEDTABLE1',
      seat: 0,
      created: true,
    });
    expect(receivedFor(seeded).map((e) => e.tableId)).toEqual(seeded.slice(0, 5));
    expect(opened).toEqual([{ ...five, public: true }]);
  });

  it.each([
    ['NOT_SEATED', 400],
    ['INVALID_MESSAGE', 400],
    ['UNAVAILABLE', 503],
  ] as const)(
    'a join refused %s is an ApiError %i with its code and message; no other table is tried',
    async (code, status) => {
      const { quick, open, opened } = quickRig();
      const first = await seedTable({ variant: 'draw', seatCount: 4, target: 100 });
      const second = await seedTable({ variant: 'draw', seatCount: 4, target: 100 });
      tableService.respond = refused(code, 'the reason');
      const error = await quick
        .play(newPlayer('Ann'), { variant: 'draw', seats: 4, target: 100 }, open)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status, code, message: 'the reason' });
      expect(receivedFor([first, second]).map((e) => e.tableId)).toEqual([first]);
      expect(opened).toEqual([]);
    },
  );

  it("the opener's refusal (an ApiError) reaches the caller as it is", async () => {
    const { quick, lines } = quickRig();
    const tooMany = new ApiError(429, 'TOO_MANY_TABLES', 'You have too many open tables.');
    const error = await quick
      .play(newPlayer('Ann'), { variant: 'five-tile', seats: 3 }, async () => {
        throw tooMany;
      })
      .catch((e: unknown) => e);
    expect(error).toBe(tooMany);
    expect(lines.filter((l) => l.msg === 'quick play failed')).toEqual([]);
  });

  it('any other failure (the search, the lock, Postgres away) is a 503 UNAVAILABLE "try again", logged with the player and variant', async () => {
    const url = new URL(db.stores.databaseUrl);
    url.pathname = '/dominoes_test_no_such_database';
    const broken = new LobbyReader(readBaseConfig({ DATABASE_URL: url.toString() }).shardMap);
    try {
      const { logger, lines } = recordingLogger();
      const quick = new QuickPlay(intents, broken, new TestClock(), logger);
      const ann = newPlayer('Ann');
      const error = await quick
        .play(ann, config, async () => ({ tableId: 'NEVEROPENED1' }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({
        status: 503,
        code: 'UNAVAILABLE',
        message: 'Quick play is busy right now; try again.',
      });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 40,
        msg: 'quick play failed',
        player: ann.id,
        variant: 'draw',
      });
      expect(lines[0]!['err']).toBeDefined();
    } finally {
      await broken.onApplicationShutdown();
    }
  });

  it("two quick plays of one configuration run one at a time: the second waits for the first's lock and joins the table it opened", async () => {
    const { quick } = quickRig();
    const shape = { variant: 'five-tile', seats: 4, target: 100 } as const;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let openedId = '';
    // The first opens a table, stored before its reply as the table-service stores it.
    const openSlowly: OpenTable = async () => {
      await released;
      openedId = await seedTable({ variant: 'five-tile', seatCount: 4, target: 100 });
      return { tableId: openedId };
    };
    const first = quick.play(newPlayer('Ann'), shape, openSlowly);
    const waitingLocks = async () =>
      Number(
        (await db.pg.query(`select count(*) from pg_locks where locktype = 'advisory' and not granted`))
          .rows[0].count,
      );
    const grantedLocks = async () =>
      Number(
        (await db.pg.query(`select count(*) from pg_locks where locktype = 'advisory' and granted`)).rows[0]
          .count,
      );
    await eventually(async () => (await grantedLocks()) === 1, 3000, "the first's lock");
    const opened: CreateTableRequest[] = [];
    tableService.respond = seatedAt(1);
    const second = quick.play(newPlayer('Ben'), shape, async (c) => {
      opened.push(c);
      return { tableId: 'OPENEDTABLE2' };
    });
    await eventually(async () => (await waitingLocks()) === 1, 3000, 'the second waiting for the lock');
    release();
    expect(await first).toEqual({ tableId: openedId, seat: 0, created: true });
    expect(await second).toEqual({ tableId: openedId, seat: 1, created: false });
    expect(opened).toEqual([]);
  });
});

function openerRig() {
  const clock = new TestClock(8_000_000);
  const { logger, lines } = recordingLogger();
  const opener = new TableOpener(intents, clock, logger, 'https://dominoes.test');
  return { clock, lines, opener };
}

/** The codes of the create intents this player sent. */
const createsOf = (playerId: string) =>
  tableService.received.filter((e) => e.intent.kind === 'create' && e.player?.id === playerId);

describe('TableOpener: a create intent per code drawn', () => {
  it('a code is TABLE_CODE_LENGTH characters of TABLE_CODE_ALPHABET, drawn afresh each time', () => {
    const codes = Array.from({ length: 50 }, () => newTableCode());
    for (const code of codes) {
      expect(code).toHaveLength(TABLE_CODE_LENGTH);
      for (const ch of code) expect(TABLE_CODE_ALPHABET).toContain(ch);
    }
    expect(new Set(codes).size).toBe(50);
    // Every character of the alphabet can come up (not only its first ones).
    const seen = new Set(codes.join(''));
    expect(seen.size).toBeGreaterThan(TABLE_CODE_ALPHABET.length / 2);
  });

  it('opens the table: a create of the config with its code, the link to it, logged', async () => {
    const { opener, lines, clock } = openerRig();
    const ann = newPlayer('Ann');
    tableService.respond = (e) => ({ ok: true, intentId: e.intentId, version: 1, seat: 0 });
    clock.t = 8_100_000;
    const wanted: CreateTableRequest = { variant: 'draw', seats: 3, public: true };
    const made = await opener.open(ann, wanted, 'gw-op:3');
    expect(made).toEqual({ tableId: made.tableId, link: `https://dominoes.test/t/${made.tableId}` });
    const [sent, ...more] = createsOf(ann.id);
    expect(more).toEqual([]);
    expect(sent).toMatchObject({
      intentId: `${ann.id}:create:${made.tableId}`,
      tableId: made.tableId,
      player: ann,
      connectionId: 'gw-op:3',
      replyTo: client.replyChannel,
      sentAt: 8_100_000,
      intent: { kind: 'create', config: wanted },
    });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'table created',
        player: ann.id,
        tableId: made.tableId,
        variant: 'draw',
      }),
    ]);
  });

  it('over HTTP the create carries no connection', async () => {
    const { opener } = openerRig();
    const ann = newPlayer('Ann');
    tableService.respond = (e) => ({ ok: true, intentId: e.intentId, version: 1, seat: 0 });
    await opener.open(ann, { variant: 'partnership' });
    expect(createsOf(ann.id).map((e) => e.connectionId)).toEqual([null]);
  });

  it('a code taken draws another: the table is opened with the first free one', async () => {
    const { opener } = openerRig();
    const ann = newPlayer('Ann');
    let tries = 0;
    tableService.respond = (e) =>
      ++tries < 3 ? refused('TABLE_CODE_TAKEN')(e) : { ok: true, intentId: e.intentId, version: 1, seat: 0 };
    const made = await opener.open(ann, { variant: 'partnership' });
    const codes = createsOf(ann.id).map((e) => e.tableId);
    expect(codes).toHaveLength(3);
    expect(new Set(codes).size).toBe(3);
    expect(made.tableId).toBe(codes[2]);
  });

  it('five codes taken: a 503 UNAVAILABLE "try again", after exactly five creates', async () => {
    const { opener } = openerRig();
    const ann = newPlayer('Ann');
    tableService.respond = refused('TABLE_CODE_TAKEN');
    const error = await opener.open(ann, { variant: 'partnership' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 503,
      code: 'UNAVAILABLE',
      message: 'No free table code was found; try again.',
    });
    expect(createsOf(ann.id)).toHaveLength(5);
  });

  it.each([
    ['TOO_MANY_TABLES', 429],
    ['UNAVAILABLE', 503],
    ['INVALID_CONFIG', 400],
  ] as const)(
    'a create refused %s is an ApiError %i with its code and message, logged, no other code tried',
    async (code, status) => {
      const { opener, lines } = openerRig();
      const ann = newPlayer('Ann');
      tableService.respond = refused(code, 'the reason');
      const error = await opener.open(ann, { variant: 'partnership' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status, code, message: 'the reason' });
      expect(createsOf(ann.id)).toHaveLength(1);
      expect(lines).toEqual([
        expect.objectContaining({ level: 30, msg: 'table not created', player: ann.id, code }),
      ]);
    },
  );
});

import { readBaseConfig, type LobbyRow } from '@dominoes/platform';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { LobbyReader, lobbyTableOf } from '../src/lobby/lobby-reader';
import { newTableCode } from '../src/lobby/table-opener';
import { readOnlyPool } from '../src/tables/read-only-pool';
import { playersBySeat, TableReader } from '../src/tables/table-reader';
import { eventually, suiteDatabase, type SuiteDatabase } from './support';

/**
 * The gateway's readers on a real Postgres database of this suite, through libs/platform's store on
 * their read-only pools: a table's summary, chat setting, held seat and stored intent (TableReader),
 * the lobby's lists and counts and a player's own tables (LobbyReader). Rows are written as the
 * table-service writes them: the table's row (its state with each seat's connections), its seats, its log.
 */
let db: SuiteDatabase;
let tables: TableReader;
let lobby: LobbyReader;

beforeAll(async () => {
  db = await suiteDatabase('table_reader_unit');
  tables = new TableReader(db.shardMap);
  lobby = new LobbyReader(db.shardMap);
});
afterAll(async () => {
  await tables?.close();
  await lobby?.onApplicationShutdown();
  await db?.close();
});

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const me = uuid(1);
const host = uuid(2);
let minute = 0;

interface Seed {
  readonly status?: string;
  readonly variant?: string;
  readonly isPublic?: boolean;
  readonly seatCount?: number;
  readonly oneRound?: boolean;
  readonly seats?: readonly { seat: number; player: string; name: string; connections?: string[] }[];
  readonly seatsPresent?: number;
  readonly chat?: boolean;
  readonly version?: number;
}

/** Table `id` as the table-service stores it (opened one minute after the previous one); returns its id. */
async function seed(s: Seed = {}, id = newTableCode()): Promise<string> {
  const seats = s.seats ?? [{ seat: 0, player: host, name: 'Hal' }];
  const seatCount = s.seatCount ?? 4;
  const state = {
    seats: Array.from({ length: seatCount }, (_, i) => {
      const seat = seats.find((x) => x.seat === i);
      return seat ? { playerId: seat.player, name: seat.name, connections: seat.connections ?? [] } : null;
    }),
  };
  minute += 1;
  await db.pg.query(
    `insert into game_tables (id, variant, seat_count, target, one_round, host_player_id, status, version, state, is_public, chat, seats_present, created_at, updated_at)
     values ($1, $2, $3, 150, $4, $5::uuid, $6, $7, $8::json, $9, $10, $11, $12, $12)`,
    [
      id,
      s.variant ?? 'partnership',
      seatCount,
      s.oneRound ?? false,
      host,
      s.status ?? 'waiting',
      s.version ?? 3,
      JSON.stringify(state),
      s.isPublic ?? true,
      s.chat ?? true,
      s.seatsPresent ?? seats.length,
      new Date(Date.UTC(2026, 2, 1) + minute * 60_000 + 0.6),
    ],
  );
  for (const seat of seats)
    await db.pg.query(
      'insert into table_seats (table_id, seat, player_id, name) values ($1, $2, $3::uuid, $4)',
      [id, seat.seat, seat.player, seat.name],
    );
  return id;
}

describe('playersBySeat', () => {
  it("each seat's name or null, a stored seat out of range passed over", () => {
    const seats = [
      { seat: 2, name: 'Cy' },
      { seat: -1, name: 'Neg' },
      { seat: 3, name: 'Out' },
      { seat: 0, name: 'Ada' },
    ];
    expect(playersBySeat(3, seats)).toEqual(['Ada', null, 'Cy']);
    expect(playersBySeat(2, [])).toEqual([null, null]);
  });
});

describe('readOnlyPool', () => {
  it('sessions are read-only and give a statement up after 3 s', async () => {
    const pool = readOnlyPool(db.stores.databaseUrl);
    try {
      expect(await pool.$queryRawUnsafe('show default_transaction_read_only')).toEqual([
        { default_transaction_read_only: 'on' },
      ]);
      expect(await pool.$queryRawUnsafe('show statement_timeout')).toEqual([{ statement_timeout: '3s' }]);
      await expect(pool.$executeRawUnsafe(`update game_tables set version = version + 1`)).rejects.toThrow(
        /read-only/,
      );
    } finally {
      await pool.$disconnect();
    }
  });
});

describe('TableReader (real Postgres)', () => {
  it("a table's summary: its settings, status and the name on each seat", async () => {
    const id = await seed({
      variant: 'draw',
      seatCount: 3,
      oneRound: true,
      status: 'playing',
      seats: [
        { seat: 0, player: host, name: 'Hal' },
        { seat: 2, player: me, name: 'Mia' },
      ],
    });
    expect(await tables.summary(id)).toEqual({
      tableId: id,
      variant: 'draw',
      seatCount: 3,
      target: 150,
      oneRound: true,
      status: 'playing',
      players: ['Hal', null, 'Mia'],
    });
  });

  it('an empty table has every seat free; a status the protocol does not know reads as waiting', async () => {
    const id = await seed({ status: 'archiving', seats: [], seatsPresent: 0 });
    expect(await tables.summary(id)).toMatchObject({ status: 'waiting', players: [null, null, null, null] });
    const finished = await seed({ status: 'finished' });
    expect(await tables.summary(finished)).toMatchObject({ status: 'finished' });
  });

  it('no table, or a malformed code (never asked of Postgres): null', async () => {
    expect(await tables.summary(newTableCode())).toBeNull();
    const id = await seed({}, 'lowercase-id');
    expect(await tables.summary(id)).toBeNull();
    expect(await tables.summary('')).toBeNull();
  });

  it('chatEnabled, seatHeld and storedIntent read the table as last stored', async () => {
    const id = await seed({
      chat: false,
      version: 17,
      seats: [
        { seat: 0, player: host, name: 'Hal' },
        { seat: 1, player: me, name: 'Mia', connections: ['gw-r:4'] },
      ],
    });
    await db.pg.query(
      `insert into table_actions (table_id, seq, kind, seat, payload, intent_id) values ($1, 1, 'seat-taken', 1, '{}', 'int-1')`,
      [id],
    );
    expect(await tables.chatEnabled(id)).toBe(false);
    expect(await tables.chatEnabled(await seed({ chat: true }))).toBe(true);
    expect(await tables.chatEnabled(newTableCode())).toBeNull();
    expect(await tables.seatHeld(id, 1, me, 'gw-r:4')).toBe(true);
    expect(await tables.seatHeld(id, 1, me, 'gw-r:5')).toBe(false);
    expect(await tables.seatHeld(id, 0, me, 'gw-r:4')).toBe(false);
    expect(await tables.seatHeld(id, 1, host, 'gw-r:4')).toBe(false);
    expect(await tables.storedIntent(id, 'int-1', me)).toEqual({ version: 17, seat: 1 });
    expect(await tables.storedIntent(id, 'int-1', null)).toEqual({ version: 17, seat: null });
    expect(await tables.storedIntent(id, 'int-2', me)).toBeNull();
  });

  it('one database: databaseCount 1, database 0 answers, no database 1', async () => {
    expect(tables.databaseCount).toBe(1);
    expect(await tables.pingDatabase(0)).toBe(true);
    expect(await tables.pingDatabase(1)).toBe(false);
  });

  it('a database that does not answer pings false', async () => {
    const url = new URL(db.stores.databaseUrl);
    url.pathname = '/dominoes_test_no_such_database';
    const broken = new TableReader(
      readBaseConfig({ DATABASE_URLS: `${db.stores.databaseUrl},${url}` }).shardMap,
    );
    try {
      expect(broken.databaseCount).toBe(2);
      expect(await broken.pingDatabase(0)).toBe(true);
      expect(await broken.pingDatabase(1)).toBe(false);
    } finally {
      await broken.close();
    }
  });
});

const row = (over: Partial<LobbyRow> = {}): LobbyRow => ({
  id: 'LOBBYTABLE01',
  variant: 'draw',
  seatCount: 3,
  target: 100,
  oneRound: false,
  status: 'waiting',
  isPublic: true,
  version: 4,
  openedAt: 1_700_000_000_000.6,
  host: 'Hal',
  seats: [
    { seat: 0, name: 'Hal' },
    { seat: 2, name: 'Cy' },
  ],
  ...over,
});

describe('lobbyTableOf', () => {
  it("a lobby row as the lobby frame's table: players by seat, the opening time in whole ms", () => {
    expect(lobbyTableOf(row())).toEqual({
      tableId: 'LOBBYTABLE01',
      variant: 'draw',
      seatCount: 3,
      target: 100,
      oneRound: false,
      status: 'waiting',
      players: ['Hal', null, 'Cy'],
      host: 'Hal',
      openedAt: 1_700_000_000_001,
      version: 4,
      public: true,
    });
    expect(
      lobbyTableOf(row({ status: 'playing', isPublic: false, host: null, openedAt: 5.4 })),
    ).toMatchObject({
      status: 'playing',
      public: false,
      host: null,
      openedAt: 5,
    });
  });

  it('a row that is not open any more, or that the protocol cannot read, is left out', () => {
    expect(lobbyTableOf(row({ status: 'finished' }))).toBeNull();
    expect(lobbyTableOf(row({ status: 'closed' }))).toBeNull();
    expect(lobbyTableOf(row({ status: 'archiving' }))).toBeNull();
    expect(lobbyTableOf(row({ variant: 'mexican-train' }))).toBeNull();
  });
});

describe('LobbyReader (real Postgres)', () => {
  it("a snapshot: the public open tables (waiting oldest first, then playing), their counts, and the player's own tables", async () => {
    await db.pg.query(`update game_tables set status = 'finished'`);
    const waiting1 = await seed({ status: 'waiting' });
    const playing1 = await seed({ status: 'playing', seats: [{ seat: 0, player: host, name: 'Hal' }] });
    const waiting2 = await seed({ status: 'waiting', variant: 'draw', seatCount: 2 });
    const playing2 = await seed({ status: 'playing' });
    await seed({ status: 'waiting', seatsPresent: 0 }); // everyone away: not listed, not counted
    await seed({ status: 'waiting', isPublic: false }); // private: never listed
    await seed({ status: 'waiting', variant: 'retired-variant' }); // a variant the protocol cannot read: left out
    const mine = await seed({
      status: 'waiting',
      isPublic: false,
      seats: [
        { seat: 0, player: host, name: 'Hal' },
        { seat: 3, player: me, name: 'Mia' },
      ],
    });
    await seed({ status: 'finished', seats: [{ seat: 0, player: me, name: 'Mia' }] }); // over: not mine any more
    const snapshot = await lobby.snapshot(me);
    expect(snapshot.tables.map((t) => t.tableId)).toEqual([waiting1, waiting2, playing2, playing1]);
    // The counts are Postgres's: the unreadable table is counted there.
    expect(snapshot.counts).toEqual({ waiting: 3, playing: 2 });
    expect(snapshot.yours.map((t) => t.tableId)).toEqual([mine]);
    expect(snapshot.yours[0]).toMatchObject({
      public: false,
      status: 'waiting',
      host: 'Hal',
      players: ['Hal', null, null, 'Mia'],
      target: 150,
      version: 3,
    });
    expect(snapshot.tables[1]).toMatchObject({
      variant: 'draw',
      seatCount: 2,
      players: ['Hal', null],
      public: true,
    });
    expect(await lobby.snapshot(uuid(99))).toMatchObject({ yours: [] });
  });

  it('a database that does not answer is left out, with one warning per database every 10 s; the home database still answers', async () => {
    const url = new URL(db.stores.databaseUrl);
    url.pathname = '/dominoes_test_no_such_database';
    const split = readBaseConfig({ DATABASE_URLS: `${db.stores.databaseUrl},${url}` }).shardMap;
    const { logger, lines } = recordingLogger();
    const reader = new LobbyReader(split, logger);
    const quiet = new LobbyReader(split);
    const now = jest.spyOn(Date, 'now');
    try {
      await db.pg.query(`update game_tables set status = 'finished'`);
      const listed = await seed({ status: 'waiting' });
      now.mockReturnValue(1_000_000_000);
      const first = await reader.snapshot(me);
      expect(first.tables.map((t) => t.tableId)).toEqual([listed]);
      expect(first.counts).toEqual({ waiting: 1, playing: 0 });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 40,
        database: 1,
        msg: 'a database did not answer: its tables are left out of the lobby and quick play',
      });
      // The error's message alone (not its name and stack).
      expect(String(lines[0]!['err'])).toMatch(/dominoes_test_no_such_database|does not exist/);
      expect(String(lines[0]!['err'])).not.toMatch(/^\w*Error\b/);
      now.mockReturnValue(1_000_009_999);
      await reader.snapshot(me);
      expect(lines).toHaveLength(1);
      now.mockReturnValue(1_000_010_000);
      await reader.snapshot(me);
      expect(lines).toHaveLength(2);
      // No logger: left out all the same, nothing thrown.
      expect((await quiet.snapshot(me)).tables.map((t) => t.tableId)).toEqual([listed]);
    } finally {
      now.mockRestore();
      await reader.onApplicationShutdown();
      await quiet.onApplicationShutdown();
    }
  });

  it("closing a reader ends its pool's sessions on Postgres; closing it twice does not throw", async () => {
    // The readers' sessions are told apart by an application name of their own.
    const named = (name: string) => {
      const url = new URL(db.stores.databaseUrl);
      url.searchParams.set('application_name', name);
      return readBaseConfig({ DATABASE_URL: url.toString() }).shardMap;
    };
    const sessions = async (name: string) =>
      Number(
        (await db.pg.query('select count(*) from pg_stat_activity where application_name = $1', [name]))
          .rows[0].count,
      );
    const reader = new LobbyReader(named('lobby-reader-close'));
    await reader.snapshot(me);
    expect(await sessions('lobby-reader-close')).toBeGreaterThan(0);
    await reader.onApplicationShutdown();
    await eventually(
      async () => (await sessions('lobby-reader-close')) === 0,
      3000,
      "the lobby reader's sessions",
    );
    await expect(reader.onApplicationShutdown()).resolves.toBeUndefined();
    const again = new TableReader(named('table-reader-close'));
    await again.summary(await seed());
    expect(await sessions('table-reader-close')).toBeGreaterThan(0);
    await again.close();
    await eventually(
      async () => (await sessions('table-reader-close')) === 0,
      3000,
      "the table reader's sessions",
    );
    await expect(again.close()).resolves.toBeUndefined();
  });
});

import {
  CreateTableRequestSchema,
  decodeLobbyUpdate,
  LOBBY_MAX_TABLES,
  LobbyFrameSchema,
  parseClientFrame,
  QuickPlayRequestSchema,
  ServerMessageSchema,
} from '@dominoes/protocol';
import { lobbyTable } from './support/lobby-table';

/** Whether a lobbyUpdate frame of table ABCDEFGHJKMN at version 3 with `table` passes the server schema. */
const passesAsUpdate = (table: unknown) =>
  ServerMessageSchema.safeParse({ type: 'lobbyUpdate', tableId: 'ABCDEFGHJKMN', version: 3, table }).success;

describe('the lobby frames (issue 12, decision 0019)', () => {
  it('a lobby subscription is {type:"lobby", id, on}: anything else is INVALID_MESSAGE with the reason, never a crash', () => {
    expect(parseClientFrame('{"type":"lobby","id":"a1","on":true}')).toMatchObject({ ok: true });
    const cases: [string, RegExp][] = [
      ['{"type":"lobby","id":"a1"}', /on: missing/],
      ['{"type":"lobby","id":"a1","on":"yes"}', /on:/],
      ['{"type":"lobby","id":"a1","on":true,"limit":100000}', /unknown field 'limit'/],
      ['{"type":"lobby","on":true}', /id: missing/],
      ['{"type":"lobby","id":"no spaces","on":true}', /id:/],
    ];
    for (const [raw, reason] of cases) {
      const parsed = parseClientFrame(raw);
      expect(parsed).toMatchObject({ ok: false, error: { code: 'INVALID_MESSAGE' } });
      if (!parsed.ok) expect(parsed.error.message).toMatch(reason);
    }
  });

  it('the whole lobby is a server frame of at most LOBBY_MAX_TABLES tables: a bigger one is not a valid frame', () => {
    const frame = (n: number) => ({
      type: 'lobby',
      tables: Array.from({ length: n }, () => lobbyTable()),
      counts: { waiting: n, playing: 0 },
      yours: [],
      serverTime: 1,
    });
    expect(ServerMessageSchema.safeParse(frame(LOBBY_MAX_TABLES)).success).toBe(true);
    expect(LobbyFrameSchema.safeParse(frame(LOBBY_MAX_TABLES + 1)).success).toBe(false);
  });

  it('a lobby update is a table or null (it left the lobby); a frame of it passes the server schema; only waiting and playing tables can be listed', () => {
    expect(passesAsUpdate(null)).toBe(true);
    expect(passesAsUpdate(lobbyTable())).toBe(true);
    expect(passesAsUpdate(lobbyTable({ status: 'finished' as never }))).toBe(false);
  });

  it('decodeLobbyUpdate reads what the table-service publishes and drops anything else (null)', () => {
    const update = { tableId: 'ABCDEFGHJKMN', version: 4, table: lobbyTable() };
    expect(decodeLobbyUpdate(JSON.stringify(update))).toEqual(update);
    expect(decodeLobbyUpdate('not json')).toBeNull();
    expect(decodeLobbyUpdate('{"tableId":"short","version":1,"table":null}')).toBeNull();
    expect(
      decodeLobbyUpdate(JSON.stringify({ ...update, table: { ...lobbyTable(), players: 'x' } })),
    ).toBeNull();
  });

  it('opening a table: public is true or false, private when left out (as before)', () => {
    expect(CreateTableRequestSchema.parse({ variant: 'draw' }).public).toBeUndefined();
    expect(CreateTableRequestSchema.parse({ variant: 'draw', public: true }).public).toBe(true);
    expect(CreateTableRequestSchema.safeParse({ variant: 'draw', public: 'yes' }).success).toBe(false);
  });

  it('quick play takes a rule set, and optionally a target and seats: nothing else', () => {
    expect(QuickPlayRequestSchema.safeParse({ variant: 'partnership', target: 150 }).success).toBe(true);
    expect(QuickPlayRequestSchema.safeParse({}).success).toBe(false);
    expect(QuickPlayRequestSchema.safeParse({ variant: 'chess' }).success).toBe(false);
    expect(QuickPlayRequestSchema.safeParse({ variant: 'draw', public: false }).success).toBe(false);
    expect(QuickPlayRequestSchema.safeParse({ variant: 'draw', seats: 2.5 }).success).toBe(false);
  });
});

import Redis from 'ioredis';
import { seatView } from '@dominoes/rules';
import { decodeLobbyUpdate, type LobbyUpdate } from '@dominoes/protocol';
import { RedisLobbyPublisher } from '../src/table/lobby-feed';
import { envelopes, startEngineHarness, type EngineHarness } from './support/engine-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The lobby channel as the gateways read it, on real Postgres and Redis (issue 12, decision 0019): a
 * public table's update comes only after its change is stored, with the stored version; its moves
 * publish nothing; a private table publishes nothing at all.
 */
describe('lobby updates from the engine, on real Postgres and Redis', () => {
  let harness: EngineHarness;
  let subscriber: Redis;
  /** Each update with the table's version in Postgres when it arrived. */
  const received: { update: LobbyUpdate; stored: Promise<number> }[] = [];
  const versionInPostgres = async (id: string) =>
    Number(
      (
        await harness.prisma.$queryRawUnsafe<{ version: bigint }[]>(
          'select version from game_tables where id = $1',
          id,
        )
      )[0]!.version,
    );

  beforeAll(async () => {
    harness = await startEngineHarness('lobby_publish');
    subscriber = new Redis(harness.stores.redisUrl);
    await subscriber.subscribe(harness.names.lobbyChannel);
    subscriber.on('message', (_channel: string, message: string) => {
      const update = decodeLobbyUpdate(message);
      if (!update) throw new Error(`not a lobby update: ${message}`);
      received.push({ update, stored: versionInPostgres(update.tableId) });
    });
  });
  afterAll(async () => {
    subscriber?.disconnect();
    await harness?.dispose();
  });

  it('a public table: one update when opened and one when its last seat is taken and it starts, each of a version already stored; twenty moves publish nothing more; a private table, opened, filled and played, publishes nothing', async () => {
    const engine = harness.engine({ lobby: new RedisLobbyPublisher(harness.redis, harness.names) });
    const play = async (tableId: string, isPublic: boolean) => {
      const intent = envelopes(tableId, `${tableId}-`);
      const config = { variant: 'draw' as const, seats: 2, ...(isPublic ? { public: true } : {}) };
      expect(await engine.handle(intent(0, { kind: 'create', config }))).toMatchObject({ ok: true });
      expect(await engine.handle(intent(1, { kind: 'join' }))).toMatchObject({ ok: true, seat: 1 });
      for (let moves = 0; moves < 20; moves++) {
        const table = engine.cachedTable(tableId)!;
        if (table.status !== 'playing' || !table.match) break;
        const turn = seatView(table.match, 0).turn;
        if (turn === null) break;
        const action = seatView(table.match, turn).legal[0]!;
        expect(await engine.handle(intent(turn, { kind: 'action', action }))).toMatchObject({ ok: true });
      }
      return versionInPostgres(tableId);
    };
    const privateVersion = await play('QPRVTABCDEFG', false);
    const publicVersion = await play('QPUBTABCDEFG', true);
    expect(publicVersion).toBeGreaterThan(10);
    expect(privateVersion).toBeGreaterThan(10);
    await sleep(500);
    expect(received.filter((r) => r.update.tableId === 'QPRVTABCDEFG')).toEqual([]);
    const updates = received.filter((r) => r.update.tableId === 'QPUBTABCDEFG');
    expect(updates.map((r) => r.update.table?.status)).toEqual(['waiting', 'playing']);
    for (const { update, stored } of updates) {
      expect(update.table!.version).toBe(update.version);
      expect(await stored).toBeGreaterThanOrEqual(update.version);
    }
    expect(updates[1]!.update.table).toMatchObject({ players: ['P0', 'P1'], host: 'P0', public: true });
  });
});

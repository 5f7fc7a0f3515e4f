import Redis from 'ioredis';
import { seatView } from '@dominoes/rules';
import { decodeLobbyUpdate, type LobbyUpdate } from '@dominoes/protocol';
import { RedisLobbyPublisher } from '../src/table/lobby-feed';
import { envelopes } from './support/engine-harness';
import { engineSuite } from './support/engine-suite';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The lobby channel as the gateways read it, on real Postgres and Redis (issue 12, decision 0019): a
 * public table's update comes only after its change is stored, with the stored version; its moves
 * publish nothing; a private table publishes nothing at all.
 */
describe('lobby updates from the engine, on real Postgres and Redis', () => {
  let subscriber: Redis;
  const suite = engineSuite('lobby_publish');
  /** Each update with the table's version in Postgres when it arrived. */
  const received: { update: LobbyUpdate; stored: Promise<number> }[] = [];

  beforeAll(async () => {
    subscriber = new Redis(suite.harness.stores.redisUrl);
    await subscriber.subscribe(suite.harness.names.lobbyChannel);
    subscriber.on('message', (_channel: string, message: string) => {
      const update = decodeLobbyUpdate(message);
      if (!update) throw new Error(`not a lobby update: ${message}`);
      received.push({ update, stored: suite.harness.storedVersion(update.tableId) });
    });
  });
  afterAll(async () => {
    subscriber?.disconnect();
  });

  it('a public table: one update when opened and one when its last seat is taken and it starts, each of a version already stored; twenty moves publish nothing more; a private table, opened, filled and played, publishes nothing', async () => {
    const engine = suite.harness.engine({
      lobby: new RedisLobbyPublisher(suite.harness.redis, suite.harness.names),
    });
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
      return suite.harness.storedVersion(tableId);
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

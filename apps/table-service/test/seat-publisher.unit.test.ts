import { randomBytes } from 'node:crypto';
import { createRedis, type Redis } from '@dominoes/platform';
import { redisNames, type SeatEvent } from '@dominoes/protocol';
import { openTable, decide } from '../src/table/table-policy';
import { seatMessages, tableView } from '../src/table/table-views';
import { RedisSeatPublisher } from '../src/table/seat-publisher';
import { watchSeatChannels } from './support/seat-channels';
import { createSeededRng, RULE_DURATIONS } from '@dominoes/rules';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A two-seat table with both seats taken: `messageOf(seat)`, the message of `seat` at its version, and
 * `eventOf(seat)`, the seat event a gateway reads of it (its view as tableView makes it).
 */
function seatedTable(id: string) {
  const host = { id: '00000000-0000-4000-8000-000000000001', name: 'host' };
  const opened = openTable(id, host, { variant: 'draw', seats: 2, oneRound: true }, null, {
    now: 0,
    waitingTableTtlMs: 60_000,
  });
  if (!opened.ok) throw new Error(opened.message);
  const joined = decide(
    opened.table,
    {
      intentId: 'join',
      tableId: id,
      player: { id: '00000000-0000-4000-8000-000000000002', name: 'guest' },
      connectionId: null,
      replyTo: null,
      sentAt: 0,
      intent: { kind: 'join' },
    },
    { now: 0, rng: createSeededRng(1), durations: RULE_DURATIONS },
  );
  if (!joined.ok) throw new Error(joined.message);
  const table = joined.table;
  const cause = { intentId: 'join', sentAt: 5 };
  return {
    messageOf: (seat: number) => seatMessages(table, [seat], 0, cause)[0]!,
    eventOf: (seat: number): SeatEvent => ({
      tableId: id,
      seat,
      version: table.version,
      view: tableView(table, seat),
      cause,
    }),
  };
}

/** The seats' views of a stored change on their Redis channels (what the gateways subscribe to). */
describe('RedisSeatPublisher on real Redis', () => {
  let redis: Redis;
  const names = redisNames(`test_seat_pub_${randomBytes(4).toString('hex')}`);
  beforeAll(async () => {
    redis = createRedis(REDIS_URL, 'seat-publisher-test');
    await redis.ping();
  });
  afterAll(() => redis.disconnect());

  it("publishes each seat's event on that seat's channel of its table, and nothing on the others", async () => {
    const { messageOf, eventOf } = seatedTable('PUB001');
    const channels = await watchSeatChannels(REDIS_URL, names, ['PUB001', 'PUB002'], 3);
    try {
      await new RedisSeatPublisher(redis, names).publish([messageOf(1), messageOf(0)]);
      await channels.settle();
      const got = channels.take();
      expect(got.map((e) => [e.tableId, e.seat])).toEqual([
        ['PUB001', 1],
        ['PUB001', 0],
      ]);
      expect(got[0]).toEqual(eventOf(1));
      expect(got[1]!.view.you.seat).toBe(0);
    } finally {
      channels.close();
    }
  });

  it('a publish that fails (the connection is closed) rejects with its error, so the engine publishes the views again', async () => {
    const closed = createRedis(REDIS_URL, 'seat-publisher-closed-test', { maxRetriesPerRequest: 0 });
    await closed.ping();
    closed.disconnect();
    const message = seatedTable('SEATPUBX').messageOf(0);
    await expect(new RedisSeatPublisher(closed, names).publish([message])).rejects.toThrow(
      /Connection is closed/,
    );
  });
});

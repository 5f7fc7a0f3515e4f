import { randomBytes } from 'node:crypto';
import { createRedis, type Redis } from '@dominoes/platform';
import { redisNames, SeatEventReader, type SeatEvent } from '@dominoes/protocol';
import { openTable, decide } from '../src/table/table-policy';
import { seatMessages, tableView } from '../src/table/table-views';
import { RedisSeatPublisher } from '../src/table/seat-publisher';
import { watchSeatChannels } from './support/seat-channels';
import { createSeededRng, RULE_DURATIONS } from '@dominoes/rules';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const waitFor = async (done: () => boolean, ms = 2000) => {
  for (const end = Date.now() + ms; !done(); await new Promise((r) => setTimeout(r, 10)))
    if (Date.now() > end) throw new Error('nothing published');
};

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

/** The seats' views of a stored change on their table's Redis channel (what the gateways subscribe to). */
describe('RedisSeatPublisher on real Redis', () => {
  let redis: Redis;
  const names = redisNames(`test_seat_pub_${randomBytes(4).toString('hex')}`);
  beforeAll(async () => {
    redis = createRedis(REDIS_URL, 'seat-publisher-test');
    await redis.ping();
  });
  afterAll(() => redis.disconnect());

  it("publishes a change's seat messages as ONE message on its table's views channel, each seat's event in order, and nothing on another table's (decision 0037)", async () => {
    const { messageOf, eventOf } = seatedTable('PUB001');
    const raw = createRedis(REDIS_URL, 'seat-publisher-raw-test');
    const got: [string, string][] = [];
    raw.on('message', (channel: string, text: string) => got.push([channel, text]));
    await raw.subscribe(names.viewsChannel('PUB001'), names.viewsChannel('PUB002'));
    try {
      await new RedisSeatPublisher(redis, names).publish([messageOf(1), messageOf(0)]);
      await waitFor(() => got.length > 0);
      await new Promise((r) => setTimeout(r, 100));
      expect(got.map(([channel]) => channel)).toEqual([names.viewsChannel('PUB001')]);
      const events = new SeatEventReader().readAll(got[0]![1]);
      expect(events.map((e) => [e.tableId, e.seat])).toEqual([
        ['PUB001', 1],
        ['PUB001', 0],
      ]);
      expect(events[0]).toEqual(eventOf(1));
      expect(events[1]).toEqual(eventOf(0));
    } finally {
      raw.disconnect();
    }
  });

  it("a batch of two tables' messages is one message on each table's channel", async () => {
    const [a, b] = [seatedTable('PUB003'), seatedTable('PUB004')];
    const channels = await watchSeatChannels(REDIS_URL, names, ['PUB003', 'PUB004']);
    try {
      await new RedisSeatPublisher(redis, names).publish([a.messageOf(0), b.messageOf(1), a.messageOf(1)]);
      await channels.settle();
      const got = channels.take().map((e) => [e.tableId, e.seat]);
      expect(got.filter(([t]) => t === 'PUB003')).toEqual([
        ['PUB003', 0],
        ['PUB003', 1],
      ]);
      expect(got.filter(([t]) => t === 'PUB004')).toEqual([['PUB004', 1]]);
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

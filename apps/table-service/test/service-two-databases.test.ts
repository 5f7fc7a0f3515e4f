import { createLogger, ShardedStreamsClient } from '@dominoes/platform';
import { intentIds, type IntentEnvelope } from '@dominoes/protocol';
import {
  createTwoDatabases,
  tableCodeIn,
  type TwoDatabases,
} from '../../../libs/platform/test/two-databases';
import { readConfig } from '../src/config';
import { startTableService, type TableServiceApp } from '../src/table-app';

/*
 * The table-service started as main.ts starts it with DATABASE_URLS over two real databases (issue
 * 13, decision 0027): its StoresModule routes each table to its shard's database, and after a
 * restart each table is read back from there.
 */
describe('table-service with DATABASE_URLS over two databases', () => {
  let two: TwoDatabases;
  let client: ShardedStreamsClient;
  const host = { id: '00000000-0000-4000-8000-000000000001', name: 'Hana' };
  const guest = { id: '00000000-0000-4000-8000-000000000002', name: 'Gus' };
  const start = (env: Record<string, string> = {}): Promise<TableServiceApp> =>
    startTableService(
      readConfig({
        DATABASE_URLS: two.databaseUrls,
        REDIS_URL: two.stores[0].redisUrl,
        REDIS_PREFIX: two.stores[0].redisPrefix,
        TABLE_SHARDS: '16',
        PORT: '0',
        ...env,
      }),
      {
        logger: createLogger('table-service-test', process.env.TEST_LOG_LEVEL ?? 'silent'),
        defaultMetrics: false,
      },
    );
  const envelope = (
    tableId: string,
    player: { id: string; name: string },
    intent: IntentEnvelope['intent'],
    intentId: string,
  ): IntentEnvelope => ({
    intentId,
    tableId,
    player,
    connectionId: null,
    replyTo: client.replyChannel,
    sentAt: Date.now(),
    intent,
  });
  const statusIn = async (database: number, tableId: string) => {
    const rows = await two
      .client(database)
      .$queryRawUnsafe<{ status: string; seats: number }[]>(
        'select status, (select count(*)::int from table_seats s where s.table_id = t.id) as seats from game_tables t where id = $1',
        tableId,
      );
    return rows[0] ?? null;
  };

  beforeAll(async () => {
    two = await createTwoDatabases('split_service');
    client = new ShardedStreamsClient({
      redisUrl: two.stores[0].redisUrl,
      prefix: two.stores[0].redisPrefix,
      shards: 16,
      replyChannel: `${two.stores[0].redisPrefix}:test-replies`,
      replyTimeoutMs: 10_000,
      connectionName: 'split-service-test',
    });
    await client.connect();
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await two?.dispose();
  });

  it('opens tables in the database of their shard, is ready while both answer, and after a restart loads each table from its own database', async () => {
    const ids = [tableCodeIn(two, 0, 'service'), tableCodeIn(two, 1, 'service')];
    let service = await start();
    try {
      const ready = await fetch(`http://127.0.0.1:${service.port}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok', postgres: 'up', redis: 'up' });
      for (const id of ids) {
        const reply = await client.request(
          envelope(
            id,
            host,
            { kind: 'create', config: { variant: 'draw', seats: 2 } },
            intentIds.create(host.id, id),
          ),
        );
        expect(reply).toMatchObject({ ok: true, seat: 0 });
      }
      expect(await statusIn(0, ids[0]!)).toEqual({ status: 'waiting', seats: 1 });
      expect(await statusIn(1, ids[0]!)).toBeNull();
      expect(await statusIn(1, ids[1]!)).toEqual({ status: 'waiting', seats: 1 });
      expect(await statusIn(0, ids[1]!)).toBeNull();
    } finally {
      await service.shutdown();
    }

    // A new process: nothing cached; the joins load each table from its own database.
    service = await start();
    try {
      for (const id of ids) {
        const reply = await client.request(envelope(id, guest, { kind: 'join' }, `${guest.id}:join:${id}`));
        expect(reply).toMatchObject({ ok: true, seat: 1 });
      }
      expect(await statusIn(0, ids[0]!)).toEqual({ status: 'playing', seats: 2 });
      expect(await statusIn(1, ids[1]!)).toEqual({ status: 'playing', seats: 2 });
    } finally {
      await service.shutdown();
    }
  }, 60_000);

  it('is not ready while one of its databases does not answer', async () => {
    const missing = new URL(two.stores[1].databaseUrl);
    missing.pathname = `${missing.pathname}_missing`;
    const service = await start({ DATABASE_URLS: `${two.stores[0].databaseUrl},${missing.toString()}` });
    try {
      const ready = await fetch(`http://127.0.0.1:${service.port}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ postgres: 'down', redis: 'up' });
    } finally {
      await service.shutdown();
    }
  }, 30_000);
});

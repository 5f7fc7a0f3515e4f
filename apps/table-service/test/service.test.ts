import { createLogger } from '@dominoes/platform';
import { createTestStores, type TestStores } from '../../../libs/platform/src/test-stores';
import { readConfig } from '../src/config';
import { startTableService, type TableServiceApp } from '../src/table-app';

/** The table-service started as main.ts starts it (its module tree, its port, its transport), in-process. */
describe('table-service start-up, health, metrics and shutdown', () => {
  let stores: TestStores;
  let service: TableServiceApp;
  const base = () => `http://127.0.0.1:${service.port}`;

  beforeAll(async () => {
    stores = await createTestStores('table_service_start');
    const config = readConfig({
      DATABASE_URL: stores.databaseUrl,
      REDIS_URL: stores.redisUrl,
      REDIS_PREFIX: stores.redisPrefix,
      TABLE_SHARDS: '4',
      PORT: '0',
    });
    service = await startTableService(config, {
      logger: createLogger('table-service-test', process.env.TEST_LOG_LEVEL ?? 'silent'),
      defaultMetrics: false,
    });
  }, 30_000);

  afterAll(async () => {
    await service?.shutdown();
    await stores?.dispose();
  });

  it('serves /health/live, and /health/ready while Postgres and Redis answer', async () => {
    expect((await fetch(`${base()}/health/live`)).status).toBe(200);
    const ready = await fetch(`${base()}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', postgres: 'up', redis: 'up' });
  });

  it('serves its metrics on its port, with the shards it took (the transport keeps OwnedShards)', async () => {
    const scrape = async () => (await fetch(`${base()}/metrics`)).text();
    const deadline = Date.now() + 10_000;
    while (!(await scrape()).includes('dominoes_owned_shards 4') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const text = await scrape();
    expect(text).toContain('dominoes_owned_shards 4');
    expect(text).toMatch(/dominoes_active_tables\{state="waiting"\} 0/);
    expect(text).toContain('# TYPE dominoes_intents_total counter');
  });

  it('shuts down once, however often asked, and closes its port', async () => {
    const first = service.shutdown();
    expect(service.shutdown()).toBe(first);
    await first;
    await expect(fetch(`${base()}/health/live`)).rejects.toThrow();
  });
});

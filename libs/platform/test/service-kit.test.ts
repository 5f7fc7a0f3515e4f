import { ConfigError, envInt, envList, envOptionalInt, readBaseConfig, serviceConfig } from '../src/config';
import { readiness } from '../src/service/health';
import { ServiceLifecycle } from '../src/service/lifecycle';
import { ServiceMetrics } from '../src/service/metrics';

const readDemo = serviceConfig(
  { PORT: envInt(8080, 0, 65535), LIMIT: envOptionalInt(1, 10), PEERS: envList() },
  (env, base) => ({ port: env.PORT, limit: env.LIMIT ?? base.tableShards, peers: env.PEERS }),
);

describe('serviceConfig: one zod schema per service, parsed once', () => {
  it('an unset or empty variable takes its default; the base variables come with every service', () => {
    expect(readDemo({ PORT: '', PEERS: ' a, ,b ' })).toMatchObject({
      port: 8080,
      limit: 16,
      peers: ['a', 'b'],
      redisUrl: 'redis://127.0.0.1:6379',
      shutdownGraceMs: 10_000,
      durations: { turnMs: 45_000, disconnectedTurnMs: 5_000, breakMs: 30_000 },
    });
    expect(readDemo({ PORT: '0', LIMIT: '3', TABLE_SHARDS: '4' })).toMatchObject({
      port: 0,
      limit: 3,
      tableShards: 4,
    });
  });

  it('a bad value is a ConfigError naming the variable, its range and what was given; each bad one on its own line', () => {
    expect(() => readDemo({ PORT: '80.5' })).toThrow(
      new ConfigError('PORT must be a whole number from 0 to 65535; got "80.5".'),
    );
    let error: unknown;
    try {
      readDemo({ LIMIT: '11', TABLE_SHARDS: 'many', PORT: '-1' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message.split('\n').sort()).toEqual([
      'LIMIT must be a whole number from 1 to 10; got "11".',
      'PORT must be a whole number from 0 to 65535; got "-1".',
      'TABLE_SHARDS must be a whole number from 1 to 1024; got "many".',
    ]);
  });

  it('readBaseConfig (npm start, migrate) reads only the shared variables', () => {
    expect(readBaseConfig({ DATABASE_URL: 'postgresql://h/db', PORT: 'not read' })).toEqual({
      databaseUrl: 'postgresql://h/db',
      // One database (DATABASE_URLS unset): every shard in it (decision 0027).
      shardMap: { databaseUrls: ['postgresql://h/db'], databaseOfShard: new Array(16).fill(0) },
      redisUrl: 'redis://127.0.0.1:6379',
      redisClusterNodes: [],
      redisPrefix: expect.any(String),
      tableShards: 16,
      deadlineGroups: 1,
      logLevel: 'info',
      durations: { turnMs: 45_000, disconnectedTurnMs: 5_000, breakMs: 30_000 },
      shutdownGraceMs: 10_000,
    });
  });
});

describe('readiness', () => {
  it('names each check with its own words; a check that throws or hangs past 2 s is down', async () => {
    const ok = await readiness([
      { name: 'postgres', probe: async () => true, up: 'up' },
      { name: 'worker', probe: () => true, up: 'running', down: 'stopped' },
    ]);
    expect(ok).toEqual({ ready: true, body: { status: 'ok', postgres: 'up', worker: 'running' } });

    const started = Date.now();
    const down = await readiness([
      { name: 'redis', probe: () => new Promise<boolean>(() => undefined) },
      { name: 'postgres', probe: () => Promise.reject(new Error('refused')) },
      { name: 'worker', probe: () => false, up: 'running', down: 'stopped' },
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(down).toEqual({
      ready: false,
      body: { status: 'unavailable', redis: 'down', postgres: 'down', worker: 'stopped' },
    });
  });

  it('a check that is not required is named down in the body but leaves the service ready; a required one does not', async () => {
    const optional = { name: 'postgres_1', probe: () => false, required: false } as const;
    expect(await readiness([{ name: 'postgres', probe: () => true }, optional])).toEqual({
      ready: true,
      body: { status: 'ok', postgres: 'ok', postgres_1: 'down' },
    });
    expect(await readiness([{ name: 'postgres', probe: () => false }, optional])).toEqual({
      ready: false,
      body: { status: 'unavailable', postgres: 'down', postgres_1: 'down' },
    });
  });
});

describe('ServiceLifecycle', () => {
  it('runs each list in the order written, one step after the other', async () => {
    const done: string[] = [];
    const step = (name: string, ms: number) => () =>
      new Promise<void>((resolve) => setTimeout(() => (done.push(name), resolve()), ms));
    const lifecycle = new ServiceLifecycle({
      connect: [step('connect', 1)],
      start: [step('worker', 20), step('sweep', 1)],
      stop: [step('drain', 20), step('heartbeat', 1)],
      close: [step('stores', 1)],
    });
    await lifecycle.onModuleInit();
    await lifecycle.onApplicationBootstrap();
    await lifecycle.onModuleDestroy();
    await lifecycle.onApplicationShutdown();
    expect(done).toEqual(['connect', 'worker', 'sweep', 'drain', 'heartbeat', 'stores']);
  });
});

describe('ServiceMetrics', () => {
  class Demo extends ServiceMetrics {
    readonly hits = this.counter('demo_hits_total', 'Hits', ['route']);
    depth = 0;
    readonly depthGauge = this.gauge('demo_depth', 'Depth', [], (gauge) => gauge.set(this.depth));
  }

  it('declares its metrics on a registry of its own; a gauge with collect is read on each scrape', async () => {
    const a = new Demo(false);
    const b = new Demo(false);
    a.hits.inc({ route: 'x' });
    a.depth = 7;
    const text = await a.registry.metrics();
    expect(text).toContain('demo_hits_total{route="x"} 1');
    expect(text).toContain('demo_depth 7');
    expect(text).not.toContain('process_cpu_seconds_total');
    expect(await b.registry.metrics()).not.toContain('demo_hits_total{route="x"}');
    expect(await new Demo(true).registry.metrics()).toContain('process_cpu_seconds_total');
  });
});

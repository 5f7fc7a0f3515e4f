import {
  ArgError,
  parseArgs,
  parseDuration,
  parseMetrics,
  parseThink,
  redactUrl,
  wsUrlOf,
} from '../src/args';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
    ['2', 2000],
    ['0.5', 500],
    ['0', 0],
    ['1.5s', 1500],
  ])('%s is %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 'abc', '5 minutes', '-3s', '3x', 's5'])('refuses %p', (text) =>
    expect(() => parseDuration(text)).toThrow(ArgError),
  );
});

describe('parseThink', () => {
  it('reads a range in one unit, mixed units, a fixed time and zero', () => {
    expect(parseThink('1-3s')).toEqual([1000, 3000]);
    expect(parseThink('500ms-2s')).toEqual([500, 2000]);
    expect(parseThink('100-300ms')).toEqual([100, 300]);
    expect(parseThink('2s')).toEqual([2000, 2000]);
    expect(parseThink('0')).toEqual([0, 0]);
  });

  it('refuses an upside-down or malformed range', () => {
    expect(() => parseThink('3-1s')).toThrow(/lower bound/);
    expect(() => parseThink('1-2-3s')).toThrow(ArgError);
    expect(() => parseThink('-3s')).toThrow(ArgError);
  });
});

describe('parseArgs', () => {
  it('has defaults that play long partnership matches at human pace', () => {
    expect(parseArgs([])).toEqual({
      url: 'http://localhost:8080',
      tables: 10,
      variant: 'partnership',
      seats: 4,
      target: 500,
      thinkMs: [1000, 3000],
      rampMs: 30_000,
      durationMs: 300_000,
      mode: 'play',
      socketsOnly: false,
      settleMs: 60_000,
      metrics: [],
      metricsIntervalMs: 5000,
      out: null,
      seed: '1',
      replyTimeoutMs: 10_000,
      seatRate: 15,
      quiet: false,
      redisUrl: null,
      databaseUrl: null,
      localProcs: false,
      slice: null,
      workers: 1,
      printReport: false,
    });
  });

  it('reads the README command, with both --name value and --name=value', () => {
    const config = parseArgs([
      '--url',
      'https://dominoes.example.com/',
      '--tables=1000',
      '--think',
      '1-3s',
      '--duration',
      '5m',
      '--ramp',
      '1m',
      '--seed',
      'abc',
      '--out',
      '/tmp/x',
    ])!;
    expect(config).toMatchObject({
      url: 'https://dominoes.example.com',
      tables: 1000,
      thinkMs: [1000, 3000],
      durationMs: 300_000,
      rampMs: 60_000,
      seed: 'abc',
      out: '/tmp/x',
    });
  });

  it('takes seats for the draw game and forces 100 for five-tile', () => {
    expect(parseArgs(['--variant', 'draw', '--seats', '3'])).toMatchObject({ seats: 3, target: 500 });
    expect(parseArgs(['--variant', 'five-tile', '--seats', '2'])).toMatchObject({ seats: 2, target: 100 });
    expect(() => parseArgs(['--variant', 'five-tile', '--target', '200'])).toThrow(/five-tile/);
    expect(() => parseArgs(['--seats', '3'])).toThrow(/partnership/);
    expect(() => parseArgs(['--variant', 'draw', '--seats', '5'])).toThrow(/2 to 4/);
  });

  it('reads the modes and flags', () => {
    expect(parseArgs(['--mode', 'idle'])).toMatchObject({ mode: 'idle', socketsOnly: false });
    expect(parseArgs(['--sockets-only', '--quiet'])).toMatchObject({ socketsOnly: true, quiet: true });
    expect(parseArgs(['--sockets-only', '--settle', '1m30s'])).toMatchObject({ settleMs: 90_000 });
    expect(parseArgs(['--sockets-only', '--settle=500ms'])).toMatchObject({ settleMs: 500 });
    expect(parseArgs(['--sockets-only', '--settle', '0'])).toMatchObject({ settleMs: 0 });
    expect(parseArgs(['--help'])).toBeNull();
  });

  it("spaces a seat's intents by --seat-rate (under the gateway's 20 frames a second per socket by default); 0 is no limit", () => {
    expect(parseArgs(['--seat-rate', '5'])).toMatchObject({ seatRate: 5 });
    expect(parseArgs(['--seat-rate=0'])).toMatchObject({ seatRate: 0 });
    expect(() => parseArgs(['--seat-rate', '-1'])).toThrow(/--seat-rate/);
    expect(() => parseArgs(['--seat-rate', 'fast'])).toThrow(/--seat-rate/);
  });

  it('refuses what it does not know, with a sentence', () => {
    expect(() => parseArgs(['--tabels', '3'])).toThrow('Unknown option --tabels');
    expect(() => parseArgs(['--tables'])).toThrow('--tables needs a value');
    expect(() => parseArgs(['--tables', '0'])).toThrow('--tables must be from 1');
    expect(() => parseArgs(['--tables', '1.5'])).toThrow('whole number');
    expect(() => parseArgs(['--mode', 'fast'])).toThrow('--mode must be play or idle');
    expect(() => parseArgs(['--variant', 'chess'])).toThrow('--variant');
    expect(() => parseArgs(['--target', '120'])).toThrow('steps of 50');
    expect(() => parseArgs(['--url', 'localhost:8080'])).toThrow('http');
    expect(() => parseArgs(['--duration', '0'])).toThrow('at least 1s');
    expect(() => parseArgs(['--settle', 'soon'])).toThrow('--settle must look like');
    expect(() => parseArgs(['tables'])).toThrow('Unexpected argument');
    expect(() => parseArgs(['--quiet=yes'])).toThrow('takes no value');
  });
});

describe('the cost options', () => {
  it('takes a Redis URL, a Postgres URL and --local-procs', () => {
    expect(
      parseArgs(
        [
          '--redis-url',
          'redis://127.0.0.1:6379',
          '--database-url=postgresql://postgres@127.0.0.1:5432/test',
          '--local-procs',
        ],
        'linux',
      ),
    ).toMatchObject({
      redisUrl: 'redis://127.0.0.1:6379',
      databaseUrl: 'postgresql://postgres@127.0.0.1:5432/test',
      localProcs: true,
    });
    expect(
      parseArgs(['--redis-url', 'rediss://h:6380/2', '--database-url', 'postgres://u@h/db']),
    ).toMatchObject({
      redisUrl: 'rediss://h:6380/2',
      databaseUrl: 'postgres://u@h/db',
    });
  });

  it('refuses URLs of the wrong kind, and --local-procs off Linux', () => {
    expect(() => parseArgs(['--redis-url', 'http://127.0.0.1:6379'])).toThrow('--redis-url must be a redis:');
    expect(() => parseArgs(['--redis-url', '127.0.0.1:6379'])).toThrow(ArgError);
    expect(() => parseArgs(['--database-url', 'mysql://h/db'])).toThrow('--database-url must be a postgres:');
    expect(() => parseArgs(['--local-procs'], 'darwin')).toThrow('Linux only');
    expect(() => parseArgs(['--local-procs=1'], 'linux')).toThrow('takes no value');
  });

  it('hides a password before a URL goes into the report', () => {
    expect(redactUrl('postgresql://app:s3cret@db:5432/dominoes')).toBe(
      'postgresql://app:***@db:5432/dominoes',
    );
    expect(redactUrl('redis://:s3cret@cache:6379')).toBe('redis://:***@cache:6379');
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(redactUrl(null)).toBeNull();
  });
});

describe('parseMetrics', () => {
  it('names each URL by host:port, or by the name given', () => {
    expect(
      parseMetrics('http://localhost:8080/metrics, table=http://10.0.0.2:8081/metrics,http://t:9/x/metrics'),
    ).toEqual([
      { name: 'localhost:8080', url: 'http://localhost:8080/metrics' },
      { name: 'table', url: 'http://10.0.0.2:8081/metrics' },
      { name: 't:9/x/metrics', url: 'http://t:9/x/metrics' },
    ]);
    expect(() => parseMetrics('gateway=nope')).toThrow(ArgError);
  });
});

it('makes the WebSocket URL from the base URL', () => {
  expect(wsUrlOf('http://localhost:8080')).toBe('ws://localhost:8080/ws');
  expect(wsUrlOf('https://play.example.com/dominoes')).toBe('wss://play.example.com/dominoes/ws');
});

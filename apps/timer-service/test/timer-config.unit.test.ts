import { ConfigError } from '@dominoes/platform';
import { readTimerConfig } from '../src/config';

/** What every case sets: a database (the base config needs one) and nothing of the timer-service's own. */
const BASE = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/postgres' };
const read = (env: Record<string, string> = {}) => readTimerConfig({ ...BASE, ...env });

describe('timer-service configuration (readTimerConfig)', () => {
  it('without any of its variables: port 8082 on every interface, 50 jobs at once, the depth every 5 s, a worker stuck after 10 s', () => {
    expect(read()).toMatchObject({
      port: 8082,
      host: '0.0.0.0',
      concurrency: 50,
      queueDepthIntervalMs: 5000,
      workerStuckMs: 10_000,
    });
  });

  it('reads every variable of its own, each into its place', () => {
    expect(
      read({
        PORT: '9100',
        HOST: '127.0.0.1',
        WORKER_CONCURRENCY: '7',
        QUEUE_DEPTH_INTERVAL_MS: '250',
        WORKER_STUCK_MS: '600',
      }),
    ).toMatchObject({
      port: 9100,
      host: '127.0.0.1',
      concurrency: 7,
      queueDepthIntervalMs: 250,
      workerStuckMs: 600,
    });
  });

  it.each([
    ['PORT', 0, 65535],
    ['WORKER_CONCURRENCY', 1, 1000],
    ['QUEUE_DEPTH_INTERVAL_MS', 100, 600_000],
    ['WORKER_STUCK_MS', 200, 600_000],
  ])('%s takes whole numbers from %i to %i and refuses one outside, naming it', (name, min, max) => {
    expect(() => read({ [name]: String(min) })).not.toThrow();
    expect(() => read({ [name]: String(max) })).not.toThrow();
    for (const bad of [min - 1, max + 1])
      expect(() => read({ [name]: String(bad) })).toThrow(
        new ConfigError(`${name} must be a whole number from ${min} to ${max}; got "${bad}".`),
      );
  });
});

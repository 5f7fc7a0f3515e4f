import { parsePrometheus, readSamples } from '../src/service-metrics';

const scrape = (
  cpu: number,
  rss: number,
  extra = '',
) => `# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total ${cpu}
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes ${rss}
${extra}`;

describe('parsePrometheus', () => {
  it('reads names, labels (with escapes) and values; skips comments', () => {
    const metrics = parsePrometheus(`# HELP x y
dominoes_intents_total{type="play",outcome="ok"} 12
dominoes_intents_total{type="pass",outcome="a \\"b\\""} 3
nodejs_eventloop_lag_seconds 0.004
h_bucket{le="+Inf"} 7
bad line
`);
    expect(metrics.get('dominoes_intents_total')).toEqual([
      { labels: { type: 'play', outcome: 'ok' }, value: 12 },
      { labels: { type: 'pass', outcome: 'a "b"' }, value: 3 },
    ]);
    expect(metrics.get('nodejs_eventloop_lag_seconds')![0]!.value).toBe(0.004);
    expect(metrics.get('h_bucket')![0]!.labels['le']).toBe('+Inf');
    expect(metrics.has('bad')).toBe(false);
  });
});

describe('samples', () => {
  it('CPU as a rate between scrapes, RSS, heap used, the event-loop p99 gauge, open sockets', () => {
    const samples = readSamples([
      {
        t: 0,
        text: scrape(
          10,
          100e6,
          'nodejs_eventloop_lag_p99_seconds 0.012\ndominoes_open_sockets 0\nnodejs_heap_size_used_bytes 30e6',
        ),
      },
      {
        t: 5,
        text: scrape(12.5, 150e6, 'nodejs_eventloop_lag_p99_seconds 0.020\ndominoes_open_sockets 400'),
      },
    ]);
    expect(samples[0]).toEqual({
      t: 0,
      cpu: null,
      cpuSeconds: 10,
      rssBytes: 100e6,
      heapUsedBytes: 30e6,
      eventLoopP99Ms: 12,
      openSockets: 0,
    });
    expect(samples[1]).toEqual({
      t: 5,
      cpu: 0.5,
      cpuSeconds: 12.5,
      rssBytes: 150e6,
      heapUsedBytes: null,
      eventLoopP99Ms: 20,
      openSockets: 400,
    });
  });

  it('falls back to an event-loop histogram: the p99 of what it counted since the last scrape', () => {
    const hist = (a: number, b: number, c: number) =>
      `app_eventloop_delay_seconds_bucket{le="0.01"} ${a}\napp_eventloop_delay_seconds_bucket{le="0.1"} ${b}\napp_eventloop_delay_seconds_bucket{le="+Inf"} ${c}`;
    const samples = readSamples([
      { t: 0, text: scrape(1, 1, hist(100, 100, 100)) },
      { t: 5, text: scrape(1, 1, hist(150, 200, 200)) },
    ]);
    expect(samples[0]!.eventLoopP99Ms).toBe(10);
    expect(samples[1]!.eventLoopP99Ms).toBe(100);
    expect(samples[1]!.openSockets).toBeNull();
  });
});

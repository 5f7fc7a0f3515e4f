import { createRedis, DEADLINE_LEAD_MS, upsertDeadline, waitForDue, type Redis } from '@dominoes/platform';
import { cleanPrefix, tableOfEachGroup, withDispatch, workerOn } from './support';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A deadline job is due DEADLINE_LEAD_MS before its deadline, and the timer waits the rest on its own
 * clock: BullMQ's hand-over is only as fine as Redis's `hz`, the wait is as fine as a timer.
 */
describe('deadline lead: the job comes early, the deadline fires on time and never before', () => {
  it('waitForDue waits until the deadline when it is within the lead, at most the lead when it is further off, and not at all when it has passed', async () => {
    const clock = { now: () => Date.now() };
    let start = Date.now();
    await waitForDue(start + 25, clock);
    expect(Date.now()).toBeGreaterThanOrEqual(start + 25);
    start = Date.now();
    await waitForDue(start + 60_000, clock);
    const waited = Date.now() - start;
    expect(waited).toBeGreaterThanOrEqual(DEADLINE_LEAD_MS - 1);
    expect(waited).toBeLessThan(DEADLINE_LEAD_MS + 1000);
    start = Date.now();
    await waitForDue(start - 1000, clock);
    expect(Date.now() - start).toBeLessThan(20);
  });

  it("a deadline set 300 ms ahead is a job due 300 ms less the lead, and its intent is written no earlier than the deadline by the timer's clock", async () => {
    const base = workerOn(REDIS_URL);
    await base.queues.close();
    const written: { dueAt: number; at: number }[] = [];
    const w = workerOn(
      REDIS_URL,
      withDispatch(base.streams, (envelope, dispatch) => {
        const intent = envelope.intent as { dueAt: number };
        written.push({ dueAt: intent.dueAt, at: Date.now() });
        return dispatch(envelope);
      }),
      { REDIS_PREFIX: base.config.redisPrefix },
    );
    const redis: Redis = createRedis(REDIS_URL, 'deadline-lead-test');
    const [tableId] = tableOfEachGroup();
    try {
      w.worker.start();
      const dueAt = Date.now() + 300;
      const { jobId } = await upsertDeadline(
        w.queues.of(tableId!),
        { tableId: tableId!, key: 'lead', dueAt },
        dueAt - Date.now(),
      );
      const job = await w.queues.of(tableId!).getJob(jobId);
      expect(job!.opts.delay).toBeGreaterThan(300 - DEADLINE_LEAD_MS - 20);
      expect(job!.opts.delay).toBeLessThanOrEqual(300 - DEADLINE_LEAD_MS);
      for (let i = 0; i < 200 && written.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(written).toHaveLength(1);
      expect(written[0]!.dueAt).toBe(dueAt);
      expect(written[0]!.at).toBeGreaterThanOrEqual(dueAt);
    } finally {
      await w.worker.close();
      await cleanPrefix(redis, w.config.redisPrefix);
      redis.disconnect();
    }
  });
});

import { createLogger, type Clock } from '@dominoes/platform';
import { DeadlineJobs } from '../src/table/deadline-jobs';
import type { Deadline } from '../src/table/table-state';

/** Decision 0032: a table's one job is a wake-up due at or before its deadline, set only when needed. */
describe('deadline jobs: one wake-up per table, due no later than its deadline', () => {
  let now = 1_000_000;
  const clock: Clock = { now: () => now };
  const turn = (key: string, at: number): Deadline => ({ kind: 'turn', seat: 0, key, at });
  const world = (fail?: (d: Deadline) => boolean) => {
    const set: string[] = [];
    const jobs = new DeadlineJobs(
      {
        schedule: async (tableId, d) => {
          if (fail?.(d)) throw new Error('Redis is away');
          set.push(`${tableId}:${d.key}@${d.at}`);
        },
      },
      clock,
      createLogger('test', 'silent'),
    );
    return { jobs, set };
  };

  it('a later deadline while the job set before is not yet due sets nothing; an earlier one replaces it', async () => {
    now = 1_000_000;
    const { jobs, set } = world();
    jobs.ensure('T', turn('1', now + 45_000));
    now += 2_000;
    jobs.ensure('T', turn('2', now + 45_000)); // the next turn, 2 s later: the first job wakes the table first
    now += 2_000;
    jobs.ensure('T', turn('3', now + 5_000)); // a disconnected seat's 5 s: earlier, so set
    await jobs.settled();
    expect(set).toEqual(['T:1@1045000', 'T:3@1009000']);
  });

  it('the firing of the job uses it up: the deadline current then gets its job (an out-of-date wake-up)', async () => {
    now = 2_000_000;
    const { jobs, set } = world();
    jobs.ensure('T', turn('1', now + 45_000));
    now += 3_000;
    jobs.ensure('T', turn('2', now + 45_000));
    now = 2_045_000;
    jobs.fired('T', 2_045_000);
    jobs.ensure('T', turn('2', 2_048_000));
    await jobs.settled();
    expect(set).toEqual(['T:1@2045000', 'T:2@2048000']);
  });

  it('an old firing arriving late leaves a newer, later job alone', async () => {
    now = 3_000_000;
    const { jobs, set } = world();
    jobs.ensure('T', turn('1', now + 5_000));
    now += 6_000; // its time has passed: the next deadline sets its own job
    jobs.ensure('T', turn('2', now + 45_000));
    jobs.fired('T', 3_005_000); // the first job's firing, late
    jobs.ensure('T', turn('2', 3_051_000));
    await jobs.settled();
    expect(set).toEqual(['T:1@3005000', 'T:2@3051000']);
  });

  it("the job set after an out-of-date firing carries the trace of the change that made its deadline, not the firing's", async () => {
    now = 6_000_000;
    const traces: (string | undefined)[] = [];
    const jobs = new DeadlineJobs(
      { schedule: async (_id, _d, traceparent) => void traces.push(traceparent) },
      clock,
      createLogger('test', 'silent'),
    );
    jobs.ensure('T', turn('1', now + 45_000), 'made-1');
    now += 2_000;
    jobs.ensure('T', turn('2', now + 45_000), 'made-2');
    now += 2_000;
    jobs.ensure('T', turn('3', now + 45_000), 'made-3');
    now = 6_045_000;
    jobs.fired('T', 6_045_000);
    jobs.ensure('T', turn('3', 6_049_000), 'the-firing');
    // A wake-up for a deadline nobody made since (a key this replica never saw) links to its firing.
    now = 6_049_000;
    jobs.fired('T', 6_049_000);
    jobs.ensure('T', turn('9', 6_094_000), 'another-firing');
    await jobs.settled();
    expect(traces).toEqual(['made-1', 'made-3', 'another-firing']);
  });

  it("a job about to come due (within the last third of the new deadline's time) is moved to the new deadline instead of firing out of date", async () => {
    now = 7_000_000;
    const { jobs, set } = world();
    jobs.ensure('T', turn('1', now + 45_000)); // due at 7_045_000
    now = 7_029_000; // 16 s before it: more than a third of 45 s, left alone
    jobs.ensure('T', turn('2', now + 45_000));
    now = 7_031_000; // 14 s before it: moved to the new turn's deadline
    jobs.ensure('T', turn('3', now + 45_000));
    now = 7_033_000; // that one is 43 s away: left alone again
    jobs.ensure('T', turn('4', now + 45_000));
    await jobs.settled();
    expect(set).toEqual(['T:1@7045000', 'T:3@7076000']);
  });

  it('a short clock moves its job the same way, in proportion (2 s turns: within the last 0.67 s)', async () => {
    now = 8_000_000;
    const { jobs, set } = world();
    jobs.ensure('T', turn('1', now + 2_000));
    now += 1_000; // 1 s before the job: more than a third of 2 s
    jobs.ensure('T', turn('2', now + 2_000));
    now += 500; // 0.5 s before it
    jobs.ensure('T', turn('3', now + 2_000));
    // The same deadline again (a change that did not move the clock) sets nothing, however near.
    now += 1_900;
    jobs.ensure('T', turn('3', 8_003_500));
    await jobs.settled();
    expect(set).toEqual(['T:1@8002000', 'T:3@8003500']);
  });

  it('a job that could not be set is not counted on: the next deadline sets its own', async () => {
    now = 4_000_000;
    const { jobs, set } = world((d) => d.key === '1');
    jobs.ensure('T', turn('1', now + 45_000));
    await jobs.settled();
    jobs.ensure('T', turn('2', now + 47_000));
    await jobs.settled();
    expect(set).toEqual(['T:2@4047000']);
  });

  it('a table it forgot (left the cache, a failed write) gets its next deadline set; other tables are apart', async () => {
    now = 5_000_000;
    const { jobs, set } = world();
    jobs.ensure('T', turn('1', now + 45_000));
    jobs.ensure('U', turn('1', now + 45_000));
    jobs.forget('T');
    jobs.ensure('T', turn('2', now + 46_000));
    jobs.ensure('U', turn('2', now + 46_000));
    await jobs.settled();
    expect(set).toEqual(['T:1@5045000', 'U:1@5045000', 'T:2@5046000']);
  });
});

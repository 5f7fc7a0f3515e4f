import { Client } from 'pg';
import { createSeededRng, type SeededRng } from '@dominoes/rules';
import type { TestPostgresServer } from '../src/postgres-server';
import type { TestRedisServer } from '../src/redis-server';
import type { TestSystem } from '../src/system';

export const FAULT_KINDS = [
  'kill-service',
  'restart-redis',
  'kill-postgres',
  'lock-postgres',
  'freeze-redis',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Fault {
  readonly kind: FaultKind;
  /** The instance killed (kill-service). */
  readonly target?: string;
  /** ms after the chaos began */
  readonly startedMs: number;
  /** ms after the chaos began: the moment the fault was over (the process or store answering again). */
  endedMs: number;
  /** How long the thing was away, frozen or locked (ms). */
  outageMs: number;
  error?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ChaosTargets {
  readonly system: TestSystem;
  readonly redis: TestRedisServer;
  readonly postgres: TestPostgresServer;
  /** Every service instance that may be killed: `gateway`, `gateway#1`, `table-service#2`, ... */
  readonly instances: readonly string[];
}

/**
 * Injects one fault at a time, at random moments (a seeded RNG, so a run can be repeated), until
 * `until`: the kinds come in shuffled rounds, so each kind comes about as often and a short run sees
 * every one. Between two faults a quiet gap of `gapMs` (uniform in [min, max]).
 */
export class ChaosMonkey {
  readonly faults: Fault[] = [];
  private readonly rng: SeededRng;
  private bag: FaultKind[] = [];
  private began = 0;
  /** True while a fault is in progress (afterAll mends what is left). */
  private current: FaultKind | null = null;
  private lock: Client | null = null;
  private ended = false;

  constructor(
    private readonly targets: ChaosTargets,
    seed: number,
    private readonly gapMs: readonly [number, number] = [2000, 8000],
  ) {
    this.rng = createSeededRng(seed);
  }

  private between(min: number, max: number): number {
    return Math.round(min + (max - min) * this.rng.fraction());
  }

  private next(): FaultKind {
    if (this.bag.length === 0) {
      this.bag = [...FAULT_KINDS];
      for (let i = this.bag.length - 1; i > 0; i--) {
        const j = this.rng.below(i + 1);
        [this.bag[i], this.bag[j]] = [this.bag[j]!, this.bag[i]!];
      }
    }
    return this.bag.pop()!;
  }

  /** Runs faults until `untilMs` (epoch ms); the last one starts before it and is over when this resolves. */
  async run(untilMs: number): Promise<Fault[]> {
    this.began = Date.now();
    while (!this.ended) {
      await sleep(this.between(this.gapMs[0], this.gapMs[1]));
      if (Date.now() >= untilMs || this.ended) break;
      await this.inject(this.next());
    }
    return this.faults;
  }

  get lastFaultEndedAt(): number {
    const last = this.faults.at(-1);
    return last ? this.began + last.endedMs : this.began;
  }

  private async inject(kind: FaultKind): Promise<void> {
    const { system, redis, postgres, instances } = this.targets;
    const startedAt = Date.now();
    const target = kind === 'kill-service' ? instances[this.rng.below(instances.length)] : undefined;
    const fault: Fault = {
      kind,
      ...(target ? { target } : {}),
      startedMs: startedAt - this.began,
      endedMs: 0,
      outageMs: 0,
    };
    this.faults.push(fault);
    this.current = kind;
    let back = startedAt;
    try {
      switch (kind) {
        case 'kill-service':
          // kill -9, then started again after a moment (as a supervisor would): ready on /health/ready.
          await system.kill(target!, 'SIGKILL');
          await sleep(this.between(500, 2000));
          back = Date.now();
          await system.startService(target!);
          break;
        case 'restart-redis':
          // kill -9; the new one is empty (no persistence).
          await redis.kill('SIGKILL');
          await sleep(this.between(500, 2500));
          back = Date.now();
          await redis.restart();
          break;
        case 'kill-postgres':
          await postgres.kill();
          await sleep(this.between(500, 2500));
          back = Date.now();
          await postgres.start(); // crash recovery from the WAL
          break;
        case 'lock-postgres': {
          // Every write of a table waits (the fenced UPDATE of game_tables) for several seconds.
          const lock = new Client({ connectionString: system.stores.databaseUrl });
          lock.on('error', () => undefined);
          this.lock = lock;
          await lock.connect();
          await lock.query('begin');
          await lock.query('lock table game_tables in exclusive mode');
          await sleep(this.between(3000, 7000));
          back = Date.now();
          await lock.query('commit');
          await lock.end();
          this.lock = null;
          break;
        }
        case 'freeze-redis':
          redis.freeze();
          await sleep(this.between(3000, 7000));
          back = Date.now();
          redis.thaw();
          break;
      }
    } catch (error) {
      fault.error = (error as Error).message;
    } finally {
      this.current = null;
    }
    fault.outageMs = back - startedAt;
    fault.endedMs = Date.now() - this.began;
  }

  /** After a failure mid-fault: whatever it left frozen, locked or stopped is put back (best effort). */
  async mend(): Promise<void> {
    this.ended = true; // a run still going (the test timed out) injects nothing more
    const { redis, postgres } = this.targets;
    redis.thaw();
    await this.lock?.end().catch(() => undefined);
    if (this.current === 'kill-postgres' || !postgres.running) await postgres.start().catch(() => undefined);
    if (!redis.running) await redis.restart().catch(() => undefined);
  }
}

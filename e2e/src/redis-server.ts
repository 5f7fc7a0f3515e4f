import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import { freePort } from '../../libs/platform/src/free-port';
import { TEST_REDIS_SETTINGS } from '../../libs/platform/src/test-redis-cluster';

/** Where its log goes: test-artifacts/logs/<label>/redis-server.log (next to the services' logs). */
const LOGS = resolve(__dirname, '../../test-artifacts/logs');

/**
 * A redis-server of a test's own (the unit tests of the services use it too: it imports nothing else
 * of e2e/), as a child process in a temporary directory, with no persistence
 * (`--save '' --appendonly no`): killing it loses everything in it. `restart()` starts a fresh,
 * empty one on the same port, as a Redis that crashed and came back without its data would be.
 */
export class TestRedisServer {
  private child: ChildProcess | null = null;
  private readonly dir: string;

  private constructor(
    readonly port: number,
    private readonly label: string,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), `redis-${label}-`));
  }

  static async start(label: string): Promise<TestRedisServer> {
    const server = new TestRedisServer(await freePort(), label);
    await server.spawn();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  private async spawn(): Promise<void> {
    const logDir = join(LOGS, this.label);
    mkdirSync(logDir, { recursive: true });
    const log = createWriteStream(join(logDir, 'redis-server.log'), { flags: 'a' });
    // The settings ../shared/DESIGN.md asks of the Redis the services use.
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        ...TEST_REDIS_SETTINGS,
        '--daemonize',
        'no',
        '--dir',
        this.dir,
      ],
      { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // Two pipes into one file: neither may end it (the other would then write after the end, an
    // error that fails the suite); it ends when the process has closed both.
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('close', () => log.end());
    this.child = child;
    const failed = new Promise<never>((_, reject) =>
      child.once('error', (error) =>
        reject(new Error(`redis-server could not be started (is it on the PATH?): ${error.message}`)),
      ),
    );
    failed.catch(() => undefined);
    await Promise.race([this.waitReady(), failed]);
  }

  private async waitReady(timeoutMs = 10_000): Promise<void> {
    const started = Date.now();
    while (Date.now() - started < timeoutMs) {
      if (!this.running) throw new Error(`redis-server on :${this.port} exited`);
      const probe = new Redis(this.url, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') return;
      } catch {
        // not listening yet
      } finally {
        probe.disconnect();
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server on :${this.port} was not ready within ${timeoutMs} ms`);
  }

  /** Kills it (SIGKILL by default: nothing is saved, every key, stream, group and job is gone). */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGCONT'); // a frozen server would not act on SIGTERM
    await new Promise<void>((done) => {
      child.once('exit', () => done());
      child.kill(signal);
    });
  }

  /** SIGSTOP: the server keeps its connections open and answers nothing until `thaw()`. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  /** A fresh, empty redis-server on the same port. */
  async restart(): Promise<void> {
    await this.kill();
    await this.spawn();
  }

  async stop(): Promise<void> {
    await this.kill('SIGTERM');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

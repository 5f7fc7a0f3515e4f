import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../libs/platform/src/free-port';

/** Where its log is copied at the end: test-artifacts/logs/<label>/postgres.log (next to the services' logs). */
const LOGS = resolve(__dirname, '../../test-artifacts/logs');
const BIN = process.env['POSTGRES_BIN'] ?? '/usr/lib/postgresql/15/bin';

function osUser(name: string): { uid: number; gid: number } {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) throw new Error(`no OS user ${name}: ${uid.stderr}`);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** The ids of `pid`'s child processes, from /proc (a postmaster's backends and helpers). */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** Whether a process exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return !/^State:\s+Z/m.test(status);
  } catch {
    return false;
  }
}

/**
 * A Postgres server of a test's own: `initdb` into a temporary directory, the postmaster as a child
 * process of this one (run as the `postgres` OS user: Postgres refuses root), on a free loopback port,
 * trust authentication, `fsync=on`. `kill()` is `kill -9` of the postmaster and every process it
 * started at the same instant (a crashed machine or container: nothing is shut down cleanly), and
 * `start()` afterwards brings it back from its WAL, on the same port and data directory, as a
 * restarted database server would.
 */
export class TestPostgresServer {
  private child: ChildProcess | null = null;
  private readonly dir: string;
  private readonly user = osUser('postgres');

  private constructor(
    readonly port: number,
    private readonly label: string,
  ) {
    this.dir = mkdtempSync('/tmp/pg-test-');
    chownSync(this.dir, this.user.uid, this.user.gid);
  }

  static async start(label: string): Promise<TestPostgresServer> {
    const server = new TestPostgresServer(await freePort(), label);
    try {
      server.initdb();
      await server.start();
    } catch (error) {
      await server.stop().catch(() => undefined);
      throw error;
    }
    return server;
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  private get logFile(): string {
    return join(this.dir, 'postgres.log');
  }

  /** The server's own database `postgres` (createTestStores makes each suite's database next to it). */
  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** The postmaster's process id (from postmaster.pid, as an operator would read it). */
  get pid(): number | null {
    try {
      return Number(readFileSync(join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return null;
    }
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  private initdb(): void {
    const result = spawnSync(
      join(BIN, 'initdb'),
      ['-D', this.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'],
      { uid: this.user.uid, gid: this.user.gid, cwd: this.dir, encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(`initdb failed: ${result.error?.message ?? result.stderr}`);
  }

  /** Starts the postmaster (after a kill: crash recovery from the WAL) and waits until it takes queries. */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.running) return;
    const child = spawn(
      join(BIN, 'postgres'),
      [
        '-D',
        this.dataDir,
        '-p',
        String(this.port),
        '-k',
        this.dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=on',
        '-c',
        'max_connections=300',
      ],
      { uid: this.user.uid, gid: this.user.gid, cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const log = createWriteStream(this.logFile, { flags: 'a' });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('close', () => log.end());
    this.child = child;
    const failed = new Promise<never>((_, reject) =>
      child.once('error', (error) => reject(new Error(`postgres could not be started: ${error.message}`))),
    );
    failed.catch(() => undefined);
    await Promise.race([this.waitReady(timeoutMs), failed]);
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const started = Date.now();
    while (Date.now() - started < timeoutMs) {
      if (!this.running) throw new Error(`postgres on :${this.port} exited (see ${this.logFile})`);
      const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 1000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('select 1');
        return;
      } catch {
        // starting up, or recovering
      } finally {
        await client.end().catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`postgres on :${this.port} was not ready within ${timeoutMs} ms`);
  }

  /**
   * kill -9 of the postmaster and of every process it started, at once; resolves when none is left
   * (so `start()` finds neither a live postmaster.pid nor attached shared memory).
   */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    const pid = child?.pid;
    if (!child || pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGCONT');
    const victims = [pid, ...childPids(pid)];
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    for (const victim of victims) {
      try {
        process.kill(victim, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await exited;
    const started = Date.now();
    while (victims.some(alive) && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
  }

  /** Stops it (an immediate shutdown) and removes its data directory; its log is kept with the suite's. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.signalCode === null) {
      // Immediate shutdown (SIGQUIT): the backends are told to exit; the next start would recover.
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    if (existsSync(this.logFile)) {
      const logDir = join(LOGS, this.label);
      mkdirSync(logDir, { recursive: true });
      copyFileSync(this.logFile, join(logDir, 'postgres.log'));
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `count` private Postgres clusters, started at once; none left running if one fails to start. */
export async function startPostgresServers(label: string, count: number): Promise<TestPostgresServer[]> {
  const started = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => TestPostgresServer.start(`${label}-pg${i}`)),
  );
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.all(servers.map((s) => s.stop().catch(() => undefined)));
    throw failed.reason;
  }
  return servers;
}

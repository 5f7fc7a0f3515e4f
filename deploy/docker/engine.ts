/**
 * A real Docker engine for the image and compose tests (deploy/docker/*.test.ts): the CLI, the build of the
 * project's Dockerfile, containers started from the image, and docker-compose v1.
 *
 * On these machines the engine comes from `bash ../shared/docker/engine.sh` (Debian's Docker 20.10 with BuildKit,
 * and local stand-ins for the base images no registry serves here); .ci/run starts it. A laptop's Docker works too.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts', 'docker');

/** Debian's 20.10 CLI where it is installed (the newer one in /usr/local/bin has no buildx plugin here). */
export const DOCKER = fs.existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';

export interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly seconds: number;
}

/** Runs a command to its end (no shell), with its output captured and optionally appended to a log file. */
export function run(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; log?: string; input?: string } = {},
): Promise<Result> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const log = options.log ? fs.createWriteStream(options.log, { flags: 'a' }) : null;
    log?.write(`\n$ ${command} ${args.join(' ')}\n`);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      log?.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      log?.write(d);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')}: no end within ${options.timeoutMs} ms`));
    }, options.timeoutMs ?? 120_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      log?.end();
      resolve({ code, stdout, stderr, seconds: (Date.now() - started) / 1000 });
    });
    // A command that exits before reading its input (docker-compose ps does, at times) closes the
    // pipe: that EPIPE is no failure of the command (its exit code says), and must not throw.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** `docker <args>`, refusing a non-zero exit with the command's output in the error. */
export async function docker(
  args: readonly string[],
  options: Parameters<typeof run>[2] = {},
): Promise<string> {
  const result = await run(DOCKER, args, options);
  if (result.code !== 0) {
    throw new Error(`docker ${args.join(' ')} exited ${result.code}:\n${result.stderr || result.stdout}`);
  }
  return result.stdout.trim();
}

/** Whether an engine answers; the reason when it does not. */
export function engineStatus(): { ok: true } | { ok: false; reason: string } {
  const r = spawnSync(DOCKER, ['info', '--format', '{{.ServerVersion}}'], {
    encoding: 'utf8',
    timeout: 15_000,
  });
  if (r.error) return { ok: false, reason: `no docker CLI (${r.error.message})` };
  if (r.status !== 0) return { ok: false, reason: `no Docker engine answers (${(r.stderr || '').trim()})` };
  return { ok: true };
}

export const hasImage = (image: string): boolean =>
  spawnSync(DOCKER, ['image', 'inspect', image], { stdio: 'ignore' }).status === 0;

/**
 * The Dockerfile as the engine builds it here: the repository's file with only its `# syntax=` line dropped
 * (BuildKit would pull that frontend image; no registry is reachable). Returns the path of the copy.
 */
export function localDockerfile(): { file: string; dropped: string[] } {
  const text = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const lines = text.split('\n');
  const dropped = /^# syntax=/.test(lines[0] ?? '') ? [lines[0]!] : [];
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dominoes-dockerfile-')), 'Dockerfile');
  fs.writeFileSync(file, lines.slice(dropped.length).join('\n'));
  return { file, dropped };
}

/** Builds the project's Dockerfile with BuildKit into `tag`: the build's seconds and the image's size. */
export async function buildImage(tag: string, log: string): Promise<{ seconds: number; bytes: number }> {
  const { file } = localDockerfile();
  const result = await run(DOCKER, ['build', '--progress=plain', '-f', file, '-t', tag, '.'], {
    env: { ...process.env, DOCKER_BUILDKIT: '1' },
    timeoutMs: 20 * 60_000,
    log,
  });
  if (result.code !== 0)
    throw new Error(`docker build exited ${result.code}; see ${log}:\n${result.stderr.slice(-3000)}`);
  const bytes = Number(await docker(['image', 'inspect', '--format', '{{.Size}}', tag]));
  return { seconds: result.seconds, bytes };
}

/** A container started in the background from the image, on the host's network (it binds this machine's ports). */
export async function runDetached(
  image: string,
  name: string,
  env: Record<string, string>,
  command: readonly string[],
): Promise<string> {
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return docker(['run', '-d', '--name', name, '--network', 'host', ...envArgs, image, ...command]);
}

/** Removes every container named in `names` (running or not), ignoring the ones already gone. */
export async function removeContainers(names: readonly string[]): Promise<void> {
  if (names.length > 0) await run(DOCKER, ['rm', '-f', '-v', ...names]);
}

/** Polls `url` until it answers 200 (or the container stops: then its log is in the error). */
export async function waitForOk(url: string, container: string, timeoutMs = 90_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    try {
      const response = await fetch(url);
      if (response.ok) return Date.now() - started;
    } catch {
      // not listening yet
    }
    const state = await docker(['inspect', '--format', '{{.State.Status}}', container]);
    if (state !== 'running') {
      const logs = await run(DOCKER, ['logs', '--tail', '50', container]);
      throw new Error(`${container} is ${state}:\n${logs.stdout}${logs.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

/** Appends one measurement to test-artifacts/docker/timings.json (what the closing notes and docs quote). */
export function recordTiming(key: string, value: number | string): void {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, 'timings.json');
  const all = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>)
    : {};
  all[key] = value;
  fs.writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
}

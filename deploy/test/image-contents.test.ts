/**
 * The image works, proven without a Docker engine: the `manifests` and `build` stages of the Dockerfile are read
 * from the Dockerfile and replayed (deploy/test/dockerfile-build.ts) in a scratch copy of the build context, the
 * runtime stage's COPY of /out is applied, and the services are started from that tree the way the image starts
 * them: as uid 10001, NODE_ENV=production, `node apps/<app>/dist/main.js`, on real Postgres and Redis.
 *
 * Not covered (no Docker here): the base image itself, the runtime stage's RUN (tini, removing npm, the user),
 * tini as PID 1, BuildKit's cache mount and layer cache, and the context transfer. See docs/operations.md.
 *
 * Logs: test-artifacts/image-contents/ (build.log, one log per service, timings.json).
 * IMAGE_TEST_KEEP=1 keeps the scratch directory (its path is logged).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import {
  copyBuildContext,
  dockerignoreFilter,
  killAll,
  parseDockerfile,
  replayStage,
  rewriteRun,
  stage,
  type StageResult,
} from './dockerfile-build';
import { REPO_ROOT } from './helm-binary';
import { freePort } from '../../libs/platform/src/free-port';

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts', 'image-contents');
const dockerfile = parseDockerfile(fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'));
const SERVICES = ['gateway', 'table-service', 'timer-service'] as const;
type ServiceName = (typeof SERVICES)[number];
/** Apps with an entry point (`apps/<app>/src/main.ts`): each must have dist/main.js in the image. */
const APPS_WITH_MAIN = fs
  .readdirSync(path.join(REPO_ROOT, 'apps'))
  .filter((app) => fs.existsSync(path.join(REPO_ROOT, 'apps', app, 'src', 'main.ts')));
const LIBS = fs
  .readdirSync(path.join(REPO_ROOT, 'libs'))
  .filter((lib) => fs.existsSync(path.join(REPO_ROOT, 'libs', lib, 'package.json')));

const isRoot = process.getuid?.() === 0;
const NOT_ROOT =
  'skipped: starting the services as uid 10001 (the image USER) needs root; this run is not root';
/** Runs only as root (spawn with uid/gid); otherwise skipped with the reason in its name. */
const asServiceUser = (name: string, fn: jest.ProvidesCallback, timeout?: number) =>
  isRoot ? it(name, fn, timeout) : it.skip(`${name} (${NOT_ROOT})`, fn);

/** The environment a RUN starts from, as in the base image: PATH and HOME, plus the host's proxy settings. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: (process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin')
      .split(':')
      .filter((dir) => dir !== '' && !dir.includes('node_modules')) // not this checkout's tools
      .join(':'),
    HOME: os.homedir(), // root's home: ~/.npm is the npm cache the Dockerfile mounts at /root/.npm
  };
  for (const name of [
    'HTTP_PROXY',
    'HTTPS_PROXY',
    'NO_PROXY',
    'http_proxy',
    'https_proxy',
    'no_proxy',
    'NODE_EXTRA_CA_CERTS',
  ]) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  return env;
}

function localNpmVersion(): string {
  const r = spawnSync('npm', ['--version'], { env: baseEnv(), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm --version failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** The Dockerfile's `npm install -g npm@<version>` line: skipped when this npm already is that version. */
function skipNpmUpgrade(command: string): string | undefined {
  const m = /^npm install -g\s+"?npm@([^"\s]+)"?$/.exec(command.trim());
  if (!m) return undefined;
  const local = localNpmVersion();
  if (local !== m[1]) {
    throw new Error(
      `The Dockerfile installs npm ${m[1]} (ARG NPM_VERSION) and this machine has npm ${local}. ` +
        `This test does not install npm globally: run \`npm install -g npm@${m[1]}\` on this machine, ` +
        'or change NPM_VERSION (it must be the npm that wrote package-lock.json).',
    );
  }
  return `this machine's npm already is ${local}`;
}

/** A timer that does not keep jest alive after the race it was in is over. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

interface Running {
  readonly name: string;
  readonly child: ChildProcess;
  readonly port: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

// ---------------------------------------------------------------------------------------------------------------
// State shared by the tests, in order: each test needs the ones before it.

let scratch: string | undefined;
let runtime: StageResult | undefined;
/** The runtime stage's /app: the assembled /out of the build stage, copied as the image's COPY does. */
let appDir: string | undefined;
const timings: Record<string, number> = {};
const suiteStarted = Date.now();
const running = new Map<ServiceName, Running>();
const suffix = randomBytes(4).toString('hex');
const serverDatabaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const databaseUrl = (() => {
  const url = new URL(serverDatabaseUrl);
  url.pathname = `/dominoes_image_${suffix}`; // new: migrate must create it
  return url.toString();
})();
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisPrefix = `test_image_${suffix}`;
const tokenSecret = randomBytes(36).toString('base64url');

function built(): { appDir: string; runtime: StageResult; uid: number; gid: number } {
  if (!appDir || !runtime) throw new Error('the build above did not finish: nothing to check');
  const [uid, gid] = (runtime.user ?? '').split(':').map(Number);
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) {
    throw new Error(`the runtime stage's USER must be numeric uid:gid; got "${runtime.user}"`);
  }
  return { appDir, runtime, uid, gid };
}

/** The environment of a container of the image: its ENV (NODE_ENV=production), no HOME, plus the service's own. */
function serviceEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: '/nonexistent',
    ...built().runtime.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: redisPrefix,
    TOKEN_SECRET: tokenSecret,
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/** `node apps/<app>/dist/main.js` in the image's WORKDIR as its USER, output to test-artifacts. */
function startAsServiceUser(name: string, env: Record<string, string>, port = 0): Running {
  const { appDir: cwd, uid, gid } = built();
  const log = fs.createWriteStream(path.join(ARTIFACTS, `${name}.log`));
  const child = spawn(process.execPath, [`apps/${name}/dist/main.js`], {
    cwd,
    uid,
    gid,
    env: serviceEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const collect = (chunk: Buffer) => {
    log.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      log.end();
      resolve({ code, signal });
    }),
  );
  return { name, child, port, exited, output: () => tail };
}

async function waitReady(service: Running, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  const url = `http://127.0.0.1:${service.port}/health/ready`;
  let last = 'no answer';
  while (Date.now() - started < timeoutMs) {
    if (service.child.exitCode !== null || service.child.signalCode !== null) {
      throw new Error(
        `${service.name} exited (${service.child.exitCode ?? service.child.signalCode}) before ${url} answered 200:\n${service.output()}`,
      );
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
      if (response.status === 200) return Date.now() - started;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = String(error);
    }
    await sleep(200);
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (last: ${last}):\n${service.output()}`);
}

/** Every file and directory under dir (lstat), symlinks not followed. */
function* walk(dir: string): Generator<{ file: string; stat: fs.Stats }> {
  for (const entry of fs.readdirSync(dir)) {
    const file = path.join(dir, entry);
    const stat = fs.lstatSync(file);
    yield { file, stat };
    if (stat.isDirectory()) yield* walk(file);
  }
}

afterAll(async () => {
  killAll(); // a RUN still going (timeout)
  for (const service of running.values()) {
    if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
  }
  await Promise.all([...running.values()].map((s) => Promise.race([s.exited, sleep(5000)])));
  const admin = new URL(serverDatabaseUrl);
  admin.pathname = '/postgres';
  const pg = new Client({ connectionString: admin.toString() });
  await pg
    .connect()
    .then(() => pg.query(`drop database if exists "dominoes_image_${suffix}" with (force)`))
    .catch(() => undefined)
    .finally(() => pg.end().catch(() => undefined));
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } catch {
    // Redis down: nothing was written either
  } finally {
    redis.disconnect();
  }
  if (scratch && process.env.IMAGE_TEST_KEEP !== '1') {
    const started = Date.now();
    // About 1.2 GB of node_modules in four trees: rm -rf in a child, so that jest's timeout still applies.
    await new Promise((resolve) =>
      spawn('rm', ['-rf', scratch!], { stdio: 'ignore' }).once('close', resolve),
    );
    timings['remove scratch'] = (Date.now() - started) / 1000;
  }
  timings.total = (Date.now() - suiteStarted) / 1000;
  if (Object.keys(timings).length > 1) {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, 'timings.json'), `${JSON.stringify(timings, null, 2)}\n`);
    console.log(`image-contents timings (s): ${JSON.stringify(timings)}`);
  }
}, 300_000); // removing the scratch trees takes from 5 s to a minute, depending on the machine's load

describe('the replay of Dockerfile stages (deploy/test/dockerfile-build.ts) refuses what it cannot do faithfully', () => {
  it("maps /src, /app and /out into the stage's scratch directory and refuses any other absolute path", () => {
    expect(rewriteRun('mkdir -p /out && cp -a x "/out/$dir/" 2>/dev/null', '/s', 'build')).toBe(
      'mkdir -p /s/build/out && cp -a x "/s/build/out/$dir/" 2>/dev/null',
    );
    expect(() => rewriteRun('cp x /usr/local/lib/', '/s', 'build')).toThrow(/RUN uses \/usr/);
    expect(() => rewriteRun('cd / && ls', '/s', 'build')).toThrow(/RUN uses \//);
  });

  it('refuses instructions, COPY flags and RUN flags it does not carry out (other than a cache mount)', async () => {
    const scratchDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dominoes-replay-'));
    const log = fs.createWriteStream(path.join(scratchDir, 'log'));
    const options = { scratch: scratchDir, context: scratchDir, baseEnv: baseEnv(), globalArgs: {}, log };
    const replay = (body: string) =>
      replayStage(stage(parseDockerfile(`FROM node:20 AS s\nWORKDIR /app\n${body}\n`), 's'), options, {});
    try {
      await expect(replay('ADD x.tgz ./')).rejects.toThrow(/ADD is not supported/);
      await expect(replay('COPY --chown=1:1 . .')).rejects.toThrow(/COPY --chown=1:1 is not supported/);
      await expect(replay('RUN --network=none true')).rejects.toThrow(/RUN --network=none is not supported/);
      const ok = await replay(
        'ENV A=1 \\\n    B="two words"\nRUN --mount=type=cache,target=/root/.npm test "$B" = "two words"',
      );
      expect(ok.ran.map((r) => r.command)).toEqual(['test "$B" = "two words"']);
      await expect(replay('RUN false')).rejects.toThrow(/line 3 .* failed \(exit 1\)/);
    } finally {
      await new Promise((resolve) => log.end(resolve));
      fs.rmSync(scratchDir, { recursive: true, force: true });
    }
  });

  it('reads .dockerignore as Docker does: directories exclude their contents, ** spans directories', () => {
    const keep = dockerignoreFilter('**/node_modules\n**/*.tsbuildinfo\ndeploy\n.env.*\n!deploy/keep\n');
    expect(
      ['apps/a/node_modules/x', 'node_modules/x', 'a/b/c.tsbuildinfo', 'deploy/x', '.env.local'].filter(keep),
    ).toEqual([]);
    expect(['apps/a/src/main.ts', 'deploy/keep', '.envrc', 'x/deploy'].filter(keep)).toEqual([
      'apps/a/src/main.ts',
      'deploy/keep',
      '.envrc',
      'x/deploy',
    ]);
  });

  it("stops with a clear message when the Dockerfile's npm is not this machine's (it never installs npm globally)", () => {
    expect(() => skipNpmUpgrade('npm install -g "npm@0.0.1"')).toThrow(/does not install npm globally/);
    expect(skipNpmUpgrade(`npm install -g "npm@${localNpmVersion()}"`)).toMatch(/already is/);
    expect(skipNpmUpgrade('npm ci')).toBeUndefined();
  });
});

describe('the image, built from the Dockerfile without Docker and started as its runtime stage starts it', () => {
  beforeAll(() => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    if (!isRoot) console.warn(`image-contents: ${NOT_ROOT}`);
  });

  it("reads the manifests, build and runtime stages from the Dockerfile, on this machine's Node major and npm", () => {
    for (const name of ['manifests', 'build', 'runtime']) expect(stage(dockerfile, name).name).toBe(name);
    const runs = (name: string) => stage(dockerfile, name).instructions.filter((i) => i.keyword === 'RUN');
    expect(runs('manifests').length).toBeGreaterThan(0);
    const buildRuns = runs('build').map((i) => i.args);
    for (const step of [/\bnpm ci\b/, /\bnpm run build\b/, /\bnpm prune\b/]) {
      expect({ step: String(step), found: buildRuns.some((r) => step.test(r)) }).toEqual({
        step: String(step),
        found: true,
      });
    }
    const copies = stage(dockerfile, 'runtime').instructions.filter((i) => i.keyword === 'COPY');
    expect(copies.map((c) => c.args)).toEqual(['--from=build /out/ ./']);

    // The replay uses this machine's node and npm in place of the base image's.
    const image = stage(dockerfile, 'build').image;
    const imageMajor = /^node:(\d+)[-.]/.exec(image)?.[1];
    expect({ image, nodeMajor: process.versions.node.split('.')[0] }).toEqual({
      image,
      nodeMajor: imageMajor,
    });
    const pinned = dockerfile.globalArgs.NPM_VERSION;
    const local = localNpmVersion();
    if (pinned !== local) {
      throw new Error(
        `The Dockerfile pins npm ${pinned} (ARG NPM_VERSION); this machine has npm ${local}. Install npm ${pinned} ` +
          '(this test does not install it globally) or fix NPM_VERSION.',
      );
    }
  });

  it(
    "runs the manifests and build stages' RUN commands (npm ci, npm run build, npm prune) in a scratch copy of the build context",
    async () => {
      const t0 = Date.now();
      scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'dominoes-image-'));
      fs.chmodSync(scratch, 0o755); // uid 10001 must reach the runtime /app inside it
      if (process.env.IMAGE_TEST_KEEP === '1') console.log(`image-contents scratch: ${scratch}`);
      const context = path.join(scratch, 'context');
      const files = copyBuildContext(REPO_ROOT, context);
      expect(files).toContain('package-lock.json');
      expect(files.filter((f) => /(^|\/)(node_modules|dist)\//.test(f))).toEqual([]);
      timings.context = (Date.now() - t0) / 1000;

      const log = fs.createWriteStream(path.join(ARTIFACTS, 'build.log'));
      const options = {
        scratch,
        context,
        baseEnv: baseEnv(),
        globalArgs: dockerfile.globalArgs,
        log,
        beforeRun: skipNpmUpgrade,
      };
      const stages: Record<string, StageResult> = {};
      try {
        for (const name of ['manifests', 'build']) {
          const started = Date.now();
          stages[name] = await replayStage(stage(dockerfile, name), options, stages);
          timings[`stage ${name}`] = (Date.now() - started) / 1000;
          for (const r of stages[name].ran) timings[`${name}: ${r.command.slice(0, 40)}`] = r.seconds;
        }
        const started = Date.now();
        // The runtime stage: WORKDIR, ENV, COPY --from=build /out/ ./, USER, CMD; its RUN is the base image's
        // system setup (tini, npm removed, the user) and is not replayed.
        runtime = await replayStage(stage(dockerfile, 'runtime'), { ...options, run: false }, stages);
        timings['runtime COPY'] = (Date.now() - started) / 1000;
      } finally {
        await new Promise((resolve) => log.end(resolve));
      }
      expect(stages.build.env).toMatchObject({ NX_DAEMON: 'false' }); // the build stage's ENV was used
      // Only the npm upgrade was skipped (this npm already is that version).
      expect(stages.build.skipped.filter((s) => !/^npm install -g\s+"?npm@/.test(s.command))).toEqual([]);
      expect(runtime.cmd).toEqual(['node', 'apps/gateway/dist/main.js']);
      appDir = runtime.workdir;
      timings.build = (Date.now() - t0) / 1000;
    },
    15 * 60_000,
  );

  it('ships production dependencies only: every non-dev, non-optional lockfile package, and no typescript, jest, prisma CLI or other dev dependency', () => {
    const { appDir: app } = built();
    const lock = JSON.parse(fs.readFileSync(path.join(app, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean }>;
    };
    const wrong: string[] = [];
    for (const [key, p] of Object.entries(lock.packages)) {
      if (!key.includes('node_modules/')) continue;
      const wanted = !p.dev && !p.optional && !p.devOptional;
      const present = fs.existsSync(path.join(app, key));
      if (wanted !== present) wrong.push(`${key}: ${present ? 'present, should not be' : 'missing'}`);
    }
    expect(wrong).toEqual([]);
    const root = JSON.parse(fs.readFileSync(path.join(app, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    for (const dev of ['typescript', 'jest', 'prisma', 'vite', '@swc/core', 'nx', 'eslint']) {
      expect(root.devDependencies).toHaveProperty([dev]);
      expect({ dev, present: fs.existsSync(path.join(app, 'node_modules', dev)) }).toEqual({
        dev,
        present: false,
      });
    }
    for (const bin of ['tsc', 'jest', 'prisma', 'vite']) {
      expect({ bin, present: fs.existsSync(path.join(app, 'node_modules', '.bin', bin)) }).toEqual({
        bin,
        present: false,
      });
    }
    expect(fs.existsSync(path.join(app, 'node_modules', '@prisma', 'client', 'package.json'))).toBe(true);
  });

  it("has each app's dist/main.js, the libraries' dist, the web client's dist for the gateway, and no *.tsbuildinfo, sources or npm cache", () => {
    const { appDir: app } = built();
    expect(APPS_WITH_MAIN).toEqual(expect.arrayContaining([...SERVICES, 'migrate']));
    for (const name of APPS_WITH_MAIN) {
      const main = `apps/${name}/dist/main.js`;
      expect({ main, present: fs.existsSync(path.join(app, main)) }).toEqual({ main, present: true });
    }
    for (const lib of LIBS) {
      const pkg = JSON.parse(fs.readFileSync(path.join(app, 'libs', lib, 'package.json'), 'utf8')) as {
        main: string;
      };
      const main = `libs/${lib}/${pkg.main}`;
      expect({ main, present: fs.existsSync(path.join(app, main)) }).toEqual({ main, present: true });
    }
    const web = path.join(app, 'apps', 'web', 'dist');
    expect(fs.readFileSync(path.join(web, 'index.html'), 'utf8')).toMatch(
      /<script type="module"[^>]+\/assets\//,
    );
    expect(fs.readdirSync(path.join(web, 'assets')).some((f) => f.endsWith('.js'))).toBe(true);
    expect(fs.existsSync(path.join(app, 'prisma', 'migrations'))).toBe(true);

    const unwanted: string[] = [];
    for (const { file, stat } of walk(app)) {
      const rel = path.relative(app, file);
      if (rel.endsWith('.tsbuildinfo')) unwanted.push(rel);
      if (stat.isDirectory() && /^(apps|libs)\/[^/]+\/src$/.test(rel)) unwanted.push(rel);
    }
    expect(unwanted).toEqual([]);
    expect(fs.existsSync(path.join(app, 'node_modules', '.cache'))).toBe(false);
  });

  asServiceUser(
    "is owned by root, readable by uid 10001 (the runtime stage's USER), and not writable by it",
    () => {
      const { appDir: app, uid, gid } = built();
      expect({ uid, gid }).toEqual({ uid: 10001, gid: 10001 });
      // COPY without --chown: everything belongs to root.
      const chown = spawnSync('chown', ['-R', '-h', '0:0', app], { encoding: 'utf8' });
      expect(chown.stderr).toBe('');
      // uid 10001 is "other" for every file: it needs o+r (o+rx on directories) and must not have o+w.
      const wrong: string[] = [];
      for (const { file, stat } of walk(app)) {
        if (wrong.length > 20) break;
        const rel = path.relative(app, file);
        if (stat.uid !== 0 || stat.gid !== 0) wrong.push(`${rel}: owned by ${stat.uid}:${stat.gid}`);
        if (stat.isSymbolicLink()) continue;
        const need = stat.isDirectory() ? 0o005 : 0o004;
        if ((stat.mode & need) !== need)
          wrong.push(`${rel}: mode ${(stat.mode & 0o777).toString(8)}, not readable`);
        if (stat.mode & 0o002) wrong.push(`${rel}: mode ${(stat.mode & 0o777).toString(8)}, world-writable`);
      }
      for (let dir = app; dir !== path.dirname(dir); dir = path.dirname(dir)) {
        if ((fs.statSync(dir).mode & 0o001) === 0) wrong.push(`${dir}: not traversable by uid 10001`);
      }
      expect(wrong).toEqual([]);

      // And as that user: reads work, writes fail, except in /tmp.
      const probe = `
        const fs = require('node:fs');
        const attempt = (f) => { try { f(); return 'ok'; } catch (e) { return e.code; } };
        console.log(JSON.stringify({
          uid: process.getuid(), gid: process.getgid(), groups: process.getgroups(),
          read: attempt(() => fs.readFileSync('apps/gateway/dist/main.js')),
          createInApp: attempt(() => fs.writeFileSync('probe', 'x')),
          createInDist: attempt(() => fs.writeFileSync('apps/gateway/dist/probe.js', 'x')),
          createInNodeModules: attempt(() => fs.writeFileSync('node_modules/probe.js', 'x')),
          overwriteMain: attempt(() => fs.writeFileSync('apps/gateway/dist/main.js', 'x')),
          removeMain: attempt(() => fs.unlinkSync('apps/gateway/dist/main.js')),
          tmp: attempt(() => fs.rmSync(fs.mkdtempSync(require('node:os').tmpdir() + '/probe-'), { recursive: true })),
        }));`;
      const r = spawnSync(process.execPath, ['-e', probe], {
        cwd: app,
        uid,
        gid,
        env: serviceEnv({}),
        encoding: 'utf8',
      });
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual({
        uid: 10001,
        gid: 10001,
        groups: [10001],
        read: 'ok',
        createInApp: 'EACCES',
        createInDist: 'EACCES',
        createInNodeModules: 'EACCES',
        overwriteMain: 'EACCES',
        removeMain: 'EACCES',
        tmp: 'ok',
      });
    },
  );

  asServiceUser(
    'as uid 10001 with NODE_ENV=production: `node apps/migrate/dist/main.js` creates a new database, applies every migration and exits 0',
    async () => {
      const started = Date.now();
      const migrate = startAsServiceUser('migrate', {});
      const exit = await Promise.race([migrate.exited, sleep(60_000).then(() => 'timeout' as const)]);
      expect({ exit, output: exit === 'timeout' || exit.code !== 0 ? migrate.output() : '' }).toEqual({
        exit: { code: 0, signal: null },
        output: '',
      });
      timings.migrate = (Date.now() - started) / 1000;
      const pg = new Client({ connectionString: databaseUrl });
      await pg.connect();
      try {
        const applied = await pg.query(
          'select migration_name from "_prisma_migrations" where finished_at is not null order by 1',
        );
        const expected = fs
          .readdirSync(path.join(built().appDir, 'prisma', 'migrations'), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => d.name)
          .sort();
        expect(applied.rows.map((r: { migration_name: string }) => r.migration_name)).toEqual(expected);
      } finally {
        await pg.end();
      }
    },
  );

  asServiceUser(
    'as uid 10001 with NODE_ENV=production: gateway, table-service and timer-service start and answer /health/ready with 200',
    async () => {
      expect(built().runtime.env.NODE_ENV).toBe('production');
      const started = Date.now();
      for (const name of SERVICES) {
        const port = await freePort();
        const extra: Record<string, string> = { PORT: String(port) };
        if (name === 'gateway') extra.PUBLIC_URL = `http://127.0.0.1:${port}`;
        const service = startAsServiceUser(name, extra, port);
        running.set(name, service);
      }
      const ready = await Promise.all(SERVICES.map((name) => waitReady(running.get(name)!)));
      SERVICES.forEach((name, i) => (timings[`${name} ready`] = ready[i] / 1000));
      timings.services = (Date.now() - started) / 1000;
      for (const name of SERVICES) {
        const live = await fetch(`http://127.0.0.1:${running.get(name)!.port}/health/live`);
        expect({ name, live: live.status }).toEqual({ name, live: 200 });
      }
    },
  );

  asServiceUser('the gateway serves the built web page at / and its script from apps/web/dist', async () => {
    const gateway = running.get('gateway');
    if (!gateway) throw new Error('the gateway did not start');
    const base = `http://127.0.0.1:${gateway.port}`;
    const page = await fetch(`${base}/`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).not.toContain('not built yet');
    const script = /<script type="module"[^>]*src="([^"]+)"/.exec(html)?.[1];
    expect(script).toMatch(/^\/assets\/.+\.js$/);
    const asset = await fetch(`${base}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(await asset.text()).toBe(
      fs.readFileSync(path.join(built().appDir, 'apps', 'web', 'dist', script!.slice(1)), 'utf8'),
    );
  });

  asServiceUser(
    'each service exits 0 within 10 s of SIGTERM (what tini forwards on docker stop)',
    async () => {
      expect([...running.keys()].sort()).toEqual([...SERVICES].sort());
      const results = await Promise.all(
        SERVICES.map(async (name) => {
          const service = running.get(name)!;
          const started = Date.now();
          service.child.kill('SIGTERM');
          const exit = await Promise.race([
            service.exited,
            sleep(10_000).then(() => 'still running' as const),
          ]);
          timings[`${name} stop`] = (Date.now() - started) / 1000;
          return { name, exit, output: exit === 'still running' || exit.code !== 0 ? service.output() : '' };
        }),
      );
      expect(results).toEqual(
        SERVICES.map((name) => ({ name, exit: { code: 0, signal: null }, output: '' })),
      );
    },
  );
});

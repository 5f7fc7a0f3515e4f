/**
 * The project's image, built from the Dockerfile by a real Docker engine (BuildKit) and run: migrate and the
 * three services as containers on this machine's network, a partnership round played through the container
 * gateway with real WebSocket clients, and what the image promises (production dependencies only, uid 10001,
 * tini as PID 1, an app tree the service user cannot write, health, a clean exit on `docker stop`).
 *
 * The engine: `bash ../shared/docker/engine.sh` on these machines (.ci/run starts it), or a laptop's Docker.
 * Without one the suite is skipped, except in CI (CI=true), where a missing engine fails it.
 * Logs and timings: test-artifacts/docker/ (build.log, <container>.log, timings.json).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../libs/platform/src/free-port';
import {
  ARTIFACTS,
  REPO_ROOT,
  buildImage,
  docker,
  engineStatus,
  localDockerfile,
  recordTiming,
  removeContainers,
  run,
  runDetached,
  waitForOk,
  DOCKER,
} from './engine';
import { gatewayAt, playPartnershipRound } from './play-round';

const engine = engineStatus();
const suite = engine.ok || process.env.CI === 'true' ? describe : describe.skip;
const reason = engine.ok ? '' : ` (skipped: ${engine.reason}; run bash ../shared/docker/engine.sh)`;

export const IMAGE = 'dominoes:ci';
const SERVICES = ['gateway', 'table-service', 'timer-service'] as const;
type ServiceName = (typeof SERVICES)[number];

const suffix = randomBytes(4).toString('hex');
const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const databaseUrl = (() => {
  const url = new URL(serverUrl);
  url.pathname = `/dominoes_docker_${suffix}`; // new: the container's migrate creates it
  return url.toString();
})();
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const containers = new Map<ServiceName, { name: string; port: number }>();
let built = false;

/** Runs `node -e script` in a throw-away container of the image (its USER, its WORKDIR) and parses its JSON. */
async function inImage<T>(script: string, args: readonly string[] = []): Promise<T> {
  const out = await docker(['run', '--rm', '--network', 'none', IMAGE, 'node', '-e', script, ...args]);
  return JSON.parse(out) as T;
}

function requireBuilt(): void {
  if (!built) throw new Error('the image build above did not finish: nothing to check');
}

suite(`the image, built by a real Docker engine from the Dockerfile${reason}`, () => {
  beforeAll(() => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    if (!engine.ok)
      throw new Error(`CI needs a Docker engine: ${engine.reason} (bash ../shared/docker/engine.sh)`);
  });
  afterAll(async () => {
    for (const { name } of containers.values()) {
      const logs = await run(DOCKER, ['logs', name]).catch(() => null);
      if (logs) fs.writeFileSync(path.join(ARTIFACTS, `${name}.log`), logs.stdout + logs.stderr);
    }
    await removeContainers([...containers.values()].map((c) => c.name));
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin
      .query(`drop database if exists "dominoes_docker_${suffix}" with (force)`)
      .catch(() => undefined);
    await admin.end();
  });

  it(
    'builds with BuildKit, the Dockerfile changed in nothing but its `# syntax=` line',
    async () => {
      const { file, dropped } = localDockerfile();
      const original = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8').split('\n');
      expect(dropped.every((line) => line.startsWith('# syntax='))).toBe(true);
      expect(fs.readFileSync(file, 'utf8').split('\n')).toEqual(original.slice(dropped.length));

      const { seconds, bytes } = await buildImage(IMAGE, path.join(ARTIFACTS, 'build.log'));
      recordTiming('image build seconds', seconds);
      recordTiming('image bytes', bytes);
      console.log(`image ${IMAGE}: built in ${seconds.toFixed(0)} s, ${(bytes / 1e6).toFixed(0)} MB`);
      built = true;
      const config = JSON.parse(
        await docker(['image', 'inspect', '--format', '{{json .Config}}', IMAGE]),
      ) as {
        User: string;
        Entrypoint: string[];
        Cmd: string[];
        WorkingDir: string;
        Env: string[];
      };
      expect(config).toMatchObject({
        User: '10001:10001',
        Entrypoint: ['/usr/bin/tini', '--'],
        Cmd: ['node', 'apps/gateway/dist/main.js'],
        WorkingDir: '/app',
      });
      expect(config.Env).toContain('NODE_ENV=production');
    },
    20 * 60_000,
  );

  it('holds production dependencies only: every non-dev, non-optional lockfile package, and no typescript, jest, prisma CLI, vite, swc, nx or eslint', async () => {
    requireBuilt();
    const found = await inImage<{
      wrong: string[];
      devPresent: string[];
      binsPresent: string[];
      client: boolean;
    }>(`
      const fs = require('node:fs');
      const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
      const wrong = [];
      for (const [key, p] of Object.entries(lock.packages)) {
        if (!key.includes('node_modules/')) continue;
        const wanted = !p.dev && !p.optional && !p.devOptional;
        const present = fs.existsSync(key);
        if (wanted !== present) wrong.push(key + (present ? ': present, should not be' : ': missing'));
      }
      const dev = JSON.parse(fs.readFileSync('package.json', 'utf8')).devDependencies;
      const tools = ['typescript', 'jest', 'prisma', 'vite', '@swc/core', 'nx', 'eslint'];
      console.log(JSON.stringify({
        wrong,
        devPresent: tools.filter((d) => !dev[d] || fs.existsSync('node_modules/' + d)),
        binsPresent: ['tsc', 'jest', 'prisma', 'vite', 'eslint'].filter((b) => fs.existsSync('node_modules/.bin/' + b)),
        client: fs.existsSync('node_modules/@prisma/client/package.json'),
      }));`);
    expect(found).toEqual({ wrong: [], devPresent: [], binsPresent: [], client: true });
  });

  it("has each app's dist/main.js, the libraries' dist, the web client's build, the migrations, and no sources, *.tsbuildinfo, npm or npm cache", async () => {
    requireBuilt();
    const found = await inImage<Record<string, unknown>>(`
      const fs = require('node:fs');
      const path = require('node:path');
      const apps = fs.readdirSync('apps');
      const libs = fs.readdirSync('libs');
      const unwanted = [];
      const walk = (dir) => { for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (p.endsWith('.tsbuildinfo') || /^(apps|libs)\\/[^/]+\\/src$/.test(p)) unwanted.push(p);
        if (e.isDirectory() && e.name !== 'node_modules') walk(p);
      } };
      walk('apps'); walk('libs');
      const onPath = (bin) => (process.env.PATH || '').split(':').some((d) => fs.existsSync(path.join(d, bin)));
      console.log(JSON.stringify({
        mains: apps.filter((a) => a !== 'web').map((a) => [a, fs.existsSync('apps/' + a + '/dist/main.js')]),
        libs: libs.map((l) => [l, fs.existsSync(path.join('libs', l, JSON.parse(fs.readFileSync('libs/' + l + '/package.json', 'utf8')).main))]),
        web: /<script type="module"[^>]+\\/assets\\//.test(fs.readFileSync('apps/web/dist/index.html', 'utf8')),
        migrations: fs.readdirSync('prisma/migrations').filter((d) => fs.statSync('prisma/migrations/' + d).isDirectory()).length,
        unwanted,
        npmCache: fs.existsSync('node_modules/.cache'),
        tools: ['npm', 'npx', 'corepack', 'yarn'].filter(onPath),
      }));`);
    const mains = found.mains as [string, boolean][];
    expect(mains.map(([app]) => app)).toEqual(expect.arrayContaining([...SERVICES, 'migrate']));
    expect(mains.filter(([, present]) => !present)).toEqual([]);
    expect((found.libs as [string, boolean][]).filter(([, present]) => !present)).toEqual([]);
    expect(found).toMatchObject({ web: true, unwanted: [], npmCache: false, tools: [] });
    const migrations = fs
      .readdirSync(path.join(REPO_ROOT, 'prisma', 'migrations'), { withFileTypes: true })
      .filter((d) => d.isDirectory()).length;
    expect(found.migrations).toBe(migrations);
  });

  it('runs as uid 10001, and the app tree is owned by root and not writable by that user (only /tmp is)', async () => {
    requireBuilt();
    const probe = await inImage<Record<string, unknown>>(`
      const fs = require('node:fs');
      const attempt = (f) => { try { f(); return 'ok'; } catch (e) { return e.code; } };
      console.log(JSON.stringify({
        uid: process.getuid(), gid: process.getgid(),
        read: attempt(() => fs.readFileSync('apps/gateway/dist/main.js')),
        createInApp: attempt(() => fs.writeFileSync('probe', 'x')),
        createInDist: attempt(() => fs.writeFileSync('apps/gateway/dist/probe.js', 'x')),
        createInNodeModules: attempt(() => fs.writeFileSync('node_modules/probe.js', 'x')),
        overwriteMain: attempt(() => fs.writeFileSync('apps/gateway/dist/main.js', 'x')),
        removeMain: attempt(() => fs.unlinkSync('apps/gateway/dist/main.js')),
        tmp: attempt(() => fs.rmSync(fs.mkdtempSync(require('node:os').tmpdir() + '/probe-'), { recursive: true })),
      }));`);
    expect(probe).toEqual({
      uid: 10001,
      gid: 10001,
      read: 'ok',
      createInApp: 'EACCES',
      createInDist: 'EACCES',
      createInNodeModules: 'EACCES',
      overwriteMain: 'EACCES',
      removeMain: 'EACCES',
      tmp: 'ok',
    });
    // Every file of /app is root's, and none is writable by others (symbolic links aside).
    const notRoots = await docker([
      'run', '--rm', '--network', 'none', '--entrypoint', 'find', IMAGE, '/app',
      '(', '!', '-user', '0', '-o', '!', '-group', '0', '-o', '(', '!', '-type', 'l', '-perm', '-o+w', ')', ')',
      '-print',
    ]); // prettier-ignore
    expect(notRoots.split('\n').filter(Boolean).slice(0, 20)).toEqual([]);
  });

  it('`node apps/migrate/dist/main.js` creates a new database, applies every migration and exits 0', async () => {
    requireBuilt();
    const result = await run(
      DOCKER,
      [
        'run',
        '--rm',
        '--network',
        'host',
        '-e',
        `DATABASE_URL=${databaseUrl}`,
        IMAGE,
        'node',
        'apps/migrate/dist/main.js',
      ],
      { timeoutMs: 120_000, log: path.join(ARTIFACTS, 'migrate.log') },
    );
    expect({ code: result.code, output: result.code === 0 ? '' : result.stdout + result.stderr }).toEqual({
      code: 0,
      output: '',
    });
    recordTiming('migrate seconds', result.seconds);
    const pg = new Client({ connectionString: databaseUrl });
    await pg.connect();
    try {
      const applied = await pg.query<{ migration_name: string }>(
        'select migration_name from "_prisma_migrations" where finished_at is not null order by 1',
      );
      const expected = fs
        .readdirSync(path.join(REPO_ROOT, 'prisma', 'migrations'), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort();
      expect(applied.rows.map((r) => r.migration_name)).toEqual(expected);
    } finally {
      await pg.end();
    }
  });

  it('gateway, table-service and timer-service start as containers, under tini as PID 1, and answer /health/ready and /health/live with 200', async () => {
    requireBuilt();
    const tokenSecret = randomBytes(36).toString('base64url');
    for (const service of SERVICES) {
      const port = await freePort();
      const name = `dominoes-ci-${service}-${suffix}`;
      const env: Record<string, string> = {
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        REDIS_PREFIX: `test_docker_${suffix}`,
        TABLE_SHARDS: '4',
        PORT: String(port),
        LOG_LEVEL: 'info',
      };
      if (service === 'gateway') {
        Object.assign(env, {
          TOKEN_SECRET: tokenSecret,
          PUBLIC_URL: `http://127.0.0.1:${port}`,
          METRICS_PORT: String(await freePort()),
        });
      }
      await runDetached(IMAGE, name, env, ['node', `apps/${service}/dist/main.js`]);
      containers.set(service, { name, port });
    }
    const started = Date.now();
    for (const [service, { name, port }] of containers) {
      const ms = await waitForOk(`http://127.0.0.1:${port}/health/ready`, name);
      recordTiming(`${service} ready ms`, ms);
      const live = await fetch(`http://127.0.0.1:${port}/health/live`);
      expect({ service, live: live.status }).toEqual({ service, live: 200 });
      const pid1 = await docker(['exec', name, 'cat', '/proc/1/cmdline']);
      expect({ service, pid1: pid1.split('\0').filter(Boolean) }).toEqual({
        service,
        pid1: ['/usr/bin/tini', '--', 'node', `apps/${service}/dist/main.js`],
      });
      expect(await docker(['exec', name, 'id', '-u'])).toBe('10001');
    }
    recordTiming('services ready seconds', (Date.now() - started) / 1000);
  }, 180_000);

  it('the container gateway serves the web page, and four WebSocket clients play a partnership round through it to its score with no hidden tile in any frame (P12)', async () => {
    const gateway = containers.get('gateway');
    if (!gateway) throw new Error('the gateway container did not start');
    const base = `http://127.0.0.1:${gateway.port}`;
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    const script = /<script type="module"[^>]*src="([^"]+)"/.exec(await page.text())?.[1];
    expect(script).toMatch(/^\/assets\/.+\.js$/);
    expect((await fetch(`${base}${script}`)).status).toBe(200);

    const played = await playPartnershipRound(gatewayAt(base), databaseUrl, 11);
    expect(played.view.game?.roundResult).not.toBeNull();
    expect(played.log.filter((r) => r.kind === 'round-dealt')).toHaveLength(1);
    expect(played.log.length).toBeGreaterThan(8);
    expect(played.frames).toBeGreaterThan(20);
    expect(played.leaked).toEqual([]);
  }, 180_000);

  it('each service container exits 0 on `docker stop` (SIGTERM through tini), well within the 30 s grace period', async () => {
    expect([...containers.keys()].sort()).toEqual([...SERVICES].sort());
    const results = await Promise.all(
      [...containers].map(async ([service, { name }]) => {
        const started = Date.now();
        await docker(['stop', '-t', '30', name], { timeoutMs: 60_000 });
        const seconds = (Date.now() - started) / 1000;
        recordTiming(`${service} stop seconds`, seconds);
        const exit = Number(await docker(['inspect', '--format', '{{.State.ExitCode}}', name]));
        return { service, exit, withinTenSeconds: seconds < 10 };
      }),
    );
    expect(results).toEqual(
      [...containers.keys()].map((service) => ({ service, exit: 0, withinTenSeconds: true })),
    );
  }, 120_000);
});

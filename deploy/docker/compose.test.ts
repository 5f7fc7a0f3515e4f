/**
 * The whole docker-compose.yml brought up for real with the runner these machines have (docker-compose v1.29),
 * every health check waited for, a partnership round played through its gateway, then `down -v`.
 *
 * Compose v1 refuses the file's top-level `name:` key, so it runs on a copy without that one line (and with
 * `-p`, which is what the key says); nothing else of the file changes, and the first test checks that. v1 also
 * cannot build `RUN --mount` itself: the image is built as deploy/docker/image.test.ts builds it (BuildKit,
 * from its layer cache when that suite ran first) and tagged with the names compose gives its four app services.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from '../../libs/platform/src/free-port';
import {
  ARTIFACTS,
  REPO_ROOT,
  buildImage,
  docker,
  engineStatus,
  hasImage,
  recordTiming,
  run,
} from './engine';
import { gatewayAt, playPartnershipRound } from './play-round';

const engine = engineStatus();
const compose = (() => {
  const r = engine.ok ? spawnSync('docker-compose', ['version', '--short'], { encoding: 'utf8' }) : null;
  return r && r.status === 0 ? r.stdout.trim() : null;
})();
const suite = (engine.ok && compose) || process.env.CI === 'true' ? describe : describe.skip;
const reason = !engine.ok
  ? ` (skipped: ${engine.reason}; run bash ../shared/docker/engine.sh)`
  : compose
    ? ''
    : ' (skipped: no docker-compose; apt-get install docker-compose)';

const PROJECT = `dominoes-ci-${randomBytes(3).toString('hex')}`;
const APP_SERVICES = ['gateway', 'migrate', 'table-service', 'timer-service'];
const HEALTHY = ['gateway', 'table-service', 'timer-service', 'postgres', 'redis'];
/** The observability profile's images (docker-compose.yml's defaults): no registry here serves them. */
const OBSERVABILITY_IMAGES = [
  'jaegertracing/all-in-one:1.62.0',
  'otel/opentelemetry-collector-contrib:0.125.0',
];

let composeFile = '';
let env: NodeJS.ProcessEnv = {};
let gatewayPort = 0;

const composeArgs = (...args: string[]) => [
  '-p',
  PROJECT,
  '-f',
  composeFile,
  '--project-directory',
  REPO_ROOT,
  ...args,
];
async function dockerCompose(args: string[], timeoutMs = 300_000) {
  const result = await run('docker-compose', composeArgs(...args), {
    env,
    timeoutMs,
    log: path.join(ARTIFACTS, 'compose.log'),
  });
  if (result.code !== 0)
    throw new Error(`docker-compose ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
  return result;
}

interface ContainerState {
  service: string;
  status: string;
  health: string;
  exitCode: number;
}
async function states(): Promise<ContainerState[]> {
  const ids = (await dockerCompose(['ps', '-a', '-q'])).stdout.split('\n').filter(Boolean);
  if (ids.length === 0) return [];
  const format =
    '{{index .Config.Labels "com.docker.compose.service"}} {{.State.Status}} ' +
    '{{if .State.Health}}{{.State.Health.Status}}{{else}}-{{end}} {{.State.ExitCode}}';
  const out = await docker(['inspect', '--format', format, ...ids]);
  return out.split('\n').map((line) => {
    const [service, status, health, exitCode] = line.split(' ');
    return { service: service!, status: status!, health: health!, exitCode: Number(exitCode) };
  });
}

/** Until every service with a health check is healthy and migrate exited 0; a service that gives up fails it. */
async function waitHealthy(timeoutMs: number): Promise<ContainerState[]> {
  const started = Date.now();
  let last: ContainerState[] = [];
  while (Date.now() - started < timeoutMs) {
    last = await states();
    const by = new Map(last.map((s) => [s.service, s]));
    const migrate = by.get('migrate');
    if (migrate && migrate.status === 'exited' && migrate.exitCode !== 0) {
      throw new Error(
        `migrate exited ${migrate.exitCode}: ${(await dockerCompose(['logs', 'migrate'])).stdout}`,
      );
    }
    const unhealthy = last.filter((s) => s.health === 'unhealthy');
    if (unhealthy.length > 0) {
      const health = await Promise.all(
        unhealthy.map(async (s) => {
          const id = (await dockerCompose(['ps', '-q', s.service])).stdout.trim();
          return `${s.service}: ${await docker(['inspect', '--format', '{{json .State.Health}}', id])}`;
        }),
      );
      throw new Error(`unhealthy:\n${health.join('\n')}`);
    }
    if (HEALTHY.every((s) => by.get(s)?.health === 'healthy') && migrate?.status === 'exited') return last;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`not healthy within ${timeoutMs} ms: ${JSON.stringify(last)}`);
}

/** The compose Postgres from this machine: its container's address on the project's network. */
async function composeDatabaseUrl(): Promise<string> {
  const id = (await dockerCompose(['ps', '-q', 'postgres'])).stdout.trim();
  const ip = await docker([
    'inspect',
    '--format',
    '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}',
    id,
  ]);
  return `postgresql://postgres:postgres@${ip}:5432/dominoes`;
}

async function leftovers(): Promise<{ containers: string[]; volumes: string[]; networks: string[] }> {
  const filter = `label=com.docker.compose.project=${PROJECT}`;
  const list = async (args: string[]) => (await docker(args)).split('\n').filter(Boolean);
  return {
    containers: await list(['ps', '-a', '-q', '--filter', filter]),
    volumes: await list(['volume', 'ls', '-q', '--filter', filter]),
    networks: await list(['network', 'ls', '-q', '--filter', filter]),
  };
}

suite(`docker-compose.yml, brought up with docker-compose ${compose ?? 'v1'}${reason}`, () => {
  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    if (!engine.ok || !compose) throw new Error(`CI needs a Docker engine and docker-compose:${reason}`);
    gatewayPort = await freePort();
    env = {
      ...process.env,
      TOKEN_SECRET: randomBytes(36).toString('base64url'),
      GATEWAY_PORT: String(gatewayPort),
      PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`,
    };
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'OTEL_EXPORTER_OTLP_ENDPOINT']) delete env[name];
  });
  afterAll(async () => {
    if (composeFile) {
      const logs = await run('docker-compose', composeArgs('logs', '--no-color'), { env }).catch(() => null);
      if (logs) fs.writeFileSync(path.join(ARTIFACTS, 'compose-services.log'), logs.stdout + logs.stderr);
      await run('docker-compose', composeArgs('down', '-v', '--remove-orphans'), { env, timeoutMs: 120_000 });
    }
  });

  it("runs on the repository's file with only its top-level `name:` line removed", () => {
    const lines = fs.readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8').split('\n');
    const kept = lines.filter((line) => !/^name:/.test(line));
    expect(lines.length - kept.length).toBe(1);
    composeFile = path.join(
      fs.mkdtempSync(path.join(os.tmpdir(), 'dominoes-compose-')),
      'docker-compose.yml',
    );
    fs.writeFileSync(composeFile, kept.join('\n'));
  });

  it(
    'comes up: migrate exits 0 and gateway, table-service, timer-service, postgres and redis report healthy',
    async () => {
      const { seconds } = await buildImage('dominoes:ci', path.join(ARTIFACTS, 'build-for-compose.log'));
      recordTiming('image build for compose seconds (layer cache)', seconds);
      for (const service of APP_SERVICES) await docker(['tag', 'dominoes:ci', `${PROJECT}_${service}`]);
      const started = Date.now();
      await dockerCompose(['up', '-d', '--no-build']);
      const ready = await waitHealthy(240_000);
      const seconds2 = (Date.now() - started) / 1000;
      recordTiming('compose up to all healthy seconds', seconds2);
      console.log(`compose: every health check passed ${seconds2.toFixed(0)} s after up`);
      expect(ready.map((s) => s.service).sort()).toEqual([...HEALTHY, 'migrate'].sort());
      const page = await fetch(`http://127.0.0.1:${gatewayPort}/health/ready`);
      expect(page.status).toBe(200);
    },
    20 * 60_000,
  );

  it('plays a partnership round through the compose gateway to its score, stored in the compose Postgres, no hidden tile in any frame (P12)', async () => {
    const played = await playPartnershipRound(
      gatewayAt(`http://127.0.0.1:${gatewayPort}`),
      await composeDatabaseUrl(),
      23,
    );
    expect(played.view.game?.roundResult).not.toBeNull();
    expect(played.log.filter((r) => r.kind === 'round-dealt')).toHaveLength(1);
    expect(played.leaked).toEqual([]);
  }, 180_000);

  it('`down -v` removes its containers, volumes and network', async () => {
    const started = Date.now();
    await dockerCompose(['down', '-v']);
    recordTiming('compose down seconds', (Date.now() - started) / 1000);
    expect(await leftovers()).toEqual({ containers: [], volumes: [], networks: [] });
  }, 180_000);

  const missing = OBSERVABILITY_IMAGES.filter((image) => !(engine.ok && hasImage(image)));
  (missing.length === 0 ? it : it.skip)(
    `--profile observability: the collector and Jaeger come up too and Jaeger's UI answers${
      missing.length === 0
        ? ''
        : ` (skipped: ${missing.join(' and ')} cannot be had here: no registry is reachable and there is no local stand-in)`
    }`,
    async () => {
      env = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318' };
      await dockerCompose(['--profile', 'observability', 'up', '-d', '--no-build']);
      await waitHealthy(240_000);
      const ui = await fetch('http://127.0.0.1:16686/');
      expect(ui.status).toBe(200);
      await dockerCompose(['--profile', 'observability', 'down', '-v']);
      expect(await leftovers()).toEqual({ containers: [], volumes: [], networks: [] });
    },
    20 * 60_000,
  );
});

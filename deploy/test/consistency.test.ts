/**
 * The Dockerfile, docker-compose.yml and the Helm chart agree with each other and with the repository:
 * every `node apps/<app>/dist/main.js` they run is an app with apps/<app>/src/main.ts, ports match, the image
 * is built the way the contract says (npm ci, npm run build, prune, non-root, tini).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { validate } from 'dockerfile-utils';
import { parse } from 'yaml';
import { CHART_DIR, REPO_ROOT } from './helm-binary';
import { podSpec, render } from './manifests';

/* eslint-disable @typescript-eslint/no-explicit-any */
const read = (file: string) => fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
const dockerfile = read('Dockerfile');
const compose: any = parse(read('docker-compose.yml'), { merge: true });
const values: any = parse(fs.readFileSync(path.join(CHART_DIR, 'values.yaml'), 'utf8'));
const EXPECTED_APPS = ['gateway', 'migrate', 'table-service', 'timer-service'];
const APP_COMMAND = /^node apps\/([a-z0-9-]+)\/dist\/main\.js$/;

/** Dockerfile instructions with continuation lines joined and comments dropped. */
function instructions(text: string): Array<{ keyword: string; args: string }> {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}
const dockerInstructions = instructions(dockerfile);
const execForm = (args: string): string[] => JSON.parse(args) as string[];

/** Every command line that starts an app, with where it comes from. */
function appCommands(): Array<{ source: string; command: string }> {
  const found: Array<{ source: string; command: string }> = [];
  for (const ins of dockerInstructions.filter((i) => i.keyword === 'CMD')) {
    found.push({ source: 'Dockerfile CMD', command: execForm(ins.args).join(' ') });
  }
  for (const [name, svc] of Object.entries<any>(compose.services)) {
    if (!svc.build) continue; // third-party images
    const cmd = Array.isArray(svc.command) ? svc.command.join(' ') : String(svc.command);
    found.push({ source: `docker-compose.yml service ${name}`, command: cmd });
  }
  for (const args of [[], ['-f', path.join(CHART_DIR, 'examples', 'production.yaml')]]) {
    for (const o of render(args).filter((x) => ['Deployment', 'Job'].includes(x.kind))) {
      for (const c of podSpec(o).containers) {
        found.push({
          source: `chart ${o.kind} ${o.metadata.name}`,
          command: [...(c.command ?? []), ...(c.args ?? [])].join(' '),
        });
      }
    }
  }
  return found;
}

describe('apps the deploy files run', () => {
  const commands = appCommands();

  it('are all `node apps/<app>/dist/main.js`', () => {
    for (const { source, command } of commands)
      expect({ source, command, ok: APP_COMMAND.test(command) }).toEqual({ source, command, ok: true });
  });

  it('exist in apps/ with a src/main.ts', () => {
    const missing = commands
      .map(({ source, command }) => ({
        source,
        main: `apps/${APP_COMMAND.exec(command)?.[1] ?? '?'}/src/main.ts`,
      }))
      .filter(({ main }) => !fs.existsSync(path.join(REPO_ROOT, main)));
    expect(missing).toEqual([]);
  });

  it('cover gateway, table-service, timer-service and migrate in compose and in the chart', () => {
    const apps = (prefix: string) =>
      [
        ...new Set(
          commands.filter((c) => c.source.startsWith(prefix)).map((c) => APP_COMMAND.exec(c.command)?.[1]),
        ),
      ].sort();
    expect(apps('docker-compose.yml')).toEqual(EXPECTED_APPS);
    expect(apps('chart')).toEqual(EXPECTED_APPS);
  });

  it('listen on the same ports in compose and in the chart', () => {
    const chartPorts = {
      gateway: values.gateway.port,
      'table-service': values.tableService.port,
      'timer-service': values.timerService.port,
    };
    expect(chartPorts).toEqual({ gateway: 8080, 'table-service': 8081, 'timer-service': 8082 });
    for (const [name, port] of Object.entries(chartPorts)) {
      expect(String(compose.services[name].environment.PORT)).toBe(String(port));
    }
  });

  it('give the gateway the same METRICS_PORT in compose and in the chart, apart from its players\u2019 port', () => {
    expect(values.gateway.metricsPort).toBe(9464);
    expect(String(compose.services.gateway.environment.METRICS_PORT)).toBe(
      String(values.gateway.metricsPort),
    );
    expect(values.gateway.metricsPort).not.toBe(values.gateway.port);
  });

  it('run Redis with the same required flags in compose and in the bundled chart Redis', () => {
    const redisArgs: string[] = podSpec(
      render([]).find((o) => o.kind === 'StatefulSet' && o.metadata.name.endsWith('-redis'))!,
    ).containers[0].args;
    const composeArgs: string[] = compose.services.redis.command;
    for (const [flag, value] of [
      ['--hz', '100'],
      ['--maxmemory-policy', 'noeviction'],
      ['--appendonly', 'yes'],
    ]) {
      expect(redisArgs[redisArgs.indexOf(flag) + 1]).toBe(value);
      expect(composeArgs[composeArgs.indexOf(flag) + 1]).toBe(value);
    }
  });
});

describe('Dockerfile', () => {
  it('has no problems that dockerfile-utils finds', () => {
    expect(validate(dockerfile).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('builds on node:20-bookworm-slim in named stages, runs on the same Debian release with its node binary, and copies only from stages it has', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
    expect(dockerfile).toMatch(/^ARG RUNTIME_BASE_IMAGE=debian:bookworm-slim$/m);
    const froms = dockerInstructions.filter((i) => i.keyword === 'FROM').map((i) => i.args);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms.slice(0, -1)) expect(from).toMatch(/^\$\{NODE_IMAGE\} AS [a-z]+$/);
    expect(froms.at(-1)).toBe('${RUNTIME_BASE_IMAGE} AS runtime');
    expect(dockerInstructions.filter((i) => i.keyword === 'COPY').map((i) => i.args)).toContain(
      '--from=node /usr/local/bin/node /usr/local/bin/node',
    );
    const stages = froms.map((f) => f.split(' AS ')[1]);
    for (const ins of dockerInstructions.filter((i) => i.keyword === 'COPY' && i.args.includes('--from='))) {
      expect(stages).toContain(/--from=(\S+)/.exec(ins.args)![1]);
    }
  });

  it('installs with npm ci, builds with npm run build, and ships production dependencies only', () => {
    const runs = dockerInstructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    const at = (re: RegExp) => runs.findIndex((r) => re.test(r));
    expect(at(/\bnpm ci\b/)).toBeGreaterThanOrEqual(0);
    expect(at(/\bnpm run build\b/)).toBeGreaterThan(at(/\bnpm ci\b/));
    expect(at(/\bnpm prune --omit=dev\b/)).toBeGreaterThan(at(/\bnpm run build\b/));
    expect(runs.join('\n')).not.toMatch(/--ignore-scripts/); // package.json "allowScripts" decides
  });

  it('has in its npm ci layer every file that the root install scripts run', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts?: Record<string, string> };
    const lifecycle = ['preinstall', 'install', 'postinstall', 'prepare']
      .map((k) => pkg.scripts?.[k])
      .filter(Boolean);
    const manifests = dockerfile.slice(dockerfile.indexOf(' AS manifests'), dockerfile.indexOf(' AS build'));
    const copied = /cp -r --parents ([^\n]+) \/out\//.exec(manifests)?.[1].split(/\s+/) ?? [];
    for (const script of lifecycle as string[]) {
      for (const [, file] of script.matchAll(/\bnode\s+(\S+)/g)) {
        expect({ file, copied: copied.some((c) => file === c || file.startsWith(`${c}/`)) }).toEqual({
          file,
          copied: true,
        });
      }
    }
    for (const entry of copied)
      expect({ entry, exists: fs.existsSync(path.join(REPO_ROOT, entry)) }).toEqual({ entry, exists: true });
  });

  it('drops only optional packages that the production tree can do without (npm prune --omit=optional)', () => {
    expect(dockerfile).toMatch(/npm prune --omit=dev --omit=optional/);
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { optional?: boolean; dev?: boolean; devOptional?: boolean }>;
    };
    // Optional packages of the production tree, dropped from the image. Add one here only after checking that
    // its dependant works without it; otherwise change the Dockerfile's prune step.
    const safeToDrop = [
      /^msgpackr-extract$/, // native speed-up of msgpackr (bullmq); msgpackr falls back to JS
      /^@msgpackr-extract\//,
      /^node-gyp-build-optional-packages$/, // msgpackr-extract's loader
      /^@pkgjs\/parseargs$/, // util.parseArgs polyfill for Node < 18.3
      /^pg-cloudflare$/, // Cloudflare Workers sockets for pg
    ];
    const dropped = Object.entries(lock.packages)
      .filter(([key, p]) => key !== '' && p.optional && !p.dev && !p.devOptional)
      .map(([key]) => key.replace(/^.*node_modules\//, ''));
    expect(dropped.filter((name) => !safeToDrop.some((re) => re.test(name)))).toEqual([]);
  });

  it('runs as uid 10001 with tini as PID 1 and NODE_ENV=production', () => {
    const last = (kw: string) => dockerInstructions.filter((i) => i.keyword === kw).pop()?.args;
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/apt-get install -y --no-install-recommends tini/);
    expect(runtime).toMatch(/useradd [^\n]*--uid 10001/);
    expect(last('USER')).toBe('10001:10001');
    expect(execForm(last('ENTRYPOINT')!)).toEqual(['/usr/bin/tini', '--']);
    expect(execForm(last('CMD')!)).toEqual(['node', 'apps/gateway/dist/main.js']);
    expect(runtime).toMatch(/^ENV NODE_ENV=production$/m);
  });
});

describe('.dockerignore', () => {
  const patterns = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  it('keeps host build output and secrets out of the context', () => {
    expect(patterns).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git', '.env']));
  });

  it('keeps everything the build needs', () => {
    for (const needed of [
      'apps',
      'libs',
      'prisma',
      'package.json',
      'package-lock.json',
      'tsconfig.base.json',
    ]) {
      expect(patterns.filter((p) => p === needed || p === `${needed}/` || p === `/${needed}`)).toEqual([]);
    }
  });
});

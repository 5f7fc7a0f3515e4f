/**
 * docker-compose.yml: the Compose schema and dclint's rules (dclint 3.1, no Docker engine needed), then what this
 * project needs from it: Redis flags, healthchecks, start order, the one-shot migration, profiles, replicas.
 * Also the OpenTelemetry collector config that the observability profile mounts.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from './helm-binary';

/* eslint-disable @typescript-eslint/no-explicit-any */
const COMPOSE_FILE = path.join(REPO_ROOT, 'docker-compose.yml');
const compose: any = parse(fs.readFileSync(COMPOSE_FILE, 'utf8'), { merge: true });
const services: Record<string, any> = compose.services;
const APP_SERVICES = ['gateway', 'table-service', 'timer-service'];
const PORTS: Record<string, number> = { gateway: 8080, 'table-service': 8081, 'timer-service': 8082 };
/** Where /metrics is: the gateway's METRICS_PORT, the others' PORT. */
const METRICS_PORTS: Record<string, number> = { ...PORTS, gateway: 9464 };

interface DclintReport {
  filePath: string;
  messages: Array<{ rule: string; type: string; message: string; line: number }>;
  errorCount: number;
  warningCount: number;
}

function dclint(file: string): { code: number; reports: DclintReport[] } {
  const bin = path.join(
    path.dirname(require.resolve('dclint/package.json', { paths: [REPO_ROOT] })),
    'bin',
    'dclint.cjs',
  );
  try {
    const out = execFileSync(process.execPath, [bin, file, '-f', 'json'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    return { code: 0, reports: JSON.parse(out) };
  } catch (err) {
    const e = err as { status: number; stdout: string };
    return { code: e.status, reports: JSON.parse(e.stdout) };
  }
}

const asList = (command: unknown): string[] =>
  Array.isArray(command) ? command.map(String) : String(command).split(/\s+/);
const envOf = (name: string): Record<string, unknown> => services[name].environment ?? {};

describe('docker-compose.yml', () => {
  it('passes dclint (Compose schema + all default rules) with no error and no warning', () => {
    const { code, reports } = dclint(COMPOSE_FILE);
    const messages = reports.flatMap((r) =>
      r.messages.map((m) => `${m.line}: ${m.type} ${m.rule}: ${m.message}`),
    );
    expect(messages).toEqual([]);
    expect(code).toBe(0);
  });

  it('dclint does fail on a broken file (so the check above is real)', () => {
    const bad = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dclint-')), 'docker-compose.yml');
    fs.writeFileSync(bad, 'name: t\nservices:\n  a:\n    image: x:1\n    restrat: always\n');
    const { code, reports } = dclint(bad);
    expect(code).not.toBe(0);
    expect(reports[0].messages.map((m) => m.rule)).toContain('invalid-schema');
  });

  it('has postgres 15 and redis 7 with healthchecks', () => {
    expect(services.postgres.image).toMatch(/^postgres:15/);
    expect(asList(services.postgres.healthcheck.test).join(' ')).toContain('pg_isready');
    expect(services.redis.image).toMatch(/^redis:7/);
    expect(asList(services.redis.healthcheck.test)).toEqual(['CMD', 'redis-cli', 'ping']);
  });

  it('runs redis with --hz 100 --maxmemory-policy noeviction --appendonly yes', () => {
    const cmd = asList(services.redis.command);
    expect(cmd[0]).toBe('redis-server');
    const flag = (f: string) => (cmd.includes(f) ? cmd[cmd.indexOf(f) + 1] : undefined);
    expect(flag('--hz')).toBe('100');
    expect(flag('--maxmemory-policy')).toBe('noeviction');
    expect(flag('--appendonly')).toBe('yes');
  });

  it('migrates once, after postgres is healthy, and every service waits for it', () => {
    const migrate = services.migrate;
    expect(asList(migrate.command)).toEqual(['node', 'apps/migrate/dist/main.js']);
    expect(String(migrate.restart)).toBe('no');
    expect(migrate.depends_on.postgres.condition).toBe('service_healthy');
    for (const name of APP_SERVICES) {
      const deps = services[name].depends_on;
      expect({ name, migrate: deps.migrate?.condition }).toEqual({
        name,
        migrate: 'service_completed_successfully',
      });
      expect({ name, redis: deps.redis?.condition }).toEqual({ name, redis: 'service_healthy' });
      for (const [dep, spec] of Object.entries<any>(deps)) {
        expect(['service_healthy', 'service_completed_successfully', 'service_started']).toContain(
          spec.condition,
        );
        expect(services[dep]).toBeDefined();
        if (['postgres', 'redis'].includes(dep)) expect(spec.condition).toBe('service_healthy');
      }
    }
    expect(services['table-service'].depends_on.postgres.condition).toBe('service_healthy');
  });

  it('runs each app service from the one Dockerfile with its command, PORT and a readiness healthcheck', () => {
    for (const name of [...APP_SERVICES, 'migrate']) {
      const svc = services[name];
      expect({ name, build: svc.build }).toEqual({ name, build: { context: '.', dockerfile: 'Dockerfile' } });
      expect(svc.init).toBeUndefined(); // tini is in the image
    }
    for (const name of APP_SERVICES) {
      const svc = services[name];
      expect(asList(svc.command)).toEqual(['node', `apps/${name}/dist/main.js`]);
      expect(String(envOf(name).PORT)).toBe(String(PORTS[name]));
      expect(envOf(name).OTEL_SERVICE_NAME).toBe(name);
      expect(asList(svc.healthcheck.test).join(' ')).toContain(
        `http://127.0.0.1:${PORTS[name]}/health/ready`,
      );
      expect(String(envOf(name).TABLE_SHARDS)).toBe('${TABLE_SHARDS:-16}'); // one value for all
      expect(envOf(name).REDIS_URL).toBe('redis://redis:6379');
      expect(String(envOf(name).DATABASE_URL)).toMatch(
        /^postgresql:\/\/postgres:.*@postgres:5432\/dominoes$/,
      );
    }
  });

  it('requires the operator to set TOKEN_SECRET (no published default), and gives it to the gateway alone', () => {
    // `${VAR:?message}`: compose (v1 and v2) refuses to start without it, with the message.
    expect(String(envOf('gateway').TOKEN_SECRET)).toMatch(
      /^\$\{TOKEN_SECRET:\?set TOKEN_SECRET .*32 or more random characters.*\}$/,
    );
    for (const name of ['table-service', 'timer-service', 'migrate']) {
      expect({ name, secret: envOf(name).TOKEN_SECRET }).toEqual({ name, secret: undefined });
    }
    expect(fs.readFileSync(COMPOSE_FILE, 'utf8')).not.toMatch(/TOKEN_SECRET:-/);
  });

  it('publishes the gateway on 8080 (GATEWAY_PORT) and nothing else of the app', () => {
    expect(services.gateway.ports).toEqual(['127.0.0.1:${GATEWAY_PORT:-8080}:8080']);
    for (const name of ['table-service', 'timer-service', 'migrate', 'postgres', 'redis']) {
      expect({ name, ports: services[name].ports }).toEqual({ name, ports: undefined });
    }
  });

  it('scales with GATEWAY_REPLICAS / TABLE_SERVICE_REPLICAS / TIMER_SERVICE_REPLICAS (default 1)', () => {
    expect(services.gateway.deploy.replicas).toBe('${GATEWAY_REPLICAS:-1}');
    expect(services['table-service'].deploy.replicas).toBe('${TABLE_SERVICE_REPLICAS:-1}');
    expect(services['timer-service'].deploy.replicas).toBe('${TIMER_SERVICE_REPLICAS:-1}');
  });

  it('keeps the collector and Jaeger in the observability profile, and the endpoint off unless the shell sets it', () => {
    expect(services['otel-collector'].profiles).toEqual(['observability']);
    expect(services['otel-collector'].image).toContain('otel/opentelemetry-collector-contrib:');
    expect(services.jaeger.profiles).toEqual(['observability']);
    expect(services.jaeger.image).toContain('jaegertracing/all-in-one:');
    const mount = services['otel-collector'].volumes.find((v: string) => v.includes('collector.yaml'));
    const [hostPath, containerPath] = mount.split(':');
    expect(fs.existsSync(path.join(REPO_ROOT, hostPath))).toBe(true);
    expect(asList(services['otel-collector'].command).join(' ')).toContain(containerPath);
    for (const [name, svc] of Object.entries<any>(services)) {
      if (['otel-collector', 'jaeger'].includes(name)) continue;
      expect({ name, profiles: svc.profiles }).toEqual({ name, profiles: undefined });
    }
    for (const name of [...APP_SERVICES, 'migrate']) {
      // null = pass-through: present only when the shell (or .env) sets it.
      expect('OTEL_EXPORTER_OTLP_ENDPOINT' in envOf(name)).toBe(true);
      expect(envOf(name).OTEL_EXPORTER_OTLP_ENDPOINT).toBeNull();
    }
    // The documented command points the services at the collector's OTLP/HTTP port.
    expect(fs.readFileSync(COMPOSE_FILE, 'utf8')).toContain(
      'OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318 docker compose --profile observability up',
    );
  });
});

describe('deploy/otel/collector.yaml', () => {
  const config: any = parse(
    fs.readFileSync(path.join(REPO_ROOT, 'deploy', 'otel', 'collector.yaml'), 'utf8'),
  );

  it('receives OTLP on 4317 (gRPC) and 4318 (HTTP) on all interfaces', () => {
    expect(config.receivers.otlp.protocols.grpc.endpoint).toBe('0.0.0.0:4317');
    expect(config.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
  });

  it('sends traces to Jaeger over OTLP', () => {
    expect(config.service.pipelines.traces.exporters).toContain('otlp/jaeger');
    expect(config.exporters['otlp/jaeger'].endpoint).toBe('jaeger:4317');
  });

  it('uses only components it declares, and declares none it does not use', () => {
    const used: Record<string, Set<string>> = {
      receivers: new Set(),
      processors: new Set(),
      exporters: new Set(),
    };
    for (const [name, pipeline] of Object.entries<any>(config.service.pipelines)) {
      expect(['traces', 'metrics', 'logs']).toContain(name.split('/')[0]);
      for (const section of Object.keys(used)) {
        for (const component of pipeline[section] ?? []) {
          expect({ section, component, declared: component in (config[section] ?? {}) }).toEqual({
            section,
            component,
            declared: true,
          });
          used[section].add(component);
        }
      }
    }
    for (const section of Object.keys(used)) {
      expect(Object.keys(config[section]).filter((c) => !used[section].has(c))).toEqual([]);
    }
    for (const ext of config.service.extensions ?? []) expect(config.extensions).toHaveProperty([ext]);
  });

  it('scrapes every service replica on its metrics port (the gateway on METRICS_PORT, not its players\u2019 port)', () => {
    const jobs = config.receivers.prometheus.config.scrape_configs;
    for (const [name, port] of Object.entries(METRICS_PORTS)) {
      const job = jobs.find((j: any) => j.job_name === name);
      expect(job.metrics_path).toBe('/metrics');
      expect(job.dns_sd_configs[0]).toEqual({ names: [name], type: 'A', port });
    }
  });
});

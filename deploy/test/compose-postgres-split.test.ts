/**
 * docker-compose.postgres-split.yml (decision 0027), layered over docker-compose.yml: a second Postgres
 * primary set up as the first, and DATABASE_URLS / DATABASE_SHARD_MAP for the migration and every app
 * service. Read as YAML here (no engine); docs/operations.md records the stack run for real on the
 * Docker engine with the Redis Cluster override.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { parseShardMap } from '../../libs/platform/src/shard-map';
import { REPO_ROOT } from './helm-binary';

/* eslint-disable @typescript-eslint/no-explicit-any */
const read = (file: string): any =>
  parse(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'), { merge: true });
/** `${NAME:-default}` → default, as compose fills it with NAME unset. */
const withDefaults = (text: string) => text.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

describe('docker-compose.postgres-split.yml (layered over docker-compose.yml)', () => {
  const base = read('docker-compose.yml');
  const override = read('docker-compose.postgres-split.yml');

  it("adds postgres-1 with the first Postgres's image, database, user, health check and a volume of its own", () => {
    const first = base.services.postgres;
    const second = override.services['postgres-1'];
    expect(second.image).toBe(first.image);
    expect(second.environment).toEqual(first.environment);
    expect(second.healthcheck).toEqual(first.healthcheck);
    expect(second.volumes).toEqual(['postgres-1-data:/var/lib/postgresql/data']);
    expect(Object.keys(override.volumes)).toEqual(['postgres-1-data']);
  });

  it('gives migrate and every app service both databases (the home one first) and a map of the default 16 shards over them', () => {
    for (const name of ['migrate', 'gateway', 'table-service', 'timer-service']) {
      expect(base.services[name]).toBeDefined();
      const service = override.services[name];
      expect(service.depends_on['postgres-1']).toEqual({ condition: 'service_healthy' });
      const urls = withDefaults(service.environment.DATABASE_URLS).split(',');
      // The first is docker-compose.yml's DATABASE_URL: the home database stays where it was.
      expect(urls[0]).toBe(withDefaults(base.services[name].environment.DATABASE_URL));
      expect(urls.map((u) => new URL(u).host)).toEqual(['postgres:5432', 'postgres-1:5432']);
      const map = withDefaults(service.environment.DATABASE_SHARD_MAP);
      const shards = Number(withDefaults(String(base.services[name].environment.TABLE_SHARDS)));
      // The services' own parser: every shard once, only the two listed databases.
      expect(parseShardMap(map, shards, urls.length)).toEqual([...Array(8).fill(0), ...Array(8).fill(1)]);
    }
  });
});

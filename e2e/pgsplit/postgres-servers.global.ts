import { startPostgresServers as startServers, type TestPostgresServer } from '../src/postgres-server';

/**
 * The e2e-pgsplit project's two Postgres clusters (TestPostgresServer), started once for all its
 * suites: each suite makes databases of its own on them (TestSystem), as suites share the one test
 * Postgres elsewhere, and so pays no initdb. E2E_POSTGRES_SERVERS tells TestSystem where they are.
 */
const key = Symbol.for('dominoes.e2e.pgsplit.servers');

export default async function startPostgresServers(): Promise<void> {
  const count = Number(process.env['E2E_POSTGRES_DATABASES'] ?? 2);
  const servers = await startServers('pgsplit', count);
  (globalThis as Record<symbol, unknown>)[key] = servers;
  process.env['E2E_POSTGRES_SERVERS'] = servers.map((s) => s.url).join(',');
}

export async function stopPostgresServers(): Promise<void> {
  const servers = ((globalThis as Record<symbol, unknown>)[key] ?? []) as TestPostgresServer[];
  await Promise.all(servers.map((s) => s.stop()));
}

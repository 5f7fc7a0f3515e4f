import { createServer } from 'node:net';
import { Client } from 'pg';
import { alive, childPids, TestPostgresServer } from '../src/postgres-server';

const query = async (url: string, sql: string, params: unknown[] = []) => {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
};

/** Whether something listens on the port (a listen that fails with EADDRINUSE). */
const portTaken = (port: number) =>
  new Promise<boolean>((done) => {
    const server = createServer();
    server.once('error', () => done(true));
    server.listen(port, '127.0.0.1', () => server.close(() => done(false)));
  });

describe('TestPostgresServer: a private Postgres that can be killed -9 and started again', () => {
  let pg: TestPostgresServer | undefined;
  afterAll(async () => {
    await pg?.stop();
  });

  it('kill() leaves no postgres process and refuses connections; start() recovers every committed row from the WAL; stop() frees the port', async () => {
    pg = await TestPostgresServer.start('postgres-server');
    await query(pg.url, 'create table kept (n int primary key)');
    await query(pg.url, 'insert into kept select generate_series(1, 1000)');
    // An open connection: its backend must die with the postmaster.
    const held = new Client({ connectionString: pg.url });
    held.on('error', () => undefined);
    await held.connect();
    const postmaster = pg.pid!;
    const processes = [postmaster, ...childPids(postmaster)];
    expect(processes.length).toBeGreaterThan(3); // checkpointer, walwriter, ... and the held backend

    await pg.kill();
    expect(processes.filter(alive)).toEqual([]);
    await expect(query(pg.url, 'select 1')).rejects.toThrow();
    await held.end().catch(() => undefined);

    await pg.start();
    expect(pg.pid).not.toBe(postmaster);
    const [row] = await query(pg.url, 'select count(*)::int as n from kept');
    expect(row.n).toBe(1000);

    const port = pg.port;
    await pg.stop();
    pg = undefined;
    expect(await portTaken(port)).toBe(false);
  }, 120_000);
});

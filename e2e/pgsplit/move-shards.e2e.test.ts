import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { shardOf, type TableView } from '@dominoes/protocol';
import { seatPlayers, type TableOpener } from '../src/players';
import { expectRowsOnlyInItsShardsDatabase, rowsOfTableByDatabase } from '../src/split-databases';
import { ROOT, TestSystem } from '../src/system';
import { checkStored, playAll, type PlayingTable } from '../src/tables';

/*
 * Moving a shard group to another database (issue 13; docs/operations.md "Moving a shard group"),
 * end to end on two Postgres clusters: matches are started with every shard in database 0, the
 * table-services are stopped mid-match (the gateways keep the sockets), shards 2-3 are copied to
 * database 1 by the built `shards:move`, the gateway and then the table-service are started again with
 * the new DATABASE_SHARD_MAP, and both matches (one moved, one not) go on and finish; then
 * --delete-source leaves each table's rows in its new database only.
 */
const SHARDS = 4;
const MOVED = [2, 3];

/**
 * The host opens tables until one's shard is one of `shards` (table ids are the table-service's,
 * random). Always the host: an opener is seated at its table, so a table another identity opened
 * left the four players one seat short (TABLE_FULL, whenever the host's first four missed: 1 in 16);
 * a split TestSystem lets a host have 100 open tables.
 */
function tableInShards(shards: readonly number[]): TableOpener {
  return async (host, request) => {
    for (let attempt = 0; attempt < 40; attempt++) {
      const { tableId } = await host.openTable(request);
      if (shards.includes(shardOf(tableId, SHARDS))) return tableId;
    }
    throw new Error(`no table in shards ${shards.join(',')} after 40 tables`);
  };
}

function shardsMove(system: TestSystem, args: string[]) {
  const run = spawnSync(process.execPath, [join(ROOT, 'apps/migrate/dist/move-shards/main.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...system.env() },
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('moving shards 2-3 to another database mid-match (issue 13)', () => {
  // The services' environment: read by TestSystem at each start, so what this object holds when a
  // service starts is what it runs with, as an operator's rolled deployment.
  const env: Record<string, string> = { DATABASE_SHARD_MAP: '0-3:0' };
  let system: TestSystem;
  const tables: PlayingTable[] = [];
  beforeAll(async () => {
    system = await TestSystem.start('move-shards', {
      databases: 2,
      shards: SHARDS,
      turnMs: 2000,
      disconnectedTurnMs: 1000,
      breakMs: 1000,
      env,
    });
  });
  afterAll(async () => {
    for (const t of tables) for (const p of t.players) p.close();
    await system?.stop();
  });

  it('a match started on database 0 goes on and finishes on database 1 after the copy and the restart; the other stays; --delete-source then leaves each only in its own', async () => {
    const wsUrls = () => [system.wsUrl];
    for (const [i, shards] of [MOVED, [0, 1]].entries()) {
      const seated = await seatPlayers(
        system,
        ['Ana', 'Bo', 'Cy', 'Di'].map((n) => `${n}${i}`),
        { variant: 'partnership', target: 50 },
        undefined,
        tableInShards(shards),
      );
      for (const p of seated.players) p.keepSeat(seated.tableId, wsUrls);
      tables.push({ ...seated, acked: [], finished: Promise.resolve(null as unknown as TableView) });
    }
    const [moved, kept] = tables as [PlayingTable, PlayingTable];
    playAll(tables, 240_000);
    const logLength = (t: PlayingTable) => t.players[0]!.view?.game?.log.length ?? 0;
    await moved.players[0]!.client.waitForView((v) => (v.game?.log.length ?? 0) >= 8, 60_000);
    expect((await rowsOfTableByDatabase(system, moved.tableId))[1]).toBe(0);

    // The window: no table-service (every shard's intents wait in its stream), the gateway keeps the sockets.
    const windowStarted = Date.now();
    await system.kill('table-service', 'SIGTERM');
    const before = logLength(moved);
    const copy = shardsMove(system, ['--shards', '2-3', '--to', '1']);
    expect({ status: copy.status, stderr: copy.stderr }).toEqual({ status: 0, stderr: '' });
    expect(copy.stdout).toContain('DATABASE_SHARD_MAP=0-1:0,2-3:1');
    const copiedRows = await rowsOfTableByDatabase(system, moved.tableId);
    expect(copiedRows[1]).toBe(copiedRows[0]);
    // Every service that reads Postgres starts again with the new map (the timer-service has none):
    // the gateway first, while both databases hold the same moved rows, then the table-service.
    env['DATABASE_SHARD_MAP'] = '0-1:0,2-3:1';
    await system.kill('gateway', 'SIGTERM');
    await system.startService('gateway');
    await system.startService('table-service');
    const windowMs = Date.now() - windowStarted;

    // Both matches play to the end; each stored log (read in its shard's database by the new map)
    // replays to the scores shown, with every acknowledged action stored once.
    await checkStored(system, tables);
    expect(logLength(moved)).toBeGreaterThan(before);
    for (const t of tables) expect(t.acked.length).toBeGreaterThan(5);
    expect(system.databaseOfTable(moved.tableId)).toBe(1);
    expect(system.databaseOfTable(kept.tableId)).toBe(0);

    // The moved table's old rows stay in database 0, untouched since the switch, until --delete-source.
    expect((await rowsOfTableByDatabase(system, moved.tableId))[0]).toBe(copiedRows[0]);
    const removed = shardsMove(system, ['--shards', '2-3', '--from', '0', '--delete-source']);
    expect({ status: removed.status, stderr: removed.stderr }).toEqual({ status: 0, stderr: '' });
    for (const t of tables) await expectRowsOnlyInItsShardsDatabase(system, t.tableId);
    console.log(
      `move-shards e2e: the window (table-service stopped, copy, gateway and table-service started) took ${windowMs} ms`,
    );
  });
});

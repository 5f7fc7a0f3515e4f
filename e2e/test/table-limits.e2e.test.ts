import { getTable } from '@dominoes/protocol';
import { readLog } from '../src/stored-log';
import { TestPlayer } from '../src/players';
import { TestSystem } from '../src/system';

/** Short on purpose: a real deployment waits 15 minutes (WAITING_TABLE_TTL_MS). */
const TTL_MS = 3000;
const MAX_TABLES = 2;

describe('table limits through the real services: waiting tables expire, a host has a bounded number of open tables', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await TestSystem.start('table-limits', {
      env: { WAITING_TABLE_TTL_MS: String(TTL_MS), MAX_OPEN_TABLES_PER_HOST: String(MAX_TABLES) },
    });
  });
  afterAll(async () => {
    await system?.stop();
  });

  const players = (names: string[]) => Promise.all(names.map((n) => TestPlayer.create(system, n)));
  const postTable = (token: string) =>
    fetch(`${system.httpUrl}/api/tables`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ variant: 'partnership' }),
    });

  it('a waiting table that nobody fills closes after WAITING_TABLE_TTL_MS: its seated players see it closed, the close is in its log, a later join gets TABLE_CLOSED', async () => {
    const [host, guest, late] = await players(['Hana', 'Guest', 'Late']);
    const { tableId } = await host!.openTable({ variant: 'partnership' });
    for (const p of [host!, guest!]) {
      await p.connect();
      await p.join(tableId);
    }
    const waiting = host!.view!;
    expect(waiting.status).toBe('waiting');
    expect(waiting.clock).toMatchObject({ kind: 'expire', seat: null });
    const openedAt = Date.now();
    // The timer-service fires the table's expiry deadline; both seats get the closed view.
    const [hostView, guestView] = await Promise.all(
      [host!, guest!].map((p) => p.client.waitForView((v) => v.status === 'closed', TTL_MS + 10_000)),
    );
    expect(Date.now() - openedAt).toBeLessThan(TTL_MS + 5_000);
    const lateMs = Date.now() - waiting.clock!.deadline;
    console.log(`waiting table closed ${lateMs} ms after its expiry (WAITING_TABLE_TTL_MS ${TTL_MS})`);
    expect(lateMs).toBeGreaterThanOrEqual(0);
    expect(hostView!.clock).toBeNull();
    expect(guestView!.seats.map((s) => s?.name ?? null)).toEqual(['Hana', 'Guest', null, null]);

    const log = await readLog(system.stores.databaseUrl, tableId);
    expect(log.at(-1)).toMatchObject({ kind: 'table-closed', payload: { reason: 'expired' } });
    expect((await getTable(system.httpUrl, tableId)).status).toBe('closed');

    await late!.connect();
    await expect(late!.join(tableId)).rejects.toMatchObject({ code: 'TABLE_CLOSED' });
    for (const p of [host!, guest!, late!]) p.close();
  });

  it("MAX_OPEN_TABLES_PER_HOST: the host's next table is refused with HTTP 429 TOO_MANY_TABLES, and allowed again once one has expired", async () => {
    const [host, other] = await players(['Many', 'Other']);
    for (let i = 0; i < MAX_TABLES; i++) expect((await postTable(host!.token)).status).toBe(201);
    const refused = await postTable(host!.token);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: 'TOO_MANY_TABLES' } });
    // Another identity is not limited by this host's tables.
    expect((await postTable(other!.token)).status).toBe(201);
    // The host's waiting tables expire; an expired table no longer counts.
    await new Promise((r) => setTimeout(r, TTL_MS + 2_500));
    expect((await postTable(host!.token)).status).toBe(201);
  });
});

import { createRedis, type Redis } from '@dominoes/platform';
import { TableViewSchema, type IntentEnvelope, type TableIntent } from '@dominoes/protocol';
import type { TableEngine } from '../src/table/table-engine';
import { startEngineHarness, type EngineHarness } from './support/engine-harness';

/**
 * A sync changes nothing: its view goes back in the reply, for the asking socket alone. Published on
 * the seat channel (as it was), every socket of that seat received it: 60 sockets syncing multiplied
 * the views sent 57 times (issue 10).
 */
describe("sync: the view in the reply, nothing on the table's views channel", () => {
  let harness: EngineHarness;
  let subscriber: Redis;
  let engine: TableEngine;
  const published: string[] = [];
  const TABLE = 'SYNCRP';
  const player = { id: '00000000-0000-4000-8000-000000000051', name: 'Sia' };
  let n = 0;
  const intent = (body: TableIntent, replyTo: string | null): IntentEnvelope => ({
    intentId: `s${++n}`,
    tableId: TABLE,
    player,
    connectionId: 'gw:1',
    replyTo,
    sentAt: Date.now(),
    intent: body,
  });

  beforeAll(async () => {
    harness = await startEngineHarness('sync_reply');
    subscriber = createRedis(harness.stores.redisUrl, 'sync-reply-test-sub');
    await subscriber.subscribe(harness.names.viewsChannel(TABLE));
    subscriber.on('message', (_channel: string, message: string) => published.push(message));
    engine = harness.engine();
    expect(
      await engine.handle(intent({ kind: 'create', config: { variant: 'partnership' } }, 'replies:gw')),
    ).toMatchObject({ ok: true, seat: 0 });
  });
  afterAll(async () => {
    subscriber?.disconnect();
    await harness?.dispose();
  });

  it("a sync with a reply channel gets the asker's seat view in the reply and publishes nothing", async () => {
    const reply = await engine.handle(intent({ kind: 'sync' }, 'replies:gw'));
    expect(reply).toMatchObject({ ok: true, seat: 0, version: expect.any(Number) });
    const view = TableViewSchema.parse(JSON.parse((reply as { view: string }).view));
    expect(view).toMatchObject({ tableId: TABLE, you: { seat: 0, playerId: player.id } });
    await new Promise((r) => setTimeout(r, 200));
    expect(published).toEqual([]);
  });

  it('a sync without a reply channel (nobody waits for it) sends no view at all', async () => {
    const reply = await engine.handle(intent({ kind: 'sync' }, null));
    expect(reply).toEqual({ ok: true, intentId: expect.any(String), version: expect.any(Number), seat: 0 });
    await new Promise((r) => setTimeout(r, 200));
    expect(published).toEqual([]);
  });

  it("a change still goes out on the table's views channel", async () => {
    await engine.handle(intent({ kind: 'autoPass', on: true }, 'replies:gw'));
    await new Promise((r) => setTimeout(r, 200));
    expect(published).toHaveLength(1);
  });
});

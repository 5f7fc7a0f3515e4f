import { Client } from 'pg';
import WebSocket from 'ws';
import Redis from 'ioredis';
import {
  CHAT_HISTORY_KEPT,
  CHAT_HISTORY_TTL_MS,
  createTable,
  redisNames,
  DominoesClient,
  ProtocolError,
  type ChatMessage,
  type CreateTableRequest,
  type ServerMessage,
  type SocketLike,
} from '@dominoes/protocol';
import { IN_PROCESS_SHARDS, InProcessSystem } from '../../../e2e/src/in-process';
import { identity, RawSocket, sleep, waitFor } from './support';
import { refusal } from './talk-refusal';

/**
 * Talking at a table (issue 12, decision 0020), on real Postgres and Redis, with the real
 * table-service and two gateways: what is said reaches every player of the table on either gateway,
 * never changes the table's version or log, and every limit holds across gateways.
 */
const RATE = 3;
let system: InProcessSystem;
const clients: DominoesClient[] = [];
let db: Client;

const socket = (url: string): SocketLike => new WebSocket(url) as unknown as SocketLike;
const base = (g: number) => system.httpUrl(g);

interface Talker {
  readonly playerId: string;
  readonly token: string;
  readonly name: string;
  readonly client: DominoesClient;
  readonly frames: ServerMessage[];
}

async function connect(g: number, who: { playerId: string; token: string; name: string }): Promise<Talker> {
  const client = new DominoesClient({ socketFactory: socket, replyTimeoutMs: 8_000 });
  clients.push(client);
  const frames: ServerMessage[] = [];
  client.onMessage((m) => frames.push(m));
  await client.connect(system.wsUrl(g), who.token);
  return { ...who, client, frames };
}

async function talker(g: number, name: string): Promise<Talker> {
  return connect(g, await identity(base(g), name));
}

/** Opens a two-seat table (host on its gateway), the guest joins: the match starts. */
async function table(
  host: Talker,
  guest: Talker,
  request: Partial<CreateTableRequest> = {},
): Promise<string> {
  const { tableId } = await createTable(base(0), host.token, { variant: 'draw', seats: 2, ...request });
  await host.client.join(tableId);
  await guest.client.join(tableId);
  await host.client.waitForView((v) => v.status === 'playing');
  return tableId;
}

const chats = (t: Talker): ChatMessage[] => t.frames.flatMap((f) => (f.type === 'chat' ? [f.message] : []));
const history = (t: Talker) =>
  waitFor(() => t.frames.find((f) => f.type === 'chatHistory'), 5_000, 'the chat history');

async function stored(tableId: string): Promise<{ version: number; log: number }> {
  const rows = await db.query<{ version: string; log: number }>(
    'SELECT version, (SELECT count(*)::int FROM table_actions WHERE table_id = $1) AS log FROM game_tables WHERE id = $1',
    [tableId],
  );
  return { version: Number(rows.rows[0]!.version), log: rows.rows[0]!.log };
}

beforeAll(async () => {
  system = await InProcessSystem.start('gateway_chat', {
    gateways: 2,
    gatewayEnv: { CHAT_RATE_MESSAGES: String(RATE), CHAT_RATE_WINDOW_MS: '60000' },
  });
  db = new Client({ connectionString: system.stores.databaseUrl });
  await db.connect();
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await db?.end();
  await system?.stop();
});

describe('chat between the players of a table, across two gateways, beside the game', () => {
  it('a text, a phrase and a reaction reach both players (one on each gateway), in order, as sent; HTML stays text', async () => {
    const [host, guest] = [await talker(0, 'Hana'), await talker(1, 'Beatriz')];
    const tableId = await table(host, guest);
    expect((await history(guest)).type === 'chatHistory' && (await history(guest))).toMatchObject({
      tableId,
      enabled: true,
      messages: [],
    });
    const html = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
    await host.client.request('chat', { text: html });
    await guest.client.request('phrase', { phrase: 'goodLuck' });
    await host.client.request('react', { reaction: 'clap' });
    for (const reader of [host, guest]) {
      await waitFor(() => chats(reader).length === 3, 5_000, 'three messages');
      expect(chats(reader).map((m) => [m.seat, m.name, m.body])).toEqual([
        [0, 'Hana', { kind: 'text', text: html }],
        [1, 'Beatriz', { kind: 'phrase', phrase: 'goodLuck' }],
        [0, 'Hana', { kind: 'reaction', reaction: 'clap' }],
      ]);
      expect(chats(reader).every((m) => m.tableId === tableId)).toBe(true);
    }
    expect(chats(guest)[0]!.playerId).toBe(host.playerId);

    // A reload (a new socket, on the other gateway) shows the recent chat, reactions left out.
    const again = await connect(0, guest);
    await again.client.join(tableId);
    const recent = await history(again);
    expect(recent.type === 'chatHistory' && recent.messages.map((m) => m.body)).toEqual([
      { kind: 'text', text: html },
      { kind: 'phrase', phrase: 'goodLuck' },
    ]);
  });

  it(`keeps only the last ${CHAT_HISTORY_KEPT} messages of a table, with a TTL, and a reload gets exactly those`, async () => {
    const [host, guest] = [await talker(0, 'Sami'), await talker(1, 'Tara')];
    const tableId = await table(host, guest);
    const names = redisNames(system.stores.redisPrefix, IN_PROCESS_SHARDS);
    // An old, long chat (as if said earlier), then one more message through the gateway.
    const old = Array.from({ length: CHAT_HISTORY_KEPT + 10 }, (_, i): ChatMessage => ({
      id: `old-${i}`,
      tableId,
      seat: 1,
      playerId: guest.playerId,
      name: guest.name,
      at: i + 1,
      body: { kind: 'text', text: `old ${i}` },
    }));
    const redis = new Redis(system.stores.redisUrl);
    try {
      await redis.rpush(names.chatRecent(tableId), ...old.map((m) => JSON.stringify(m)).reverse());
      await host.client.request('phrase', { phrase: 'thanks' });
      expect(await redis.llen(names.chatRecent(tableId))).toBe(CHAT_HISTORY_KEPT);
      const ttl = await redis.pttl(names.chatRecent(tableId));
      expect(ttl).toBeGreaterThan(CHAT_HISTORY_TTL_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(CHAT_HISTORY_TTL_MS);
    } finally {
      redis.disconnect();
    }
    const again = await connect(1, guest);
    await again.client.join(tableId);
    const recent = await history(again);
    const bodies = recent.type === 'chatHistory' ? recent.messages.map((m) => m.body) : [];
    expect(bodies).toHaveLength(CHAT_HISTORY_KEPT);
    expect(bodies.at(-1)).toEqual({ kind: 'phrase', phrase: 'thanks' });
    // The oldest kept: the newest 49 of the old ones, then the phrase.
    expect(bodies[0]).toEqual({ kind: 'text', text: `old ${old.length - (CHAT_HISTORY_KEPT - 1)}` });
  });

  it("chat never changes the table's version, its stored log or its views", async () => {
    const [host, guest] = [await talker(0, 'Cem'), await talker(1, 'Dara')];
    const tableId = await table(host, guest);
    await sleep(300);
    const before = await stored(tableId);
    const views = host.frames.filter((f) => f.type === 'view').length;
    const synced = await host.client.sync();
    await host.client.request('chat', { text: 'gg' });
    await guest.client.request('phrase', { phrase: 'wellPlayed' });
    await guest.client.request('react', { reaction: 'fire' });
    await waitFor(() => chats(host).length === 3, 5_000, 'the messages');
    await sleep(200);
    expect(await stored(tableId)).toEqual(before);
    expect((await host.client.sync()).version).toBe(synced.version);
    expect(synced.version).toBe(before.version);
    // The syncs' own views only (one each): chat made none.
    expect(host.frames.filter((f) => f.type === 'view').length).toBeLessThanOrEqual(views + 2);
    const kinds = await db.query<{ kind: string }>(
      'SELECT DISTINCT kind FROM table_actions WHERE table_id = $1',
      [tableId],
    );
    expect(kinds.rows.map((r) => r.kind)).not.toContain('chat');
  });
});

describe('spectators read the chat and do not write in it (decision 0018)', () => {
  it('a watching socket on the other gateway gets the recent chat and every new message; its own talk is SPECTATORS_CANNOT_ACT and reaches nobody', async () => {
    const [host, guest] = [await talker(0, 'Pia'), await talker(0, 'Quin')];
    const tableId = await table(host, guest);
    await host.client.request('phrase', { phrase: 'hello' });
    const watcher = await talker(1, 'Rosa');
    await watcher.client.request('watch', { table: tableId });
    const recent = await history(watcher);
    expect(recent.type === 'chatHistory' && recent.messages.map((m) => m.body)).toEqual([
      { kind: 'phrase', phrase: 'hello' },
    ]);
    await guest.client.request('chat', { text: 'welcome, watchers' });
    await waitFor(() => chats(watcher).length === 1, 5_000, 'the message, at the spectator');
    expect(chats(watcher)[0]!.body).toEqual({ kind: 'text', text: 'welcome, watchers' });
    for (const ask of [
      watcher.client.request('chat', { text: 'let me talk' }),
      watcher.client.request('phrase', { phrase: 'hurryUp' }),
      watcher.client.request('react', { reaction: 'laugh' }),
    ])
      expect(await refusal(ask)).toBe('SPECTATORS_CANNOT_ACT');
    await sleep(300);
    expect(chats(host).map((m) => m.body.kind)).toEqual(['phrase', 'text']);
    // Unwatching ends the chat too.
    await watcher.client.request('unwatch', {});
    await host.client.request('react', { reaction: 'thumbsUp' });
    await waitFor(() => chats(guest).length === 3, 5_000, 'the reaction, at the guest');
    await sleep(300);
    expect(chats(watcher)).toHaveLength(1);
  });
});

describe('chat limits and hostile input, on real stores', () => {
  it(`rate: ${RATE} messages per player per window on both gateways together; the next is CHAT_RATE_LIMITED and delivered to nobody`, async () => {
    const host = await talker(0, 'Emil');
    const guest = await talker(1, 'Farah');
    const tableId = await table(host, guest);
    // The host's second socket, on the other gateway, at the same seat.
    const second = await connect(1, host);
    await second.client.join(tableId);
    const sockets = [host, second, host, second, host, second];
    const outcomes: string[] = [];
    for (const [i, s] of sockets.entries())
      outcomes.push(
        await s.client.request('chat', { text: `m${i}` }).then(
          () => 'ok',
          (e: ProtocolError) => e.code,
        ),
      );
    expect(outcomes).toEqual([
      'ok',
      'ok',
      'ok',
      'CHAT_RATE_LIMITED',
      'CHAT_RATE_LIMITED',
      'CHAT_RATE_LIMITED',
    ]);
    await waitFor(() => chats(guest).length === RATE, 5_000, 'the allowed messages');
    await sleep(300);
    expect(chats(guest).map((m) => m.body)).toEqual(
      ['m0', 'm1', 'm2'].map((text) => ({ kind: 'text', text })),
    );
    // Phrases and reactions count too: a flood of them is refused the same way.
    expect(await refusal(host.client.request('react', { reaction: 'thumbsUp' }))).toBe('CHAT_RATE_LIMITED');
    // The other player has a count of their own.
    await guest.client.request('phrase', { phrase: 'hurryUp' });
  });

  it('chat off (the host chose it): a text is CHAT_OFF and reaches nobody; phrases and reactions still work', async () => {
    const [host, guest] = [await talker(0, 'Gita'), await talker(1, 'Hugo')];
    const tableId = await table(host, guest, { chat: false });
    expect(await history(guest)).toMatchObject({ tableId, enabled: false });
    expect(await refusal(host.client.request('chat', { text: 'hello?' }))).toBe('CHAT_OFF');
    await host.client.request('phrase', { phrase: 'hello' });
    await guest.client.request('react', { reaction: 'heart' });
    await waitFor(() => chats(guest).length === 2, 5_000, 'the phrase and the reaction');
    await sleep(200);
    expect(chats(guest).map((m) => m.body.kind)).toEqual(['phrase', 'reaction']);
    const row = await db.query<{ chat: boolean }>('SELECT chat FROM game_tables WHERE id = $1', [tableId]);
    expect(row.rows[0]!.chat).toBe(false);
  });

  it('not seated: before hello UNAUTHENTICATED, a socket at no table NOT_SEATED; a player talks only at their own table', async () => {
    const [host, guest] = [await talker(0, 'Ines'), await talker(1, 'Jon')];
    const tableId = await table(host, guest);
    const [otherHost, otherGuest] = [await talker(1, 'Kai'), await talker(0, 'Lea')];
    await table(otherHost, otherGuest);
    const stranger = await talker(1, 'Mo');
    expect(await refusal(stranger.client.request('chat', { text: 'hi' }))).toBe('NOT_SEATED');
    expect(await refusal(stranger.client.request('phrase', { phrase: 'bye' }))).toBe('NOT_SEATED');
    // Before hello: UNAUTHENTICATED.
    const anonymous = await RawSocket.open(system.wsUrl(0));
    anonymous.send({ type: 'chat', id: 'a1', text: 'who am I' });
    expect(await anonymous.next((f) => f['type'] === 'error')).toMatchObject({
      id: 'a1',
      code: 'UNAUTHENTICATED',
    });
    anonymous.close();
    // The frame names no table: a seated player's message goes to their own table only.
    const aimed: Record<string, unknown> = { type: 'chat', id: 'x1', text: 'hi', table: tableId };
    stranger.client.sendRaw(aimed);
    await waitFor(
      () => stranger.frames.find((f) => f.type === 'error' && f.id === 'x1'),
      3_000,
      'the refusal',
    );
    await otherHost.client.request('chat', { text: 'only at our table' });
    await waitFor(() => chats(otherGuest).length === 1, 5_000, 'the message at the other table');
    await sleep(200);
    expect(chats(host)).toEqual([]);
    expect(chats(guest)).toEqual([]);
    expect(chats(stranger)).toEqual([]);
  });

  it('hostile frames (empty, too long, control characters, not a string, unknown ids) get INVALID_MESSAGE, change nothing, reach nobody', async () => {
    const [host, guest] = [await talker(0, 'Nia'), await talker(1, 'Omar')];
    const tableId = await table(host, guest);
    await sleep(300);
    const before = await stored(tableId);
    const bad = [
      { type: 'chat', text: '' },
      { type: 'chat', text: '   ' },
      { type: 'chat', text: 'x'.repeat(201) },
      { type: 'chat', text: 'line\nbreak' },
      { type: 'chat', text: 'bell\u0007' },
      { type: 'chat', text: 'rtl\u202eoverride' },
      { type: 'chat', text: 42 },
      { type: 'chat', text: { toString: 'x' } },
      { type: 'chat' },
      { type: 'phrase', phrase: 'you lose' },
      { type: 'react', reaction: '🖕' },
      { type: 'react', reaction: '__proto__' },
    ];
    for (const [i, frame] of bad.entries()) host.client.sendRaw({ ...frame, id: `bad${i}` });
    const errors = await waitFor(
      () => {
        const found = host.frames.filter((f) => f.type === 'error' && f.id?.startsWith('bad'));
        return found.length === bad.length ? found : null;
      },
      5_000,
      'every refusal',
    );
    expect(new Set(errors.map((e) => e.type === 'error' && e.code))).toEqual(new Set(['INVALID_MESSAGE']));
    await sleep(300);
    expect(chats(guest)).toEqual([]);
    expect(chats(host)).toEqual([]);
    expect(await stored(tableId)).toEqual(before);
    // The socket is still open and can talk.
    await host.client.request('phrase', { phrase: 'sorry' });
  });
});

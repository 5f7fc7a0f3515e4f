import WebSocket from 'ws';
import {
  createTable,
  DominoesClient,
  type ChatMessage,
  type ServerMessage,
  type SocketLike,
} from '@dominoes/protocol';
import { InProcessSystem } from '../../../e2e/src/in-process';
import { identity, sleep, waitFor } from './support';
import { refusal } from './talk-refusal';

/**
 * A socket talks at a table only while it sits there (decision 0020): its binding is not enough. When
 * the seat is freed (its player left on another socket) or taken back on another socket, the
 * table-service dropped this socket's connection from the seat, and its chat, phrases and reactions
 * are NOT_SEATED and reach nobody. Real Postgres, Redis and table-service, two gateways.
 */
let system: InProcessSystem;
const clients: DominoesClient[] = [];
const socket = (url: string): SocketLike => new WebSocket(url) as unknown as SocketLike;

interface Tab {
  readonly client: DominoesClient;
  readonly frames: ServerMessage[];
}

async function tab(g: number, who: { token: string }): Promise<Tab> {
  const client = new DominoesClient({ socketFactory: socket, replyTimeoutMs: 8_000 });
  clients.push(client);
  const frames: ServerMessage[] = [];
  client.onMessage((m) => frames.push(m));
  await client.connect(system.wsUrl(g), who.token);
  return { client, frames };
}

const chats = (t: Tab): ChatMessage[] => t.frames.flatMap((f) => (f.type === 'chat' ? [f.message] : []));

/** Every talk frame of `t` is refused NOT_SEATED. */
async function cannotTalk(t: Tab): Promise<void> {
  expect(await refusal(t.client.request('chat', { text: 'still here?' }))).toBe('NOT_SEATED');
  expect(await refusal(t.client.request('phrase', { phrase: 'goodGame' }))).toBe('NOT_SEATED');
  expect(await refusal(t.client.request('react', { reaction: 'clap' }))).toBe('NOT_SEATED');
}

beforeAll(async () => {
  system = await InProcessSystem.start('gateway_chat_seat', { gateways: 2 });
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await system?.stop();
});

describe('chat from a socket whose seat was freed (decision 0020)', () => {
  it('the player left on another socket: the old socket’s chat, phrase and reaction are NOT_SEATED and reach nobody; taken back on another socket, only that socket talks', async () => {
    const host = await identity(system.httpUrl(0), 'Hana');
    const guestId = await identity(system.httpUrl(1), 'Gus');
    const { tableId } = await createTable(system.httpUrl(0), host.token, { variant: 'draw', seats: 3 });
    // The host in two tabs, one on each gateway; the guest reads the chat.
    const [first, second] = [await tab(0, host), await tab(1, host)];
    await first.client.join(tableId);
    await second.client.join(tableId);
    const guest = await tab(1, guestId);
    await guest.client.join(tableId);
    await first.client.request('chat', { text: 'hello from the first tab' });
    await waitFor(() => chats(guest).length === 1, 5_000, 'the first tab’s message');

    // Left on the second tab: the seat is freed (the table waits), and the first tab's binding is stale.
    await second.client.leave();
    await cannotTalk(first);
    await cannotTalk(second);

    // Taken back on the second tab (the lowest free seat, the same seat 0): the first tab still cannot talk.
    await second.client.join(tableId);
    await second.client.waitForView((v) => v.you.seat === 0 && v.seats[0]?.name === 'Hana');
    await cannotTalk(first);
    await second.client.request('phrase', { phrase: 'goodLuck' });
    await waitFor(() => chats(guest).length === 2, 5_000, 'the second tab’s phrase');
    await sleep(300);
    expect(chats(guest).map((m) => [m.seat, m.name, m.body])).toEqual([
      [0, 'Hana', { kind: 'text', text: 'hello from the first tab' }],
      [0, 'Hana', { kind: 'phrase', phrase: 'goodLuck' }],
    ]);
  });

  it('a seat freed and then taken by someone else: the old socket cannot talk as that seat', async () => {
    const leaver = await identity(system.httpUrl(0), 'Lena');
    const taker = await identity(system.httpUrl(1), 'Tom');
    const host = await identity(system.httpUrl(1), 'Ida');
    const { tableId } = await createTable(system.httpUrl(1), host.token, { variant: 'draw', seats: 3 });
    const hostTab = await tab(1, host);
    await hostTab.client.join(tableId);
    const [stale, leaving] = [await tab(0, leaver), await tab(0, leaver)];
    await stale.client.join(tableId);
    await leaving.client.join(tableId);
    await leaving.client.leave();
    const takerTab = await tab(1, taker);
    await takerTab.client.join(tableId);
    await takerTab.client.waitForView((v) => v.you.seat === 1);
    await cannotTalk(stale);
    await takerTab.client.request('chat', { text: 'my seat now' });
    await waitFor(() => chats(hostTab).length === 1, 5_000, 'the new player’s message');
    await sleep(300);
    expect(chats(hostTab).map((m) => [m.seat, m.name])).toEqual([[1, 'Tom']]);
  });
});

import {
  CHAT_HISTORY_KEPT,
  CHAT_HISTORY_TTL_MS,
  chatFrameText,
  redisNames,
  type ChatMessage,
  type TalkMessage,
} from '@dominoes/protocol';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { ChatRate } from '../src/chat/chat-rate';
import { ChatRelay, type ChatSender } from '../src/chat/chat-relay';
import { newTableCode } from '../src/lobby/table-opener';
import { eventually, uniquePrefix, waitFor } from './support';
import { fakeConnection, RedisConnections, TestClock } from './unit-fakes';

const redis = new RedisConnections();
afterAll(() => redis.closeAll());

/**
 * A relay on real Redis (commands, a subscriber), a chat rate of 3 messages a minute, and what the
 * table-service stored in Postgres as two plain lookups the test sets: each table's chat setting
 * (`chat`: absent is "no such table") and the seats held (`held`: `table:seat:player:connection`).
 */
function relayRig(names = redisNames(uniquePrefix('chat_relay'), 4)) {
  const clock = new TestClock(1_700_000_000_000);
  const { logger, lines } = recordingLogger();
  const commands = redis.open('chat-relay-test');
  const subscriber = redis.open('chat-relay-test:sub');
  const chat = new Map<string, boolean>();
  const held = new Set<string>();
  const lookups: string[] = [];
  const seatChecks: string[] = [];
  const relay = new ChatRelay({
    redis: commands,
    subscriber,
    names,
    rate: new ChatRate(commands, names, { messages: 3, windowMs: 60_000 }),
    chatEnabled: async (tableId) => {
      lookups.push(tableId);
      return chat.get(tableId) ?? null;
    },
    seatHeld: async (tableId, seat, playerId, connectionId) => {
      const key = `${tableId}:${seat}:${playerId}:${connectionId}`;
      seatChecks.push(key);
      return held.has(key);
    },
    clock,
    logger,
  });
  const subscribers = async (channel: string) =>
    ((await commands.pubsub('NUMSUB', channel)) as [string, number])[1];
  return { names, clock, lines, commands, subscriber, chat, held, lookups, seatChecks, relay, subscribers };
}

type Rig = ReturnType<typeof relayRig>;

/** A socket of player `playerId` seated at `tableId`'s seat `seat`, its seat held in the store. */
function seatedSender(rig: Rig, tableId: string, seat: number, playerId: string) {
  const made = fakeConnection(`${playerId}-conn`, { id: playerId, name: `Name ${playerId}` });
  made.conn.binding = { tableId, seat, key: `${seat}:${tableId}` };
  rig.held.add(`${tableId}:${seat}:${playerId}:${made.conn.id}`);
  return made;
}

const text = (t: string): TalkMessage => ({ type: 'chat', id: 'c1', text: t });
const phrase: TalkMessage = { type: 'phrase', id: 'p1', phrase: 'goodGame' };
const reaction: TalkMessage = { type: 'react', id: 'r1', reaction: 'clap' };

const chatHistories = (frames: Record<string, unknown>[]) =>
  frames.filter((f) => f['type'] === 'chatHistory');

describe('ChatRelay.say (real Redis): who may talk, and what is published and kept', () => {
  it("publishes a seated player's text on the table's chat channel and keeps it in the recent list, with a TTL", async () => {
    const rig = relayRig();
    const table = newTableCode();
    rig.chat.set(table, true);
    const { conn } = seatedSender(rig, table, 2, 'alice');
    const heard: string[] = [];
    const listener = redis.open('chat-relay-test:listener');
    await listener.subscribe(rig.names.chatChannel(table));
    listener.on('message', (_channel: string, message: string) => heard.push(message));
    const outcome = await rig.relay.say(conn, text('hello all'));
    if (!outcome.ok) throw new Error(`refused: ${outcome.code}`);
    const expected: ChatMessage = {
      id: outcome.message.id,
      tableId: table,
      seat: 2,
      playerId: 'alice',
      name: 'Name alice',
      at: rig.clock.t,
      body: { kind: 'text', text: 'hello all' },
    };
    expect(outcome.message).toEqual(expected);
    expect(outcome.message.id).toMatch(new RegExp(`^${rig.clock.t.toString(36)}-[0-9a-f]{12}$`));
    await waitFor(() => heard.length === 1, 1000, 'the published message');
    expect(JSON.parse(heard[0]!)).toEqual(expected);
    const recent = rig.names.chatRecent(table);
    expect(await rig.commands.lrange(recent, 0, -1)).toEqual([heard[0]]);
    const ttl = await rig.commands.pttl(recent);
    expect(ttl).toBeGreaterThan(CHAT_HISTORY_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(CHAT_HISTORY_TTL_MS);
    expect(rig.seatChecks).toEqual([`${table}:2:alice:alice-conn`]);
  });

  it('keeps only the last CHAT_HISTORY_KEPT messages of a table, newest first', async () => {
    const rig = relayRig();
    const table = newTableCode();
    rig.chat.set(table, true);
    const senders = Array.from({ length: 18 }, (_, i) => seatedSender(rig, table, 0, `p${i}`).conn);
    // 3 messages per player and minute: 18 players say 3 each, 54 messages.
    for (let round = 0; round < 3; round++)
      for (const [i, sender] of senders.entries()) {
        rig.clock.t += 1;
        const outcome = await rig.relay.say(sender, text(`m${round}-${i}`));
        expect(outcome.ok).toBe(true);
      }
    const kept = await rig.commands.lrange(rig.names.chatRecent(table), 0, -1);
    expect(kept).toHaveLength(CHAT_HISTORY_KEPT);
    expect((JSON.parse(kept[0]!) as ChatMessage).body).toEqual({ kind: 'text', text: 'm2-17' });
    expect((JSON.parse(kept.at(-1)!) as ChatMessage).body).toEqual({ kind: 'text', text: 'm0-4' });
  });

  it('a quick phrase is kept like a text; a reaction is published but never kept', async () => {
    const rig = relayRig();
    const table = newTableCode();
    rig.chat.set(table, true);
    const { conn } = seatedSender(rig, table, 1, 'bob');
    const said = await rig.relay.say(conn, phrase);
    const reacted = await rig.relay.say(conn, reaction);
    expect(said).toMatchObject({ ok: true, message: { body: { kind: 'phrase', phrase: 'goodGame' } } });
    expect(reacted).toMatchObject({ ok: true, message: { body: { kind: 'reaction', reaction: 'clap' } } });
    const kept = await rig.commands.lrange(rig.names.chatRecent(table), 0, -1);
    expect(kept.map((t) => (JSON.parse(t) as ChatMessage).body.kind)).toEqual(['phrase']);
  });

  it('refuses a socket without a player (UNAUTHENTICATED), a spectator (SPECTATORS_CANNOT_ACT) and a socket on no seat (NOT_SEATED), and publishes nothing', async () => {
    const rig = relayRig();
    const table = newTableCode();
    rig.chat.set(table, true);
    const anonymous: ChatSender = { id: 'x', player: null, binding: { tableId: table, seat: 0 } };
    const spectator: ChatSender = {
      id: 'y',
      player: { id: 's', name: 'S' },
      binding: null,
      watching: { tableId: table },
    };
    const nowhere: ChatSender = { id: 'z', player: { id: 'n', name: 'N' }, binding: null, watching: null };
    expect(await rig.relay.say(anonymous, text('hi'))).toEqual({
      ok: false,
      code: 'UNAUTHENTICATED',
      message: 'Say hello with your token first.',
    });
    expect(await rig.relay.say(spectator, text('hi'))).toEqual({
      ok: false,
      code: 'SPECTATORS_CANNOT_ACT',
      message: 'Spectators read the chat; only the players seated at the table write.',
    });
    expect(await rig.relay.say(nowhere, text('hi'))).toEqual({
      ok: false,
      code: 'NOT_SEATED',
      message: 'Only the players seated at a table talk there.',
    });
    expect(rig.seatChecks).toEqual([]);
    expect(await rig.commands.exists(rig.names.chatRecent(table))).toBe(0);
  });

  it('refuses a socket whose binding outlived its seat (freed, or taken back on another socket): NOT_SEATED', async () => {
    const rig = relayRig();
    const table = newTableCode();
    rig.chat.set(table, true);
    const { conn } = seatedSender(rig, table, 0, 'carol');
    rig.held.clear();
    expect(await rig.relay.say(conn, phrase)).toEqual({
      ok: false,
      code: 'NOT_SEATED',
      message: 'You are no longer seated at this table: join it again to talk.',
    });
    expect(await rig.commands.exists(rig.names.chatRecent(table))).toBe(0);
  });

  it('with chat turned off (or the table not found) texts are refused with CHAT_OFF; phrases and reactions still go', async () => {
    const rig = relayRig();
    const off = newTableCode();
    const gone = newTableCode();
    rig.chat.set(off, false);
    const atOff = seatedSender(rig, off, 0, 'dave').conn;
    const atGone = seatedSender(rig, gone, 0, 'erin').conn;
    const chatOff = {
      ok: false,
      code: 'CHAT_OFF',
      message: 'The host turned text chat off at this table; quick phrases and reactions work.',
    };
    expect(await rig.relay.say(atOff, text('hi'))).toEqual(chatOff);
    expect(await rig.relay.say(atGone, text('hi'))).toEqual(chatOff);
    expect((await rig.relay.say(atOff, phrase)).ok).toBe(true);
    expect((await rig.relay.say(atOff, reaction)).ok).toBe(true);
  });

  it("refuses past the player's rate with CHAT_RATE_LIMITED, on every table", async () => {
    const rig = relayRig();
    const [a, b] = [newTableCode(), newTableCode()];
    rig.chat.set(a, true).set(b, true);
    const first = seatedSender(rig, a, 0, 'frank').conn;
    const second = seatedSender(rig, b, 0, 'frank').conn;
    expect([(await rig.relay.say(first, phrase)).ok, (await rig.relay.say(second, phrase)).ok]).toEqual([
      true,
      true,
    ]);
    expect((await rig.relay.say(first, phrase)).ok).toBe(true);
    expect(await rig.relay.say(second, phrase)).toEqual({
      ok: false,
      code: 'CHAT_RATE_LIMITED',
      message: 'Too many messages: wait a few seconds.',
    });
  });

  it('a failure on the way (the seat lookup throws) is UNAVAILABLE, logged, and publishes nothing', async () => {
    const rig = relayRig();
    const table = newTableCode();
    const { conn } = seatedSender(rig, table, 3, 'gina');
    const { logger, lines } = recordingLogger();
    const broken = new ChatRelay({
      redis: rig.commands,
      subscriber: redis.open('chat-relay-test:sub2'),
      names: rig.names,
      rate: new ChatRate(rig.commands, rig.names, { messages: 3, windowMs: 60_000 }),
      chatEnabled: async () => true,
      seatHeld: async () => {
        throw new Error('Postgres is down');
      },
      clock: rig.clock,
      logger,
    });
    expect(await broken.say(conn, phrase)).toEqual({
      ok: false,
      code: 'UNAVAILABLE',
      message: 'The chat is not available right now; try again.',
    });
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, msg: 'chat message not sent', tableId: table, player: 'gina' }),
    ]);
    expect(await rig.commands.exists(rig.names.chatRecent(table))).toBe(0);
  });

  it("asks for a table's chat setting once, then remembers it; a table not found is asked again", async () => {
    const rig = relayRig();
    const [known, missing] = [newTableCode(), newTableCode()];
    rig.chat.set(known, true);
    const atKnown = seatedSender(rig, known, 0, 'hal').conn;
    const atMissing = seatedSender(rig, missing, 0, 'ivy').conn;
    await rig.relay.say(atKnown, text('one'));
    await rig.relay.say(atKnown, text('two'));
    await rig.relay.say(atMissing, text('one'));
    await rig.relay.say(atMissing, text('two'));
    expect(rig.lookups).toEqual([known, missing, missing]);
  });
  it('remembers the settings of 10,000 tables: one more forgets the oldest, which is asked again', async () => {
    const rig = relayRig();
    const tables = Array.from({ length: 10_001 }, () => newTableCode());
    const senderAt = (tableId: string): ChatSender => {
      rig.held.add(`${tableId}:0:p:conn`);
      return { id: 'conn', player: { id: 'p', name: 'P' }, binding: { tableId, seat: 0 } };
    };
    // Chat off everywhere: each text is refused before Redis is asked anything.
    for (const table of tables) rig.chat.set(table, false);
    for (const table of tables) await rig.relay.say(senderAt(table), text('x'));
    expect(rig.lookups).toHaveLength(10_001);
    await rig.relay.say(senderAt(tables[1]!), text('x'));
    expect(rig.lookups).toHaveLength(10_001);
    await rig.relay.say(senderAt(tables[0]!), text('x'));
    expect(rig.lookups.slice(10_001)).toEqual([tables[0]]);
  });
});

describe("ChatRelay.follow (real Redis): the readers of a table's chat", () => {
  it("sends a new reader the table's setting and recent messages, oldest first, dropping entries that are not this table's messages", async () => {
    const rig = relayRig();
    const table = newTableCode();
    rig.chat.set(table, true);
    const speaker = seatedSender(rig, table, 0, 'jo').conn;
    const first = await rig.relay.say(speaker, text('first'));
    rig.clock.t += 5;
    const second = await rig.relay.say(speaker, phrase);
    const recent = rig.names.chatRecent(table);
    const other = { ...(first.ok ? first.message : {}), tableId: newTableCode() };
    await rig.commands.lpush(recent, 'not json', JSON.stringify({ id: 'bad' }), JSON.stringify(other));
    const reader = fakeConnection('reader');
    await rig.relay.follow(reader.conn, table);
    expect(reader.socket.frames()).toEqual([
      {
        type: 'chatHistory',
        tableId: table,
        enabled: true,
        messages: [first.ok && first.message, second.ok && second.message],
      },
    ]);
    expect(rig.relay.tables).toBe(1);
  });

  it('tells the reader that chat is off, at an off table and at one not found', async () => {
    const rig = relayRig();
    const [off, missing] = [newTableCode(), newTableCode()];
    rig.chat.set(off, false);
    const a = fakeConnection('a');
    const b = fakeConnection('b');
    await rig.relay.follow(a.conn, off);
    await rig.relay.follow(b.conn, missing);
    expect(a.socket.frames()).toEqual([{ type: 'chatHistory', tableId: off, enabled: false, messages: [] }]);
    expect(b.socket.frames()).toEqual([
      { type: 'chatHistory', tableId: missing, enabled: false, messages: [] },
    ]);
  });

  it('passes every message published on the chat channel (by any gateway) to each reader of the table, as it came', async () => {
    const rig = relayRig();
    const otherGateway = relayRig(rig.names);
    const table = newTableCode();
    rig.chat.set(table, true);
    otherGateway.chat.set(table, true);
    const r1 = fakeConnection('r1');
    const r2 = fakeConnection('r2');
    await rig.relay.follow(r1.conn, table);
    await rig.relay.follow(r2.conn, table);
    expect(rig.relay.tables).toBe(1);
    expect(await rig.subscribers(rig.names.chatChannel(table))).toBe(1);
    const speaker = seatedSender(otherGateway, table, 1, 'kim').conn;
    const said = await otherGateway.relay.say(speaker, text('over here'));
    if (!said.ok) throw new Error('refused');
    await waitFor(() => r1.socket.sent.length === 2 && r2.socket.sent.length === 2, 1000, 'the message');
    expect(r1.socket.sent[1]).toBe(chatFrameText(JSON.stringify(said.message)));
    expect(r2.socket.sent[1]).toBe(r1.socket.sent[1]);
  });

  it('drops a message on the channel that is not a message of that table, with a warning', async () => {
    const rig = relayRig();
    const table = newTableCode();
    const reader = fakeConnection('r');
    await rig.relay.follow(reader.conn, table);
    const channel = rig.names.chatChannel(table);
    const good = {
      id: 'x',
      tableId: table,
      seat: 0,
      playerId: 'p',
      name: 'P',
      at: 1,
      body: { kind: 'phrase', phrase: 'hello' },
    };
    await rig.commands.publish(channel, 'not json');
    await rig.commands.publish(channel, JSON.stringify({ ...good, tableId: newTableCode() }));
    await rig.commands.publish(channel, JSON.stringify(good));
    await waitFor(() => reader.socket.sent.length === 2, 1000, 'the good message');
    expect(reader.socket.sent[1]).toBe(chatFrameText(JSON.stringify(good)));
    const warned = rig.lines.filter((l) => l.msg === 'dropped an invalid chat message');
    expect(warned).toHaveLength(2);
    expect(warned[0]).toMatchObject({ level: 40, channel });
  });

  it("a reader reads one table: following another stops the first one's messages, and the first channel is left", async () => {
    const rig = relayRig();
    const [a, b] = [newTableCode(), newTableCode()];
    const reader = fakeConnection('r');
    await rig.relay.follow(reader.conn, a);
    await rig.relay.follow(reader.conn, b);
    expect(rig.relay.tables).toBe(1);
    await eventually(async () => (await rig.subscribers(rig.names.chatChannel(a))) === 0, 1000, 'left a');
    expect(await rig.subscribers(rig.names.chatChannel(b))).toBe(1);
    expect(chatHistories(reader.socket.frames()).map((f) => f['tableId'])).toEqual([a, b]);
  });

  it('following the same table again sends the history again, on the one subscription', async () => {
    const rig = relayRig();
    const table = newTableCode();
    const reader = fakeConnection('r');
    await rig.relay.follow(reader.conn, table);
    await rig.relay.follow(reader.conn, table);
    expect(chatHistories(reader.socket.frames())).toHaveLength(2);
    expect(rig.relay.tables).toBe(1);
    expect(await rig.subscribers(rig.names.chatChannel(table))).toBe(1);
  });

  it("a reader that moved to another table before its history was read gets only the new table's", async () => {
    const rig = relayRig();
    const [a, b] = [newTableCode(), newTableCode()];
    const reader = fakeConnection('r');
    await Promise.all([rig.relay.follow(reader.conn, a), rig.relay.follow(reader.conn, b)]);
    expect(chatHistories(reader.socket.frames()).map((f) => f['tableId'])).toEqual([b]);
  });

  it('unfollow of another table than the one read changes nothing; of the table read, its messages stop and the channel is left once no reader is left', async () => {
    const rig = relayRig();
    const table = newTableCode();
    const channel = rig.names.chatChannel(table);
    const r1 = fakeConnection('r1');
    const r2 = fakeConnection('r2');
    await rig.relay.follow(r1.conn, table);
    await rig.relay.follow(r2.conn, table);
    const said = (id: string) =>
      JSON.stringify({
        id,
        tableId: table,
        seat: 0,
        playerId: 'p',
        name: 'P',
        at: 1,
        body: { kind: 'reaction', reaction: 'wow' },
      });
    rig.relay.unfollow(r1.conn, newTableCode());
    rig.relay.unfollow(fakeConnection('never').conn);
    await rig.commands.publish(channel, said('m1'));
    await waitFor(() => r1.socket.sent.length === 2 && r2.socket.sent.length === 2, 1000, 'both still read');
    rig.relay.unfollow(r1.conn, table);
    expect(rig.relay.tables).toBe(1);
    expect(await rig.subscribers(channel)).toBe(1);
    await rig.commands.publish(channel, said('m2'));
    await waitFor(() => r2.socket.sent.length === 3, 1000, 'the message to the reader left');
    expect(r1.socket.sent).toHaveLength(2);
    rig.relay.unfollow(r1.conn); // not reading any more: nothing to undo
    rig.relay.unfollow(r2.conn);
    expect(rig.relay.tables).toBe(0);
    await eventually(async () => (await rig.subscribers(channel)) === 0, 1000, 'the channel left');
    // A message that was on its way when the channel was left reaches no one, and is no failure.
    rig.subscriber.emit('message', channel, said('m3'));
    expect(r2.socket.sent).toHaveLength(3);
    expect(rig.lines).toEqual([]);
  });

  it('a history that cannot be read (Redis gone) is not sent, and is logged', async () => {
    const rig = relayRig();
    const table = newTableCode();
    const reader = fakeConnection('r');
    rig.commands.disconnect();
    await rig.relay.follow(reader.conn, table);
    expect(reader.socket.sent).toEqual([]);
    expect(rig.lines).toEqual([
      expect.objectContaining({ level: 40, msg: 'chat history not sent', tableId: table, conn: 'r' }),
    ]);
  });

  it('a reader that throws is logged as a failed delivery', async () => {
    const rig = relayRig();
    const table = newTableCode();
    const reader = fakeConnection('r');
    await rig.relay.follow(reader.conn, table);
    reader.conn.sendText = () => {
      throw new Error('reader broke');
    };
    const good = {
      id: 'z',
      tableId: table,
      seat: 0,
      playerId: 'p',
      name: 'P',
      at: 1,
      body: { kind: 'phrase', phrase: 'bye' },
    };
    await rig.commands.publish(rig.names.chatChannel(table), JSON.stringify(good));
    await waitFor(() => rig.lines.some((l) => l.msg === 'chat delivery failed'), 1000, 'the error line');
    expect(rig.lines.find((l) => l.msg === 'chat delivery failed')).toMatchObject({
      level: 50,
      channel: rig.names.chatChannel(table),
      err: expect.objectContaining({ message: 'reader broke' }),
    });
  });

  it("an unsubscribe that fails is logged; the subscriber's Redis errors are warnings", async () => {
    const rig = relayRig();
    const table = newTableCode();
    const reader = fakeConnection('r');
    await rig.relay.follow(reader.conn, table);
    rig.subscriber.emit('error', new Error('connection reset'));
    rig.subscriber.disconnect();
    await waitFor(() => rig.subscriber.status === 'end', 1000, 'the disconnect');
    rig.relay.unfollow(reader.conn);
    await waitFor(() => rig.lines.some((l) => l.msg === 'unsubscribe failed'), 1000, 'the warning');
    expect(rig.lines).toEqual([
      expect.objectContaining({ level: 40, msg: 'chat subscriber: Redis error', err: 'connection reset' }),
      expect.objectContaining({
        level: 40,
        msg: 'unsubscribe failed',
        channel: rig.names.chatChannel(table),
      }),
    ]);
  });

  it('close forgets its readers and quits both its connections', async () => {
    const rig = relayRig();
    const reader = fakeConnection('r');
    await rig.relay.follow(reader.conn, newTableCode());
    await rig.relay.close();
    expect(rig.relay.tables).toBe(0);
    await waitFor(() => rig.subscriber.status === 'end' && rig.commands.status === 'end', 1000, 'both ended');
    await rig.relay.close();
  });
});

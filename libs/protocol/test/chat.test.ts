import {
  CHAT_PHRASES,
  CHAT_REACTIONS,
  CHAT_TEXT_MAX_CHARACTERS,
  chatFrameText,
  ChatMessageSchema,
  CreateTableRequestSchema,
  isTalkMessage,
  parseClientFrame,
  REACTION_EMOJI,
  redisNames,
  ServerMessageSchema,
  type ChatMessage,
} from '@dominoes/protocol';

const refusal = (frame: unknown) => {
  const parsed = parseClientFrame(JSON.stringify(frame));
  if (parsed.ok) throw new Error(`accepted ${JSON.stringify(frame)}`);
  return parsed.error;
};
const accepted = (frame: unknown) => {
  const parsed = parseClientFrame(JSON.stringify(frame));
  if (!parsed.ok) throw new Error(`refused ${JSON.stringify(frame)}: ${parsed.error.message}`);
  return parsed.value;
};

describe('chat frames: texts, quick phrases and reactions are checked before they reach anyone', () => {
  it('accepts a text, a phrase id and a reaction id, all three talk frames', () => {
    const text = accepted({ type: 'chat', id: 'c1', text: 'Good luck, all!' });
    const phrase = accepted({ type: 'phrase', id: 'c2', phrase: 'goodGame' });
    const react = accepted({ type: 'react', id: 'c3', reaction: 'thumbsUp' });
    expect([text, phrase, react].every(isTalkMessage)).toBe(true);
    expect(isTalkMessage(accepted({ type: 'pass', id: 'p' }))).toBe(false);
  });

  it('normalises a text (NFC, one space for a run, trimmed) and keeps emoji joined by ZWJ', () => {
    expect(accepted({ type: 'chat', id: 'c', text: '  e\u0301  bien\u3000 joué ' })).toMatchObject({
      text: 'é bien joué',
    });
    expect(accepted({ type: 'chat', id: 'c', text: '👨‍👩‍👧 gg' })).toMatchObject({ text: '👨‍👩‍👧 gg' });
  });

  it(`takes ${CHAT_TEXT_MAX_CHARACTERS} characters (as people count them) and refuses one more`, () => {
    expect(accepted({ type: 'chat', id: 'c', text: 'x'.repeat(CHAT_TEXT_MAX_CHARACTERS) })).toBeTruthy();
    expect(accepted({ type: 'chat', id: 'c', text: '👍🏽'.repeat(CHAT_TEXT_MAX_CHARACTERS) })).toBeTruthy();
    const long = refusal({ type: 'chat', id: 'c', text: 'x'.repeat(CHAT_TEXT_MAX_CHARACTERS + 1) });
    expect(long).toMatchObject({ code: 'INVALID_MESSAGE', id: 'c' });
    expect(long.message).toContain(`at most ${CHAT_TEXT_MAX_CHARACTERS} characters`);
  });

  it.each([
    ['empty', ''],
    ['only spaces', '   \u00a0 '],
    ['a newline', 'hi\nthere'],
    ['a tab', 'hi\tthere'],
    ['a NUL', 'hi\u0000'],
    ['a C1 control', 'hi\u0085'],
    ['a direction override', 'abc\u202edcba'],
    ['a zero-width space', 'a\u200bb'],
    ['a line separator', 'a\u2028b'],
    ['a lone surrogate', 'a\ud800b'],
    ['a private-use character', 'a\ue000'],
    ['a tower of accents', `a${'\u0301'.repeat(12)}`],
  ])('refuses a text with %s (INVALID_MESSAGE)', (_what, text) => {
    expect(refusal({ type: 'chat', id: 'c', text })).toMatchObject({ code: 'INVALID_MESSAGE', id: 'c' });
  });

  it.each([
    ['a number', 42],
    ['null', null],
    ['an array', ['hi']],
    ['an object', { html: '<b>' }],
  ])('refuses a text that is %s, and a missing text', (_what, text) => {
    expect(refusal({ type: 'chat', id: 'c', text })).toMatchObject({ code: 'INVALID_MESSAGE' });
    expect(refusal({ type: 'chat', id: 'c' }).message).toContain('text: missing');
  });

  it('refuses an unknown phrase or reaction id, free text in their place, and extra fields', () => {
    expect(refusal({ type: 'phrase', id: 'c', phrase: 'insult' })).toMatchObject({ code: 'INVALID_MESSAGE' });
    expect(refusal({ type: 'phrase', id: 'c', phrase: 'Good game' })).toMatchObject({
      code: 'INVALID_MESSAGE',
    });
    expect(refusal({ type: 'react', id: 'c', reaction: '💩' })).toMatchObject({ code: 'INVALID_MESSAGE' });
    expect(refusal({ type: 'react', id: 'c', reaction: 'toString' })).toMatchObject({
      code: 'INVALID_MESSAGE',
    });
    expect(refusal({ type: 'chat', id: 'c', text: 'hi', table: 'ABCDEFGHJKMN' }).message).toContain(
      "unknown field 'table'",
    );
    expect(refusal({ type: 'chat', id: 'c', text: 'hi', seat: 2 }).message).toContain("unknown field 'seat'");
  });

  it('has an emoji for every reaction, and distinct phrase ids', () => {
    expect(Object.keys(REACTION_EMOJI).sort()).toEqual([...CHAT_REACTIONS].sort());
    expect(new Set(CHAT_PHRASES).size).toBe(CHAT_PHRASES.length);
  });
});

describe('chat on the wire: what readers receive, and the table setting', () => {
  const message: ChatMessage = {
    id: 'm1',
    tableId: 'ABCDEFGHJKMN',
    seat: 1,
    playerId: 'p1',
    name: 'Beatriz',
    at: 1,
    body: { kind: 'text', text: '<script>alert(1)</script>' },
  };

  it('the chat frame text around a message is the frame JSON.stringify makes, and passes the schema', () => {
    const text = chatFrameText(JSON.stringify(message));
    expect(text).toBe(JSON.stringify({ type: 'chat', message }));
    expect(ServerMessageSchema.safeParse(JSON.parse(text)).success).toBe(true);
  });

  it('a message body is a text, a known phrase or a known reaction', () => {
    expect(
      ChatMessageSchema.safeParse({ ...message, body: { kind: 'phrase', phrase: 'hurryUp' } }).success,
    ).toBe(true);
    expect(
      ChatMessageSchema.safeParse({ ...message, body: { kind: 'phrase', phrase: 'nope' } }).success,
    ).toBe(false);
    expect(ChatMessageSchema.safeParse({ ...message, body: { kind: 'html', html: '<b>' } }).success).toBe(
      false,
    );
  });

  it('the chat history frame carries the setting and the messages', () => {
    const frame = { type: 'chatHistory', tableId: message.tableId, enabled: false, messages: [message] };
    expect(ServerMessageSchema.safeParse(frame).success).toBe(true);
  });

  it('CreateTableRequest takes chat: true or false (default: absent, on), nothing else', () => {
    expect(CreateTableRequestSchema.parse({ chat: false })).toMatchObject({ chat: false });
    expect(CreateTableRequestSchema.parse({}).chat).toBeUndefined();
    expect(CreateTableRequestSchema.safeParse({ chat: 'off' }).success).toBe(false);
    expect(CreateTableRequestSchema.safeParse({ chat: 0 }).success).toBe(false);
  });

  it("a table's chat channel and recent list, and a player's rate counter, are distinct names under the prefix", () => {
    const names = redisNames('p');
    const all = [
      names.chatChannel('T1'),
      names.chatRecent('T1'),
      names.chatRate('P1'),
      names.viewsChannel('T1'),
    ];
    expect(new Set(all).size).toBe(all.length);
    for (const name of all) expect(name.startsWith('p:')).toBe(true);
    expect(names.chatChannel('T1')).not.toBe(names.chatChannel('T2'));
  });
});

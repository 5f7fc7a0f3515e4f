import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CLIENT_MESSAGE_TYPES,
  MAX_FRAME_BYTES,
  parseClientFrame,
  renderProtocolDoc,
  shardOf,
  TABLE_CODE_ALPHABET,
  TABLE_CODE_LENGTH,
  TableCodeSchema,
} from '@dominoes/protocol';

const refusal = (raw: string) => {
  const parsed = parseClientFrame(raw);
  if (parsed.ok) throw new Error(`accepted ${raw}`);
  return parsed.error;
};

describe('parseClientFrame: every frame a browser sends is checked, and bad ones become typed errors', () => {
  it('accepts every well-formed message type', () => {
    const good = [
      { type: 'hello', token: 't' },
      { type: 'join', id: 'a', table: 'ABCDEFGHJKMN' },
      { type: 'play', id: 'b', tile: [6, 6], end: 'left' },
      { type: 'play', id: 'b2', tile: [0, 1] },
      { type: 'pass', id: 'c' },
      { type: 'draw', id: 'd' },
      { type: 'autoPass', id: 'e', on: true },
      { type: 'startRound', id: 'f' },
      { type: 'newMatch', id: 'g' },
      { type: 'sync', id: 'h' },
      { type: 'leave', id: 'i' },
      { type: 'watch', id: 'w', table: 'ABCDEFGHJKMN' },
      { type: 'unwatch', id: 'uw' },
      { type: 'ping' },
      { type: 'lobby', id: 'lb', on: true },
      { type: 'quickPlay', id: 'qp', variant: 'draw', seats: 2 },
      { type: 'chat', id: 'j', text: 'gg' },
      { type: 'phrase', id: 'k', phrase: 'goodGame' },
      { type: 'react', id: 'l', reaction: 'clap' },
    ];
    for (const frame of good) expect(parseClientFrame(JSON.stringify(frame)).ok).toBe(true);
    expect(new Set(good.map((g) => g.type))).toEqual(new Set(CLIENT_MESSAGE_TYPES));
  });

  it.each([
    ['not JSON', '{"type":', 'BAD_JSON'],
    ['JSON that is not an object', '[1]', 'INVALID_MESSAGE'],
    ['null', 'null', 'INVALID_MESSAGE'],
    ['no type', '{"id":"x"}', 'INVALID_MESSAGE'],
    ['an unknown type', '{"type":"teleport","id":"x"}', 'UNKNOWN_TYPE'],
    ['a prototype key as type', '{"type":"__proto__","id":"x"}', 'UNKNOWN_TYPE'],
    ['a missing field', '{"type":"play","id":"x"}', 'INVALID_MESSAGE'],
    ['an extra field', '{"type":"pass","id":"x","also":1}', 'INVALID_MESSAGE'],
    ['a tile out of range', '{"type":"play","id":"x","tile":[3,7]}', 'INVALID_MESSAGE'],
    ['a fractional tile', '{"type":"play","id":"x","tile":[3,1.5]}', 'INVALID_MESSAGE'],
    ['an id with spaces', '{"type":"pass","id":"a b"}', 'INVALID_MESSAGE'],
  ])('%s → %s', (_kind, raw, code) => {
    const error = refusal(raw);
    expect(error.code).toBe(code);
    expect(error.message).not.toHaveLength(0);
  });

  it('names missing and unknown fields in the message, and echoes the frame id', () => {
    expect(refusal('{"type":"play","id":"q1"}')).toMatchObject({
      id: 'q1',
      message: expect.stringContaining('tile: missing'),
    });
    expect(refusal('{"type":"pass","id":"q2","x":1}').message).toContain("unknown field 'x'");
    // An id that is itself invalid is not echoed: the error frame must stay valid.
    expect(refusal('{"type":"pass","id":"has spaces"}').id).toBeNull();
  });

  it('names a field of the wrong type as such, not as missing', () => {
    const message = refusal('{"type":"play","id":"q3","tile":"6-6"}').message;
    expect(message).toMatch(/^tile: /);
    expect(message).not.toContain('missing');
    expect(refusal('{"type":"play","id":"q4","tile":[6,"6"]}').message).toMatch(/^tile\.1: (?!missing)/);
  });

  it(`refuses a frame over ${MAX_FRAME_BYTES} bytes unread, counting UTF-8 bytes`, () => {
    expect(refusal(`{"type":"sync","id":"x","p":"${'a'.repeat(MAX_FRAME_BYTES)}"}`).code).toBe(
      'FRAME_TOO_LARGE',
    );
    expect(refusal(`{"type":"sync","id":"x","p":"${'é'.repeat(MAX_FRAME_BYTES / 2)}"}`).code).toBe(
      'FRAME_TOO_LARGE',
    );
  });
});

describe('table codes', () => {
  it('are 12 characters of the 31-letter alphabet: the old 6-character codes and look-alikes are refused', () => {
    expect([TABLE_CODE_ALPHABET.length, TABLE_CODE_LENGTH]).toEqual([31, 12]);
    expect(TableCodeSchema.safeParse('K7M2QXP4HT9R').success).toBe(true);
    for (const bad of [
      'K7M2QX',
      'K7M2QXP4HT9',
      'K7M2QXP4HT9RA',
      'K7M2QXP4HT9O',
      'k7m2qxp4ht9r',
      'K7M2QXP4HT91',
    ]) {
      expect({ bad, ok: TableCodeSchema.safeParse(bad).success }).toEqual({ bad, ok: false });
    }
    expect(refusal('{"type":"join","id":"j","table":"K7M2QX"}').code).toBe('INVALID_MESSAGE');
  });
});

describe('routing', () => {
  it('puts a table in the same shard everywhere, spread over all shards', () => {
    expect(shardOf('ABCDEF', 16)).toBe(shardOf('ABCDEF', 16));
    const used = new Set(Array.from({ length: 500 }, (_, i) => shardOf(`T${i}`, 16)));
    expect(used.size).toBe(16);
  });
});

describe('docs/protocol.md', () => {
  it('is generated from the schemas and up to date (run `npm run docs:protocol`)', () => {
    const committed = readFileSync(join(__dirname, '../../../docs/protocol.md'), 'utf8');
    expect(committed).toBe(renderProtocolDoc());
  });
});

import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BODY_LIMIT_BYTES, isJsonType, jsonBody } from '../src/http/json-body';

/**
 * The API's body parser on a real HTTP server of its own (the mutation run's survivors in
 * json-body.ts, docs/testing.md): which methods skip it, what a body must be declared as, the size
 * limit at its boundary (declared or streamed), empty and broken JSON, and what reaches the handler.
 */
const LIMIT = 32;
let server: Server;
let port: number;
/** How many requests reached the handler behind the parser. */
let reached = 0;

beforeAll(async () => {
  const parse = jsonBody(LIMIT);
  server = createServer((req: IncomingMessage & { body?: unknown }, res) => {
    parse(req, res, () => {
      reached++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ reached: true, body: req.body === undefined ? '<none>' : req.body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Answer {
  readonly status: number;
  readonly json: unknown;
}

/** One request; `chunks` are written one by one (chunked transfer) unless `length` is declared. */
function send(method: string, headers: Record<string, string>, chunks: string[] = []): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: '/', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, json: text === '' ? null : JSON.parse(text) }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}
const JSON_TYPE = { 'content-type': 'application/json' };
const sized = (text: string) => ({ ...JSON_TYPE, 'content-length': String(Buffer.byteLength(text)) });
const error = (code: string) => expect.objectContaining({ error: expect.objectContaining({ code }) });

describe('the JSON body parser', () => {
  it('GET, HEAD and OPTIONS reach the handler without a body being read', async () => {
    for (const method of ['GET', 'OPTIONS'])
      expect(await send(method, {})).toEqual({ status: 200, json: { reached: true, body: '<none>' } });
    expect((await send('HEAD', {})).status).toBe(200);
  });

  it('a POST with no body, or only whitespace, reaches the handler with no body', async () => {
    expect(await send('POST', {})).toEqual({ status: 200, json: { reached: true, body: '<none>' } });
    expect(await send('POST', sized('  \n '), ['  \n '])).toEqual({
      status: 200,
      json: { reached: true, body: '<none>' },
    });
  });

  it('a JSON body is parsed, declared by length or streamed in chunks', async () => {
    const text = '{"name":"Ana"}';
    expect(await send('POST', sized(text), [text])).toEqual({
      status: 200,
      json: { reached: true, body: { name: 'Ana' } },
    });
    expect(await send('POST', JSON_TYPE, ['{"name":', '"Ana"}'])).toEqual({
      status: 200,
      json: { reached: true, body: { name: 'Ana' } },
    });
  });

  it('415 UNSUPPORTED_MEDIA_TYPE for a body not declared as JSON in UTF-8, declared or chunked', async () => {
    const text = '{"a":1}';
    for (const type of ['text/plain', 'application/json; charset=latin1']) {
      expect(await send('POST', { 'content-type': type, 'content-length': '7' }, [text])).toEqual({
        status: 415,
        json: error('UNSUPPORTED_MEDIA_TYPE'),
      });
    }
    expect(await send('POST', { 'content-type': 'text/plain' }, [text])).toEqual({
      status: 415,
      json: {
        error: {
          code: 'UNSUPPORTED_MEDIA_TYPE',
          message: 'A request body must be sent as "Content-Type: application/json".',
        },
      },
    });
  });

  it('the limit is the last byte allowed: LIMIT bytes are read, LIMIT + 1 are 413, declared or streamed', async () => {
    const exactly = `"${'x'.repeat(LIMIT - 2)}"`;
    expect(Buffer.byteLength(exactly)).toBe(LIMIT);
    expect(await send('POST', sized(exactly), [exactly])).toMatchObject({
      status: 200,
      json: { body: 'x'.repeat(LIMIT - 2) },
    });
    expect(await send('POST', JSON_TYPE, [exactly.slice(0, 10), exactly.slice(10)])).toMatchObject({
      status: 200,
    });
    const over = `"${'x'.repeat(LIMIT - 1)}"`;
    expect(await send('POST', sized(over), [over])).toEqual({
      status: 413,
      json: {
        error: { code: 'FRAME_TOO_LARGE', message: `A request body may hold at most ${LIMIT} bytes.` },
      },
    });
    // Streamed without a length: refused once the bytes pass the limit, the rest ignored.
    expect(await send('POST', JSON_TYPE, [over.slice(0, 20), over.slice(20), '"more"'])).toEqual({
      status: 413,
      json: error('FRAME_TOO_LARGE'),
    });
  });

  it('400 BAD_JSON for a body that is not JSON; the handler is not reached', async () => {
    const text = '{"name":';
    expect(await send('POST', sized(text), [text])).toEqual({
      status: 400,
      json: { error: { code: 'BAD_JSON', message: 'The request body is not valid JSON.' } },
    });
  });

  it('the default limit is 16 KiB', () => {
    expect(BODY_LIMIT_BYTES).toBe(16 * 1024);
  });
});

describe('the JSON body parser, where a shortcut matters', () => {
  it('a GET is not read, even with a body of another type: the handler gets no body', async () => {
    expect(await send('GET', { 'content-type': 'text/plain', 'content-length': '5' }, ['hello'])).toEqual({
      status: 200,
      json: { reached: true, body: '<none>' },
    });
  });

  it('a declared length over the limit is refused at once, without waiting for the body', async () => {
    const answer = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/',
          headers: { ...JSON_TYPE, 'content-length': '1000' },
        },
        (res) => {
          resolve(res.statusCode!);
          res.resume();
          req.destroy();
        },
      );
      req.on('error', () => undefined);
      req.write('{"a":');
      setTimeout(() => reject(new Error('no answer while the body was still coming')), 2000).unref();
    });
    expect(answer).toBe(413);
  });

  it('a streamed body refused as too large never reaches the handler, even when what came first was JSON', async () => {
    const before = reached;
    expect(await send('POST', JSON_TYPE, ['"abc"', 'x'.repeat(LIMIT), 'y'.repeat(LIMIT)])).toEqual({
      status: 413,
      json: error('FRAME_TOO_LARGE'),
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(reached).toBe(before);
  });
});

describe('isJsonType', () => {
  it.each([
    ['application/json', true],
    ['Application/JSON', true],
    ['application/json; charset=utf-8', true],
    ['application/json;charset="UTF-8"', true],
    ['application/json; boundary=x', true],
    ['application/json; charset=utf-16', false],
    ['application/json; charset=utf-8x', false],
    ['application/jsonp', false],
    ['text/json', false],
    ['', false],
  ])('%j is JSON: %s', (type, expected) => {
    expect(isJsonType(type)).toBe(expected);
  });
});

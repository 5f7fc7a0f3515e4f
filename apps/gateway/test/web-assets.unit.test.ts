import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { IMMUTABLE, pickEncoding, webAssets } from '../src/http/web-assets';

/** A built client in a temporary directory: `assets/` with the files a test names. */
function distWith(files: Record<string, string | Buffer>): string {
  const dist = mkdtempSync(join(tmpdir(), 'web-assets-'));
  dirs.push(dist);
  mkdirSync(join(dist, 'assets'));
  for (const [name, body] of Object.entries(files)) {
    if (name.endsWith('/')) mkdirSync(join(dist, 'assets', name));
    else writeFileSync(join(dist, 'assets', name), body);
  }
  return dist;
}

const dirs: string[] = [];
const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A plain HTTP server whose only handler is webAssets(dist); what it passes on answers 299 "next". */
async function serve(
  dist: string,
): Promise<(method: string, path: string, headers?: Record<string, string>) => Promise<Answer>> {
  const handler = webAssets(dist);
  const server = createServer((req, res) =>
    handler(req, res, () => {
      res.statusCode = 299;
      res.end('next');
    }),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return (method, path, headers = {}) =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      });
      req.on('error', reject);
      req.end();
    });
}

const BIG_JS = `export const x = ${JSON.stringify('dominoes '.repeat(200))};\n`; // 1,8 kB, compresses well
const SMALL_CSS = 'a{color:red}'.padEnd(511, ' '); // 511 bytes: under the compression threshold
const EXACT_CSS = 'a{color:red}'.padEnd(512, ' '); // 512 bytes: at it

describe('webAssets: the built client\u2019s /assets/* (a real HTTP server, files in a temporary directory)', () => {
  it('a hashed script is served whole as JavaScript, cached for a year (immutable), with its length, and Vary: Accept-Encoding', async () => {
    const get = await serve(distWith({ 'index-AbC123_-.js': BIG_JS }));
    const answer = await get('GET', '/assets/index-AbC123_-.js');
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe(BIG_JS);
    expect(answer.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': IMMUTABLE,
      'content-length': String(Buffer.byteLength(BIG_JS)),
      vary: 'Accept-Encoding',
    });
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(IMMUTABLE).toBe('public, max-age=31536000, immutable');
  });

  it('a name without an 8-character hash is cached for an hour only', async () => {
    const get = await serve(
      distWith({ 'logo.svg': '<svg/>', 'app-1234567.js': 'x', 'app-12345678.js': 'y' }),
    );
    expect((await get('GET', '/assets/logo.svg')).headers['cache-control']).toBe('public, max-age=3600');
    expect((await get('GET', '/assets/app-1234567.js')).headers['cache-control']).toBe(
      'public, max-age=3600',
    );
    expect((await get('GET', '/assets/app-12345678.js')).headers['cache-control']).toBe(IMMUTABLE);
  });

  it('compresses text with brotli or gzip as the browser accepts, once, and the bodies decompress to the file', async () => {
    const get = await serve(distWith({ 'index-abcdefgh.js': BIG_JS }));
    const br = await get('GET', '/assets/index-abcdefgh.js', { 'accept-encoding': 'gzip, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString()).toBe(BIG_JS);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(br.body.length).toBeLessThan(BIG_JS.length / 4);
    const gzip = await get('GET', '/assets/index-abcdefgh.js', { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).toString()).toBe(BIG_JS);
    expect(Number(gzip.headers['content-length'])).toBe(gzip.body.length);
    // The second request gets the same bytes (kept in memory, not compressed again).
    const again = await get('GET', '/assets/index-abcdefgh.js', { 'accept-encoding': 'gzip' });
    expect(again.body.equals(gzip.body)).toBe(true);
  });

  it('text under 512 bytes is sent as it is, without Vary; at 512 bytes it is compressed', async () => {
    const get = await serve(distWith({ 'small-abcdefgh.css': SMALL_CSS, 'exact-abcdefgh.css': EXACT_CSS }));
    const small = await get('GET', '/assets/small-abcdefgh.css', { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers['vary']).toBeUndefined();
    expect(small.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(small.body.toString()).toBe(SMALL_CSS);
    const exact = await get('GET', '/assets/exact-abcdefgh.css', { 'accept-encoding': 'gzip' });
    expect(exact.headers['content-encoding']).toBe('gzip');
  });

  it('images and fonts are sent as they are, whatever their size, with their type; an unknown extension is octet-stream', async () => {
    const bytes = Buffer.alloc(4096, 7);
    const get = await serve(
      distWith({
        'p-abcdefgh.png': bytes,
        'f-abcdefgh.woff2': bytes,
        'w-abcdefgh.webp': bytes,
        'd-abcdefgh.bin': bytes,
      }),
    );
    for (const [name, type] of [
      ['p-abcdefgh.png', 'image/png'],
      ['f-abcdefgh.woff2', 'font/woff2'],
      ['w-abcdefgh.webp', 'image/webp'],
      ['d-abcdefgh.bin', 'application/octet-stream'],
    ] as const) {
      const answer = await get('GET', `/assets/${name}`, { 'accept-encoding': 'br, gzip' });
      expect([
        name,
        answer.headers['content-type'],
        answer.headers['content-encoding'],
        answer.headers['vary'],
      ]).toEqual([name, type, undefined, undefined]);
      expect(answer.body.equals(bytes)).toBe(true);
    }
  });

  it('every text type it knows is compressed, with its type', async () => {
    const text = 'x'.repeat(600);
    const files = {
      'a-abcdefgh.mjs': 'text/javascript; charset=utf-8',
      'a-abcdefgh.svg': 'image/svg+xml',
      'a-abcdefgh.json': 'application/json; charset=utf-8',
      'a-abcdefgh.txt': 'text/plain; charset=utf-8',
      'a-abcdefgh.ico': 'image/x-icon',
      'A-ABCDEFGH.CSS': 'text/css; charset=utf-8',
    };
    const get = await serve(distWith(Object.fromEntries(Object.keys(files).map((name) => [name, text]))));
    for (const [name, type] of Object.entries(files)) {
      const answer = await get('GET', `/assets/${name}`, { 'accept-encoding': 'gzip' });
      expect([name, answer.headers['content-type'], answer.headers['content-encoding']]).toEqual([
        name,
        type,
        'gzip',
      ]);
    }
  });

  it('HEAD answers the headers of GET with no body; a query string is ignored', async () => {
    const get = await serve(distWith({ 'index-abcdefgh.js': BIG_JS }));
    const head = await get('HEAD', '/assets/index-abcdefgh.js?v=2', { 'accept-encoding': 'gzip' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
  });

  it('source maps are 404 anywhere, even when the build left one, and are never listed', async () => {
    const get = await serve(distWith({ 'index-abcdefgh.js.map': '{"version":3}', 'index-abcdefgh.js': 'x' }));
    for (const path of [
      '/assets/index-abcdefgh.js.map',
      '/assets/INDEX-ABCDEFGH.JS.MAP',
      '/other.map',
      '/x.map?y=1',
    ]) {
      const answer = await get('GET', path);
      expect([path, answer.status, JSON.parse(answer.body.toString())]).toEqual([
        path,
        404,
        { error: { code: 'INVALID_MESSAGE', message: 'There is no such route.' } },
      ]);
    }
  });

  it('an asset not in the build, or a directory, is 404; paths outside /assets/ and other methods are passed on', async () => {
    const get = await serve(distWith({ 'sub/': '', 'index-abcdefgh.js': 'x' }));
    expect((await get('GET', '/assets/none-abcdefgh.js')).status).toBe(404);
    expect((await get('GET', '/assets/sub')).status).toBe(404);
    expect((await get('GET', '/assets/')).status).toBe(404);
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/index.html'],
      ['GET', '/assetsx/index-abcdefgh.js'],
      ['POST', '/assets/index-abcdefgh.js'],
      ['OPTIONS', '/assets/index-abcdefgh.js'],
    ] as const) {
      const answer = await get(method, path);
      expect([method, path, answer.status, answer.body.toString()]).toEqual([method, path, 299, 'next']);
    }
  });

  it('a build without an assets directory serves nothing and passes the rest on', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'web-assets-'));
    dirs.push(dist);
    const get = await serve(dist);
    expect((await get('GET', '/assets/index-abcdefgh.js')).status).toBe(404);
    expect((await get('GET', '/')).status).toBe(299);
  });
});

describe('pickEncoding: the best encoding the browser accepts', () => {
  it('prefers brotli, then gzip, else none', () => {
    expect(pickEncoding('gzip, deflate, br')).toBe('br');
    expect(pickEncoding('gzip, deflate')).toBe('gzip');
    expect(pickEncoding('deflate')).toBe('identity');
    expect(pickEncoding('')).toBe('identity');
    expect(pickEncoding(undefined)).toBe('identity');
  });

  it('reads q values: q=0 refuses, any other number accepts, a q that is not a number refuses', () => {
    expect(pickEncoding('br;q=0, gzip')).toBe('gzip');
    expect(pickEncoding('br;q=0.5, gzip;q=1')).toBe('br');
    expect(pickEncoding('br; q=0.0, gzip; q=0')).toBe('identity');
    expect(pickEncoding('br;q=x')).toBe('identity');
    expect(pickEncoding('br;level=1;q=0')).toBe('identity');
    // The q parameter is found among the others, wherever it is.
    expect(pickEncoding('gzip;level=1;q=1')).toBe('gzip');
  });

  it('is case-blind and reads spaces and empty parts away', () => {
    expect(pickEncoding(' GZIP ;Q=1 , , ')).toBe('gzip');
    expect(pickEncoding('Br')).toBe('br');
  });

  it('* accepts what is not named; a named q=0 still refuses', () => {
    expect(pickEncoding('*')).toBe('br');
    expect(pickEncoding('br;q=0, *')).toBe('gzip');
    expect(pickEncoding('*;q=0')).toBe('identity');
    expect(pickEncoding('*;q=0, gzip')).toBe('gzip');
  });

  it('reads a header given as several lines', () => {
    expect(pickEncoding(['deflate', 'gzip'])).toBe('gzip');
    expect(pickEncoding(['br;q=0', 'gzip;q=0'])).toBe('identity');
  });
});

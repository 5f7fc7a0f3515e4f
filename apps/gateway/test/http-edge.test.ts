import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { readGatewayConfig } from '../src/config';
import type { GatewayApp } from '../src/gateway-app';
import { contentSecurityPolicy } from '../src/http/security-headers';
import { pickEncoding } from '../src/http/web-assets';
import { isJsonType } from '../src/http/json-body';
import { REDIS_URL, startTestGateway, testConfig, uniquePrefix } from './support';

/*
 * The HTTP edge of the gateway: security headers on every response, the API's Origin and
 * Content-Type checks, /metrics on its own port, and the built client's assets (compressed,
 * cached for good, no source maps). One gateway in-process with a made-up apps/web/dist.
 */

const ASSET = 'index-Ab3dE_9x.js';
const ASSET_TEXT = `console.log(${JSON.stringify('dominoes '.repeat(400))});\n`;
let dist: string;
let gateway: GatewayApp;
let base: string;

/** A raw GET (fetch would decompress the body and hide Content-Encoding). */
function rawGet(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const postJson = (path: string, body: string, headers: Record<string, string>) =>
  fetch(`${base}${path}`, { method: 'POST', headers, body });
const errorCode = async (response: Response) =>
  ((await response.json()) as { error: { code: string } }).error.code;

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), 'web-dist-edge-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Dominoes app</title>');
  writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(dist, 'assets', ASSET), ASSET_TEXT);
  writeFileSync(join(dist, 'assets', 'tiny-Zz8yXw7v.css'), 'a{}');
  // Left by an old build: must not be served.
  writeFileSync(join(dist, 'assets', `${ASSET}.map`), '{"version":3}');
  gateway = await startTestGateway(
    testConfig(uniquePrefix('gw_edge'), {
      WEB_DIST: dist,
      ALLOWED_ORIGINS: 'https://partner.example',
      RATE_LIMIT_IDENTITIES: '0',
    }),
  );
  base = `http://127.0.0.1:${gateway.port}`;
}, 30_000);

afterAll(async () => {
  await gateway?.shutdown();
  rmSync(dist, { recursive: true, force: true });
});

describe('security headers', () => {
  it.each([
    ['the page /', '/'],
    ['a join link /t/:code', '/t/KQ7MZPR2T4VW'],
    ['a hashed asset', `/assets/${ASSET}`],
    ['a root file', '/favicon.svg'],
    ['an API answer', '/health/live'],
    ['an API error', '/api/tables/ZZZZZZZZZZZZ'],
    ['an unknown route', '/nothing/here'],
  ])('are on %s', async (_label, path) => {
    const response = await fetch(`${base}${path}`);
    expect(response.headers.get('content-security-policy')).toBe(
      contentSecurityPolicy(['http://dominoes.test', 'https://partner.example']),
    );
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-powered-by')).toBeNull();
  });

  it('the policy allows only this site: scripts and styles from self, the socket on the allowed origins, no framing, no plugins', () => {
    const csp = contentSecurityPolicy(['https://dominoes.example']);
    const directives = new Map(
      csp.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1).join(' ')] as const),
    );
    expect(Object.fromEntries(directives)).toEqual({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self'",
      'connect-src': "'self' wss://dominoes.example",
      'img-src': "'self' data:",
      'font-src': "'self'",
      'manifest-src': "'self'",
      'frame-ancestors': "'none'",
      'base-uri': "'none'",
      'form-action': "'self'",
      'object-src': "'none'",
    });
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  });
});

describe('the API answers allowed origins only', () => {
  it.each(['https://evil.example', 'http://dominoes.test.evil.example', 'null', 'http://127.0.0.1:1'])(
    'a request with Origin %s gets 403 FORBIDDEN_ORIGIN and no identity',
    async (origin) => {
      const response = await postJson('/api/identity', '{"name":"Ana"}', {
        'content-type': 'application/json',
        origin,
      });
      expect(response.status).toBe(403);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toEqual({ error: { code: 'FORBIDDEN_ORIGIN', message: expect.any(String) } });
      expect(body).not.toHaveProperty('token');
    },
  );

  it('reads of the API are checked too', async () => {
    const response = await fetch(`${base}/api/tables/ZZZZZZZZZZZZ`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(response.status).toBe(403);
    expect(await errorCode(response)).toBe('FORBIDDEN_ORIGIN');
  });

  it.each(['http://dominoes.test', 'HTTP://Dominoes.test', 'https://partner.example'])(
    'PUBLIC_URL\u2019s origin and ALLOWED_ORIGINS are allowed (%s)',
    async (origin) => {
      const response = await postJson('/api/identity', '{"name":"Ana"}', {
        'content-type': 'application/json',
        origin,
      });
      expect(response.status).toBe(200);
    },
  );

  it('a request without Origin (not a browser page) goes through', async () => {
    const response = await postJson('/api/identity', '{"name":"Ana"}', {
      'content-type': 'application/json',
    });
    expect(response.status).toBe(200);
  });

  it('the page and its assets are not origin-checked (a link from anywhere opens the page)', async () => {
    const response = await fetch(`${base}/`, { headers: { origin: 'https://evil.example' } });
    expect(response.status).toBe(200);
  });
});

describe('JSON bodies only as application/json', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['application/json in Latin-1', 'application/json; charset=iso-8859-1'],
    ['application/jsonp', 'application/jsonp'],
  ])('a body sent as %s gets 415 UNSUPPORTED_MEDIA_TYPE', async (_label, type) => {
    const response = await postJson('/api/identity', '{"name":"Ana"}', { 'content-type': type });
    expect(response.status).toBe(415);
    expect(await errorCode(response)).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('a body without Content-Type gets 415 too', async () => {
    const response = await fetch(`${base}/api/identity`, {
      method: 'POST',
      body: new Uint8Array(Buffer.from('{"name":"Ana"}')),
    });
    expect(response.status).toBe(415);
    expect(await errorCode(response)).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('application/json with or without charset=utf-8 is read', async () => {
    for (const type of [
      'application/json',
      'Application/JSON; charset=UTF-8',
      'application/json;charset="utf-8"',
    ]) {
      const response = await postJson('/api/identity', '{"name":"Ana"}', { 'content-type': type });
      expect([type, response.status]).toEqual([type, 200]);
    }
    expect(isJsonType(undefined)).toBe(false);
  });
});

describe('/metrics on its own port', () => {
  it('is 404 on the players\u2019 port', async () => {
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('dominoes_open_sockets');
  });

  it('is the Prometheus text on METRICS_PORT, which serves nothing else', async () => {
    expect(gateway.metricsPort).not.toBe(gateway.port);
    const response = await fetch(`http://127.0.0.1:${gateway.metricsPort}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await response.text()).toContain('# TYPE dominoes_open_sockets gauge');
    for (const path of ['/', '/api/identity', '/health/live', '/metrics/x'])
      expect((await fetch(`http://127.0.0.1:${gateway.metricsPort}${path}`)).status).toBe(404);
  });

  it('METRICS_PORT defaults to 9464 and may not be the players\u2019 port', () => {
    const env = { REDIS_URL, TOKEN_SECRET: 'x'.repeat(40), NODE_ENV: 'test', HOST: '127.0.0.1' };
    expect(readGatewayConfig({ ...env, PORT: '8080' }).metricsPort).toBe(9464);
    expect(() => readGatewayConfig({ ...env, PORT: '8080', METRICS_PORT: '8080' })).toThrow(
      /METRICS_PORT must differ from PORT/,
    );
  });
});

describe('the built client\u2019s assets', () => {
  it('a hashed asset asked for with gzip is gzip, cached for a year (immutable), and decompresses to the file', async () => {
    const response = await rawGet(`/assets/${ASSET}`, { 'accept-encoding': 'gzip, deflate' });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers['vary']).toMatch(/accept-encoding/i);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(gunzipSync(response.body).toString()).toBe(ASSET_TEXT);
    expect(response.body.length).toBeLessThan(ASSET_TEXT.length / 4);
    expect(Number(response.headers['content-length'])).toBe(response.body.length);
  });

  it('is brotli when the browser accepts br, and plain when it accepts neither', async () => {
    const br = await rawGet(`/assets/${ASSET}`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString()).toBe(ASSET_TEXT);
    const plain = await rawGet(`/assets/${ASSET}`, { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(ASSET_TEXT);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('honours q=0 in Accept-Encoding', () => {
    expect(pickEncoding('br;q=0, gzip')).toBe('gzip');
    expect(pickEncoding('gzip;q=0')).toBe('identity');
    expect(pickEncoding('*')).toBe('br');
    expect(pickEncoding(undefined)).toBe('identity');
  });

  it.each(['/', '/index.html', '/t/KQ7MZPR2T4VW'])('index.html stays no-cache (%s)', async (path) => {
    const response = await rawGet(path);
    expect(response.status).toBe(200);
    expect(response.body.toString()).toContain('Dominoes app');
    expect(response.headers['cache-control']).toBe('no-cache');
  });

  it('source maps are never served, even when a build left one; an unknown asset is 404', async () => {
    expect(readFileSync(join(dist, 'assets', `${ASSET}.map`), 'utf8')).toContain('version');
    for (const path of [
      `/assets/${ASSET}.map`,
      '/index.js.map',
      `/assets/${ASSET}.MAP`,
      '/assets/none-12345678.js',
    ]) {
      const response = await rawGet(path);
      expect([path, response.status]).toEqual([path, 404]);
    }
  });
});

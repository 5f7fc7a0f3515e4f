/**
 * The HTTP API's helpers called directly, no gateway started: the bearer header, the error body and
 * the exception filter (on a recording response), the security headers and their values, the API's
 * origin policy, the public token secrets, the web pages' fallback and the /metrics server (a real
 * HTTP server on a free port).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArgumentsHost } from '@nestjs/common';
import { BadRequestException, HttpException, NotFoundException } from '@nestjs/common';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { playerOfBearer } from '../src/auth/bearer';
import { DEV_TOKEN_SECRET, isPublicSecret, PUBLIC_TOKEN_SECRETS } from '../src/auth/public-secrets';
import { signToken } from '../src/auth/tokens';
import { apiOrigin } from '../src/http/api-origin';
import { ApiError, ApiErrorFilter, errorBody, sendJson } from '../src/http/errors';
import { WebController } from '../src/http/health.controller';
import { startMetricsServer, type MetricsServer } from '../src/http/metrics-server';
import { contentSecurityPolicy, securityHeaders } from '../src/http/security-headers';
import { GatewayMetrics } from '../src/metrics';
import { testConfig, TEST_SECRET } from './support';

/** A ServerResponse that records what is done with it. */
class RecordedResponse {
  statusCode = 200;
  headersSent = false;
  readonly headers: Record<string, string | number> = {};
  body: string | undefined;
  ended = 0;
  sentFile: { path: string; options?: object } | null = null;
  setHeader(name: string, value: string | number): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }
  end(text?: string): this {
    this.ended += 1;
    this.body = text;
    return this;
  }
  sendFile(path: string, options?: object): void {
    this.sentFile = { path, options };
  }
  json(): unknown {
    return JSON.parse(this.body ?? 'null');
  }
  get res(): ServerResponse & { sendFile(path: string, options?: object): void } {
    return this as unknown as ServerResponse & { sendFile(path: string, options?: object): void };
  }
}

const NOW = 1_800_000_000_000;
const PID = '6f1c2a8e-0d1b-4c55-9a3e-2b7d9f0e1a22';

describe('playerOfBearer', () => {
  const token = signToken({ pid: PID, name: 'Ana' }, TEST_SECRET, NOW);
  const refusal = (authorization: string | undefined, secret = TEST_SECRET, now = NOW) => {
    try {
      playerOfBearer(authorization, secret, now);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { status: error.status, code: error.code, message: error.message };
    }
    throw new Error('not refused');
  };

  it('gives the token’s player for "Bearer <token>", the scheme in any case and any spacing', () => {
    expect(playerOfBearer(`Bearer ${token}`, TEST_SECRET, NOW)).toEqual({ id: PID, name: 'Ana' });
    expect(playerOfBearer(`bearer ${token}`, TEST_SECRET, NOW)).toEqual({ id: PID, name: 'Ana' });
    expect(playerOfBearer(`BEARER \t ${token}`, TEST_SECRET, NOW)).toEqual({ id: PID, name: 'Ana' });
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['another scheme', `Basic ${token}`],
    ['the scheme alone', 'Bearer'],
    ['no space after the scheme', `Bearer${token}`],
    ['text before the scheme', `x Bearer ${token}`],
    ['two tokens', `Bearer ${token} ${token}`],
    ['text after the token', `Bearer ${token} `],
  ])('%s is a 401 UNAUTHENTICATED that says how to send the token', (_what, header) => {
    expect(refusal(header)).toEqual({
      status: 401,
      code: 'UNAUTHENTICATED',
      message: 'Send your token as "Authorization: Bearer <token>".',
    });
  });

  it('a token of another secret is a 401 TOKEN_INVALID, an expired one a 401 TOKEN_EXPIRED, with the check’s message', () => {
    const invalid = refusal(`Bearer ${token}`, 'another-secret-0123456789abcdef');
    expect(invalid).toMatchObject({ status: 401, code: 'TOKEN_INVALID' });
    expect(invalid.message).toBe('The token was not issued by this server.');
    const short = signToken({ pid: PID, name: 'Ana' }, TEST_SECRET, NOW, 60);
    const expired = refusal(`Bearer ${short}`, TEST_SECRET, NOW + 61_000);
    expect(expired).toMatchObject({ status: 401, code: 'TOKEN_EXPIRED' });
    expect(expired.message).toBe('The token has expired; ask for a new one (POST /api/identity).');
    expect(playerOfBearer(`Bearer ${short}`, TEST_SECRET, NOW + 59_000).id).toBe(PID);
  });
});

describe('public token secrets', () => {
  it('every published secret is public, trimmed too; the development secret among them; others are not', () => {
    expect(PUBLIC_TOKEN_SECRETS).toContain(DEV_TOKEN_SECRET);
    expect(DEV_TOKEN_SECRET).toBe('dominoes-dev-secret-not-for-production');
    for (const secret of PUBLIC_TOKEN_SECRETS) expect(isPublicSecret(secret)).toBe(true);
    expect(isPublicSecret(`  ${TEST_SECRET}\n`)).toBe(true);
    expect(isPublicSecret('dev-only-token-secret-change-me-0123456789')).toBe(true);
    expect(isPublicSecret('a-token-secret-that-is-long-enough-0123456789')).toBe(true);
    expect(isPublicSecret('unit-test-secret-0123456789abcdef')).toBe(true);
    expect(isPublicSecret('not-the-secret-xxxxxxxxxxxxxxxxxxx')).toBe(true);
    expect(isPublicSecret('not-the-secret-0123456789abcdefgh')).toBe(true);
    // Made here, not written in the tree: a literal in a tracked file is published (public-secrets.test.ts).
    expect(isPublicSecret(randomBytes(24).toString('base64url'))).toBe(false);
    expect(isPublicSecret('')).toBe(false);
  });
});

describe('ApiError and sendJson', () => {
  it('an ApiError keeps its status, code, message and headers (none by default), named ApiError', () => {
    const error = new ApiError(429, 'RATE_LIMITED', 'slow down', { 'retry-after': '3' });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      message: 'slow down',
      name: 'ApiError',
    });
    expect(error.headers).toEqual({ 'retry-after': '3' });
    expect(new ApiError(400, 'INVALID_MESSAGE', 'x').headers).toEqual({});
  });

  it('sendJson answers the status, a JSON content type and the byte length of the text', () => {
    const out = new RecordedResponse();
    sendJson(out.res, 418, { name: 'Zoë' });
    expect(out.statusCode).toBe(418);
    expect(out.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(out.body).toBe('{"name":"Zoë"}');
    expect(out.headers['content-length']).toBe(Buffer.byteLength('{"name":"Zoë"}'));
    expect(out.headers['content-length']).toBe(15);
    expect(errorBody('UNAVAILABLE', 'later')).toEqual({ error: { code: 'UNAVAILABLE', message: 'later' } });
  });

  it('sendJson on a response whose headers are gone only ends it', () => {
    const out = new RecordedResponse();
    out.headersSent = true;
    sendJson(out.res, 500, { a: 1 });
    expect(out.ended).toBe(1);
    expect(out.body).toBeUndefined();
    expect(out.statusCode).toBe(200);
    expect(out.headers).toEqual({});
  });
});

describe('ApiErrorFilter', () => {
  const hostOf = (out: RecordedResponse, type = 'http'): ArgumentsHost =>
    ({
      getType: () => type,
      switchToHttp: () => ({ getResponse: () => out.res }),
    }) as unknown as ArgumentsHost;
  const filtered = (exception: unknown) => {
    const { logger, lines } = recordingLogger();
    const out = new RecordedResponse();
    new ApiErrorFilter(logger).catch(exception, hostOf(out));
    return { out, lines };
  };

  it('an ApiError: its status, its headers, {"error":{code,message}}', () => {
    const { out, lines } = filtered(
      new ApiError(429, 'RATE_LIMITED', 'Too many.', { 'retry-after': '7', 'x-extra': 'y' }),
    );
    expect(out.statusCode).toBe(429);
    expect(out.headers['retry-after']).toBe('7');
    expect(out.headers['x-extra']).toBe('y');
    expect(out.json()).toEqual({ error: { code: 'RATE_LIMITED', message: 'Too many.' } });
    expect(lines).toEqual([]);
  });

  it('an ApiError after the headers went: no header set, the response only ended', () => {
    const out = new RecordedResponse();
    out.headersSent = true;
    new ApiErrorFilter(recordingLogger().logger).catch(
      new ApiError(429, 'RATE_LIMITED', 'x', { 'retry-after': '7' }),
      hostOf(out),
    );
    expect(out.headers).toEqual({});
    expect(out.ended).toBe(1);
  });

  it.each([
    [400, 'INVALID_MESSAGE'],
    [401, 'UNAUTHENTICATED'],
    [405, 'INVALID_MESSAGE'],
    [413, 'FRAME_TOO_LARGE'],
    [429, 'RATE_LIMITED'],
    [503, 'UNAVAILABLE'],
    [409, 'INVALID_MESSAGE'],
    [499, 'INVALID_MESSAGE'],
    [500, 'INTERNAL'],
    [502, 'INTERNAL'],
  ])("Nest's HttpException %i: that status, code %s, the exception's message", (status, code) => {
    const { out, lines } = filtered(new HttpException('what Nest said', status));
    expect(out.statusCode).toBe(status);
    expect(out.json()).toEqual({ error: { code, message: 'what Nest said' } });
    expect(lines).toEqual([]);
  });

  it('a 404 of Nest (an unknown route) says there is no such route', () => {
    const { out } = filtered(new NotFoundException('Cannot GET /api/nope'));
    expect(out.statusCode).toBe(404);
    expect(out.json()).toEqual({ error: { code: 'INVALID_MESSAGE', message: 'There is no such route.' } });
    expect(filtered(new BadRequestException('bad')).out.json()).toEqual({
      error: { code: 'INVALID_MESSAGE', message: 'bad' },
    });
  });

  it('anything else: a logged 500 INTERNAL that tells nothing of the error', () => {
    const failure = new Error('secret detail');
    const { out, lines } = filtered(failure);
    expect(out.statusCode).toBe(500);
    expect(out.json()).toEqual({
      error: { code: 'INTERNAL', message: 'Something went wrong on the server.' },
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: 'HTTP handler failed',
      err: { message: 'secret detail' },
    });
  });

  it('an exception outside HTTP (a socket’s) is left alone', () => {
    const out = new RecordedResponse();
    const { logger, lines } = recordingLogger();
    new ApiErrorFilter(logger).catch(new Error('ws'), hostOf(out, 'ws'));
    expect(out.ended).toBe(0);
    expect(lines).toEqual([]);
  });
});

describe('security headers', () => {
  const ORIGINS = ['https://dominoes.example', 'http://localhost:5173'];

  it('the Content-Security-Policy: self only, the allowed origins’ sockets, no frames, no objects', () => {
    expect(contentSecurityPolicy(ORIGINS)).toBe(
      [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "connect-src 'self' wss://dominoes.example ws://localhost:5173",
        "img-src 'self' data:",
        "font-src 'self'",
        "manifest-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "object-src 'none'",
      ].join('; '),
    );
    // Only the scheme's leading "http" becomes "ws"; no origin: connect-src is 'self' alone.
    expect(contentSecurityPolicy(['https://http.example'])).toContain(
      "connect-src 'self' wss://http.example;",
    );
    expect(contentSecurityPolicy([])).toContain("; connect-src 'self'; img-src");
  });

  it('every response gets each header with its value, then the next handler runs', () => {
    const out = new RecordedResponse();
    const next = jest.fn();
    securityHeaders(ORIGINS)({} as IncomingMessage, out.res, next);
    expect(out.headers).toEqual({
      'content-security-policy': contentSecurityPolicy(ORIGINS),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
    });
    expect(next).toHaveBeenCalledTimes(1);
    expect(next).toHaveBeenCalledWith();
  });
});

describe('the API’s origin policy', () => {
  const ALLOWED = ['http://dominoes.test', 'https://other.test'];
  const through = (url: string | undefined, origin?: string) => {
    const out = new RecordedResponse();
    const next = jest.fn();
    const resume = jest.fn();
    const req = {
      url,
      headers: origin === undefined ? {} : { origin },
      resume,
    } as unknown as IncomingMessage;
    apiOrigin(ALLOWED)(req, out.res, next);
    return { out, next, resume };
  };

  it.each(['/api/identity', '/api', '/api?x=1', '/api/tables/ABC'])(
    'a foreign page’s request to %s is a 403 FORBIDDEN_ORIGIN, its body drained',
    (url) => {
      const { out, next, resume } = through(url, 'https://evil.example');
      expect(next).not.toHaveBeenCalled();
      expect(resume).toHaveBeenCalledTimes(1);
      expect(out.statusCode).toBe(403);
      expect(out.json()).toEqual({
        error: {
          code: 'FORBIDDEN_ORIGIN',
          message: 'Requests from https://evil.example may not use this API.',
        },
      });
    },
  );

  it('the origin in the message is cut at 100 characters', () => {
    const origin = `https://${'a'.repeat(200)}.example`;
    const { out } = through('/api/identity', origin);
    expect((out.json() as { error: { message: string } }).error.message).toBe(
      `Requests from ${origin.slice(0, 100)} may not use this API.`,
    );
  });

  it('an allowed origin, no origin at all, or a path outside /api goes through untouched', () => {
    for (const [url, origin] of [
      ['/api/identity', 'http://dominoes.test'],
      ['/api/identity', 'https://other.test'],
      ['/api/identity', undefined],
      ['/', 'https://evil.example'],
      ['/apiary', 'https://evil.example'],
      ['/t/api/x', 'https://evil.example'],
      ['/assets/api/x.js', 'https://evil.example'],
      [undefined, 'https://evil.example'],
    ] as const) {
      const { out, next, resume } = through(url, origin);
      expect({ url, origin, next: next.mock.calls }).toEqual({ url, origin, next: [[]] });
      expect(resume).not.toHaveBeenCalled();
      expect(out.ended).toBe(0);
    }
  });
});

describe('the web pages (WebController)', () => {
  let dist: string;
  beforeAll(() => {
    dist = mkdtempSync(join(tmpdir(), 'web-dist-'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>built</title>');
  });
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  it('with a built client, every page is its index.html, never cached', () => {
    const pages = new WebController(testConfig('web', { WEB_DIST: dist }));
    for (const serve of [pages.root, pages.table, pages.matches, pages.replay]) {
      const out = new RecordedResponse();
      serve.call(pages, out.res);
      expect(out.sentFile).toEqual({
        path: join(dist, 'index.html'),
        options: { cacheControl: false, headers: { 'Cache-Control': 'no-cache' } },
      });
      expect(out.ended).toBe(0);
    }
  });

  it('without one, every page is a 200 HTML page that says the client is not built', () => {
    const pages = new WebController(testConfig('web', { WEB_DIST: join(dist, 'missing') }));
    for (const serve of [pages.root, pages.table, pages.matches, pages.replay]) {
      const out = new RecordedResponse();
      serve.call(pages, out.res);
      expect(out.sentFile).toBeNull();
      expect(out.statusCode).toBe(200);
      expect(out.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(out.body).toContain('the web client is not built yet (apps/web/dist is missing)');
    }
  });
});

describe('the /metrics server', () => {
  let metrics: GatewayMetrics;
  let server: MetricsServer;
  const lines = recordingLogger();
  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;

  beforeAll(async () => {
    metrics = new GatewayMetrics(false);
    metrics.httpLimits.inc({ action: 'table', outcome: 'limited' });
    server = await startMetricsServer(metrics, 0, '127.0.0.1', lines.logger);
  });
  afterAll(() => server.close());

  it('GET /metrics (a query string too) is Prometheus’s text, nosniff', async () => {
    for (const path of ['/metrics', '/metrics?x=1']) {
      const response = await fetch(url(path));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(metrics.registry.contentType);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await response.text()).toContain(
        'dominoes_http_rate_limit_total{action="table",outcome="limited"} 1',
      );
    }
  });

  it('HEAD /metrics is 200 without a body', async () => {
    const response = await fetch(url('/metrics'), { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(metrics.registry.contentType);
    expect(await response.text()).toBe('');
  });

  it.each([
    ['GET', '/'],
    ['GET', '/metrics/'],
    ['GET', '/api/identity'],
    ['POST', '/metrics'],
    ['DELETE', '/metrics'],
  ])('%s %s is a 404 that names the one route served', async (method, path) => {
    const response = await fetch(url(path), { method });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toBe('Only GET /metrics is served on this port.\n');
  });

  it('metrics that cannot be collected are a logged 500', async () => {
    const failing = new GatewayMetrics(false);
    failing.registry.metrics = () => Promise.reject(new Error('collector broke'));
    const { logger, lines: logged } = recordingLogger();
    const broken = await startMetricsServer(failing, 0, '127.0.0.1', logger);
    try {
      const response = await fetch(`http://127.0.0.1:${broken.port}/metrics`);
      expect(response.status).toBe(500);
      expect(await response.text()).toBe('');
      expect(logged).toEqual([
        expect.objectContaining({
          level: 50,
          msg: 'metrics could not be collected',
          err: expect.objectContaining({ message: 'collector broke' }),
        }),
      ]);
    } finally {
      await broken.close();
    }
  });

  it('a port already taken fails the start (and leaves nothing listening)', async () => {
    await expect(startMetricsServer(metrics, server.port, '127.0.0.1', lines.logger)).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
  });

  it('close resolves with a keep-alive connection still open', async () => {
    const other = await startMetricsServer(metrics, 0, '127.0.0.1', lines.logger);
    expect(other.port).toBeGreaterThan(0);
    expect(other.port).not.toBe(server.port);
    expect((await fetch(`http://127.0.0.1:${other.port}/metrics`)).status).toBe(200);
    await other.close();
    await expect(fetch(`http://127.0.0.1:${other.port}/metrics`)).rejects.toThrow();
  });
});

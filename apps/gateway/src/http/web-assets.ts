import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { errorBody, sendJson } from './errors';

type Next = (error?: unknown) => void;

/** Vite's output names: `index-<8 characters of hash>.js`. Such a file never changes. */
const HASHED = /-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Files in /assets without a hash in their name (none today) may change with a deploy. */
const SHORT = 'public, max-age=3600';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
};
/** Already compressed, or too small to gain: sent as they are. */
const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.svg', '.json', '.txt', '.ico']);
const MIN_COMPRESS_BYTES = 512;

type Encoding = 'br' | 'gzip' | 'identity';

/** The best encoding the client accepts (q > 0): brotli, then gzip, else none. */
export function pickEncoding(acceptEncoding: string | string[] | undefined): Encoding {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : (acceptEncoding ?? '');
  const accepted = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!name) continue;
    const q = params.find((p) => p.startsWith('q='));
    accepted.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return 'identity';
}

interface Asset {
  readonly path: string;
  readonly type: string;
  readonly cacheControl: string;
  readonly compressible: boolean;
  /** Filled on first request: the file and its compressed forms. */
  readonly bodies: Partial<Record<Encoding, Buffer>>;
}

/**
 * The built client's `/assets/*`: hashed names are cached for a year (`immutable`), text is sent
 * gzip- or brotli-compressed as the browser's Accept-Encoding allows (compressed once, then kept in
 * memory), with `Vary: Accept-Encoding`. The files are listed when the gateway starts; source maps
 * (`*.map`) are never served, anywhere.
 */
export function webAssets(webDist: string) {
  const dir = join(webDist, 'assets');
  const assets = new Map<string, Asset>();
  if (existsSync(dir)) {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const ext = extname(name).toLowerCase();
      if (ext === '.map' || !statSync(path).isFile()) continue;
      assets.set(name, {
        path,
        type: TYPES[ext] ?? 'application/octet-stream',
        cacheControl: HASHED.test(name) ? IMMUTABLE : SHORT,
        compressible: COMPRESSIBLE.has(ext),
        bodies: {},
      });
    }
  }
  const notFound = (res: ServerResponse) =>
    sendJson(res, 404, errorBody('INVALID_MESSAGE', 'There is no such route.'));

  return (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
      return;
    }
    const path = (req.url ?? '/').split('?')[0] as string;
    if (path.toLowerCase().endsWith('.map')) {
      notFound(res);
      return;
    }
    if (!path.startsWith('/assets/')) {
      next();
      return;
    }
    const asset = assets.get(path.slice('/assets/'.length));
    if (!asset) {
      notFound(res);
      return;
    }
    const identity = (asset.bodies.identity ??= readFileSync(asset.path));
    let encoding: Encoding = 'identity';
    if (asset.compressible && identity.length >= MIN_COMPRESS_BYTES) {
      res.setHeader('Vary', 'Accept-Encoding');
      encoding = pickEncoding(req.headers['accept-encoding']);
    }
    const body =
      encoding === 'br'
        ? (asset.bodies.br ??= brotliCompressSync(identity, {
            params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: identity.length },
          }))
        : encoding === 'gzip'
          ? (asset.bodies.gzip ??= gzipSync(identity, { level: 9 }))
          : identity;
    res.statusCode = 200;
    res.setHeader('Content-Type', asset.type);
    res.setHeader('Cache-Control', asset.cacheControl);
    if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
    res.setHeader('Content-Length', body.length);
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}

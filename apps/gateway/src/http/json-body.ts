import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, sendJson } from './errors';

export const BODY_LIMIT_BYTES = 16 * 1024;

/** `application/json`, optionally `; charset=utf-8`: the only body type the API reads. */
export function isJsonType(contentType: string | undefined): boolean {
  const [type, ...params] = (contentType ?? '').split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((param) => !param.startsWith('charset=') || /^charset="?utf-8"?$/.test(param));
}

type Next = (error?: unknown) => void;

/**
 * The API's only body parser: JSON, at most `limit` bytes, errors in the protocol's shape
 * (413 FRAME_TOO_LARGE, 400 BAD_JSON, 415 UNSUPPORTED_MEDIA_TYPE when a body is not declared
 * `application/json` in UTF-8). A request without a body gets `body = undefined`.
 */
export function jsonBody(limit = BODY_LIMIT_BYTES) {
  return (req: IncomingMessage & { body?: unknown }, res: ServerResponse, next: Next): void => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') {
      next();
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    const hasBody = declared > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !isJsonType(req.headers['content-type'])) {
      sendJson(
        res,
        415,
        errorBody(
          'UNSUPPORTED_MEDIA_TYPE',
          'A request body must be sent as "Content-Type: application/json".',
        ),
      );
      req.resume();
      return;
    }
    const tooLarge = () => {
      sendJson(res, 413, errorBody('FRAME_TOO_LARGE', `A request body may hold at most ${limit} bytes.`));
      req.resume();
    };
    if (declared > limit) {
      tooLarge();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        tooLarge();
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => {
      failed = true;
    });
    req.on('end', () => {
      if (failed) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') {
        req.body = undefined;
        next();
        return;
      }
      try {
        req.body = JSON.parse(text);
      } catch {
        sendJson(res, 400, errorBody('BAD_JSON', 'The request body is not valid JSON.'));
        return;
      }
      next();
    });
  };
}

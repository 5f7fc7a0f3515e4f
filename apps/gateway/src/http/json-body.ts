import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, sendJson } from './errors';

export const BODY_LIMIT_BYTES = 16 * 1024;

type Next = (error?: unknown) => void;

/**
 * The API's only body parser: JSON, at most `limit` bytes, errors in the protocol's shape
 * (413 FRAME_TOO_LARGE, 400 BAD_JSON). A request without a body gets `body = undefined`.
 */
export function jsonBody(limit = BODY_LIMIT_BYTES) {
  return (req: IncomingMessage & { body?: unknown }, res: ServerResponse, next: Next): void => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') {
      next();
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
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

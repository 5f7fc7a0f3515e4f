import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { ErrorCode } from '@dominoes/protocol';
import type { Logger } from '@dominoes/platform';

/** An HTTP API error: answered as `{"error":{"code","message"}}` with `status`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Extra response headers, e.g. Retry-After on a 429. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

export const errorBody = (code: ErrorCode, message: string) => ({ error: { code, message } });

const CODE_OF_STATUS: Record<number, ErrorCode> = {
  400: 'INVALID_MESSAGE',
  401: 'UNAUTHENTICATED',
  404: 'INVALID_MESSAGE',
  405: 'INVALID_MESSAGE',
  413: 'FRAME_TOO_LARGE',
  429: 'RATE_LIMITED',
  503: 'UNAVAILABLE',
};

/** Every error of the HTTP API, Nest's own (unknown route…) included, in the protocol's shape. */
@Catch()
export class ApiErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return;
    const res = host.switchToHttp().getResponse<ServerResponse>();
    if (exception instanceof ApiError) {
      if (!res.headersSent)
        for (const [name, value] of Object.entries(exception.headers)) res.setHeader(name, value);
      sendJson(res, exception.status, errorBody(exception.code, exception.message));
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = CODE_OF_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_MESSAGE');
      const message = status === 404 ? 'There is no such route.' : exception.message;
      sendJson(res, status, errorBody(code, message));
      return;
    }
    this.logger.error({ err: exception }, 'HTTP handler failed');
    sendJson(res, 500, errorBody('INTERNAL', 'Something went wrong on the server.'));
  }
}

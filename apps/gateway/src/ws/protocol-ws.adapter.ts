import type { IncomingMessage } from 'node:http';
import { WsAdapter } from '@nestjs/platform-ws';
import type { MessageMappingProperties } from '@nestjs/websockets';
import type { Observable } from 'rxjs';
import type { Logger } from '@dominoes/platform';
import { originAllowed } from '../edge/origin-policy';

type VerifyCallback = (ok: boolean, code?: number, message?: string) => void;

/**
 * Nest's WsAdapter, minus two things: it does not JSON-parse every frame looking for `{event}`
 * handlers (the SocketHub parses each frame once, with the protocol's own parser), and socket errors
 * (a peer sending a frame over maxPayload, a reset) are logged at debug instead of as errors.
 * Plus one: an upgrade from a browser page of another origin is refused with 403 before any socket
 * exists (a request without `Origin` is not from a browser page, and is let through).
 */
export class ProtocolWsAdapter extends WsAdapter {
  constructor(
    app: ConstructorParameters<typeof WsAdapter>[0],
    private readonly log: Logger,
    private readonly allowedOrigins: readonly string[],
  ) {
    super(app);
  }

  override create(port: number, options: Parameters<WsAdapter['create']>[1] = {}): unknown {
    return super.create(port, {
      ...options,
      verifyClient: (info: { req: IncomingMessage }, done: VerifyCallback) => {
        const origin = info.req.headers.origin;
        if (originAllowed(origin, this.allowedOrigins)) return done(true);
        this.log.info({ origin, remote: info.req.socket.remoteAddress }, 'WebSocket upgrade refused: origin');
        done(false, 403, 'Forbidden');
      },
    });
  }

  override bindMessageHandlers(
    client: unknown,
    handlers: MessageMappingProperties[],
    transform: (data: unknown) => Observable<unknown>,
  ): void {
    if (handlers.length > 0) super.bindMessageHandlers(client, handlers, transform);
  }

  override bindErrorHandler(server: {
    on(event: string, listener: (...args: never[]) => void): void;
  }): unknown {
    server.on('connection', (ws: { on(event: 'error', listener: (error: Error) => void): void }) =>
      ws.on('error', (error: Error) => this.log.debug({ err: error.message }, 'socket error')),
    );
    server.on('error', (error: Error) => this.log.error({ err: error }, 'WebSocket server error'));
    return server;
  }
}

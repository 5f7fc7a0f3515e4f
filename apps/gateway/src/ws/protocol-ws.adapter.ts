import { WsAdapter } from '@nestjs/platform-ws';
import type { MessageMappingProperties } from '@nestjs/websockets';
import type { Observable } from 'rxjs';
import type { Logger } from '@dominoes/platform';

/**
 * Nest's WsAdapter, minus two things: it does not JSON-parse every frame looking for `{event}`
 * handlers (the SocketHub parses each frame once, with the protocol's own parser), and socket errors
 * (a peer sending a frame over maxPayload, a reset) are logged at debug instead of as errors.
 */
export class ProtocolWsAdapter extends WsAdapter {
  constructor(
    app: ConstructorParameters<typeof WsAdapter>[0],
    private readonly log: Logger,
  ) {
    super(app);
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

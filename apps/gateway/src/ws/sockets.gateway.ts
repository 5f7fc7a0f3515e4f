import type { IncomingMessage } from 'node:http';
import { Inject } from '@nestjs/common';
import { WebSocketGateway, type OnGatewayConnection } from '@nestjs/websockets';
import type WebSocket from 'ws';
import type { Logger } from '@dominoes/platform';
import { LOGGER } from '../di';
import { SocketHub, WS_MAX_PAYLOAD } from './socket-hub';

/**
 * The `/ws` endpoint on the `ws` adapter. Frames are not `{event, data}` messages, so no
 * `@SubscribeMessage` handlers: each socket is handed to the SocketHub, which reads its frames.
 * `autoPong: false`: ws would answer every ping at once, without limit (a peer that pings and never
 * reads grew the gateway by 500 MB in 12 s); the SocketHub answers them through the rate limit.
 * (The Origin check of the upgrade is the adapter's: it needs the configuration.)
 */
@WebSocketGateway({ path: '/ws', maxPayload: WS_MAX_PAYLOAD, autoPong: false })
export class SocketsGateway implements OnGatewayConnection {
  constructor(
    @Inject(SocketHub) private readonly hub: SocketHub,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  handleConnection(socket: WebSocket, request: IncomingMessage): void {
    try {
      this.hub.open(socket, request);
    } catch (error) {
      this.logger.error({ err: error }, 'socket open failed');
      socket.terminate();
    }
  }
}

import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../di';
const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Dominoes</title></head>
<body><h1>Dominoes</h1><p>The gateway is running, but the web client is not built yet (apps/web/dist is missing).</p>
<p>The API is at <code>/api</code>, the WebSocket at <code>/ws</code>.</p></body></html>`;

/** The web client: static files come from the static middleware; `/`, `/t/:code`, `/matches` and `/replay/:matchId` fall back to its index.html. */
@Controller()
export class WebController {
  private readonly index: string | null;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    const index = join(config.webDist, 'index.html');
    this.index = existsSync(index) ? index : null;
  }

  @Get()
  root(@Res() res: ServerResponse & { sendFile(path: string, options?: object): void }): void {
    this.page(res);
  }

  @Get('t/:code')
  table(@Res() res: ServerResponse & { sendFile(path: string, options?: object): void }): void {
    this.page(res);
  }

  /** "Your matches" and a match's replay (issue 12): pages of the same client. */
  @Get('matches')
  matches(@Res() res: ServerResponse & { sendFile(path: string, options?: object): void }): void {
    this.page(res);
  }

  @Get('replay/:matchId')
  replay(@Res() res: ServerResponse & { sendFile(path: string, options?: object): void }): void {
    this.page(res);
  }

  private page(res: ServerResponse & { sendFile(path: string, options?: object): void }): void {
    if (this.index) {
      // index.html is never cached (a deploy must reach browsers at once: it names the new hashed assets).
      res.sendFile(this.index, { cacheControl: false, headers: { 'Cache-Control': 'no-cache' } });
      return;
    }
    res.statusCode = 200;
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(NOT_BUILT);
  }
}

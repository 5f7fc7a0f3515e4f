import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../di';
import { IntentService } from '../intents/intent.service';
import { TableReader } from '../tables/table-reader';
import { sendJson } from './errors';

const within = <T>(ms: number, promise: Promise<T>, fallback: T): Promise<T> =>
  Promise.race([promise, new Promise<T>((resolve) => setTimeout(() => resolve(fallback), ms).unref())]);

@Controller()
export class HealthController {
  constructor(
    @Inject(IntentService) private readonly intents: IntentService,
    @Inject(TableReader) private readonly tables: TableReader,
  ) {}

  /** 200 while the event loop runs. */
  @Get('health/live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** 200 only when Redis answers PING and Postgres `select 1`; 503 says which one failed. */
  @Get('health/ready')
  async ready(@Res() res: ServerResponse): Promise<void> {
    const [redis, postgres] = await Promise.all([
      within(2000, this.intents.ping(), false),
      within(2000, this.tables.ping(), false),
    ]);
    const body = {
      status: redis && postgres ? 'ok' : 'unavailable',
      redis: redis ? 'ok' : 'down',
      postgres: postgres ? 'ok' : 'down',
    };
    sendJson(res, redis && postgres ? 200 : 503, body);
  }
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Dominoes</title></head>
<body><h1>Dominoes</h1><p>The gateway is running, but the web client is not built yet (apps/web/dist is missing).</p>
<p>The API is at <code>/api</code>, the WebSocket at <code>/ws</code>.</p></body></html>`;

/** The web client: static files come from the static middleware; `/` and `/t/:code` fall back to its index.html. */
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

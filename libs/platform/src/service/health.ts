import type { ServerResponse } from 'node:http';
import { Controller, Get, Inject, Res } from '@nestjs/common';

/** One thing `/health/ready` waits for, and the words its body uses for it (`ok`/`down` by default). */
export interface ReadinessCheck {
  readonly name: string;
  readonly probe: () => Promise<boolean> | boolean;
  readonly up?: string;
  readonly down?: string;
  /**
   * False: named in the body, but its being down does not make the service unready (a gateway's
   * non-home databases, decision 0027: one database down pauses its shards' tables, not the site).
   */
  readonly required?: boolean;
}

/** The service's readiness checks (a `readonly ReadinessCheck[]`), in the order its body names them. */
export const READINESS = Symbol('READINESS');

/** How long a check may take before it counts as down: a dead host can hold a connect for minutes. */
export const READINESS_TIMEOUT_MS = 2000;

/** `promise`, or `fallback` if it has not settled within `ms`. */
export const within = <T>(ms: number, promise: Promise<T>, fallback: T): Promise<T> =>
  Promise.race([promise, new Promise<T>((resolve) => setTimeout(() => resolve(fallback), ms).unref())]);

/** Runs every check at once; a check that throws or takes longer than 2 s is down. */
export async function readiness(
  checks: readonly ReadinessCheck[],
): Promise<{ ready: boolean; body: Record<string, string> }> {
  const results = await Promise.all(
    checks.map((check) =>
      within(
        READINESS_TIMEOUT_MS,
        Promise.resolve()
          .then(check.probe)
          .catch(() => false),
        false,
      ),
    ),
  );
  const ready = results.every((up, i) => up || checks[i]!.required === false);
  const body: Record<string, string> = { status: ready ? 'ok' : 'unavailable' };
  checks.forEach((check, i) => (body[check.name] = results[i] ? (check.up ?? 'ok') : (check.down ?? 'down')));
  return { ready, body };
}

/**
 * `/health/live`: 200 while the process runs (it never looks at the stores: a store that is down
 * must take the pods out of the Service, not restart them). `/health/ready`: 200 when every
 * required readiness check passes, else 503; the body names what is down either way.
 */
@Controller('health')
export class HealthController {
  constructor(@Inject(READINESS) private readonly checks: readonly ReadinessCheck[]) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(@Res() res: ServerResponse): Promise<void> {
    const { ready, body } = await readiness(this.checks);
    const text = JSON.stringify(body);
    res.statusCode = ready ? 200 : 503;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('content-length', Buffer.byteLength(text));
    res.end(text);
  }
}

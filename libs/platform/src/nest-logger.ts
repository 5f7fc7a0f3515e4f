import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

/**
 * Nest's own log lines (module init, route mapping, errors it catches) through the service's pino
 * logger, so a process writes one format. Nest's chatty bootstrap lines go to `debug`.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  private split(params: unknown[]): { context?: string; rest: unknown[] } {
    const last = params[params.length - 1];
    return typeof last === 'string' ? { context: last, rest: params.slice(0, -1) } : { rest: params };
  }

  log(message: unknown, ...params: unknown[]): void {
    const { context } = this.split(params);
    this.logger.debug({ context }, String(message));
  }
  error(message: unknown, ...params: unknown[]): void {
    const { context, rest } = this.split(params);
    const stack = typeof rest[0] === 'string' ? rest[0] : undefined;
    if (message instanceof Error) this.logger.error({ context, err: message }, message.message);
    else this.logger.error({ context, stack }, String(message));
  }
  warn(message: unknown, ...params: unknown[]): void {
    const { context } = this.split(params);
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, ...params: unknown[]): void {
    const { context } = this.split(params);
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, ...params: unknown[]): void {
    const { context } = this.split(params);
    this.logger.trace({ context }, String(message));
  }
}

import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** One line a test's logger wrote, parsed. */
export interface LoggedLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** For tests: a pino logger at debug level whose lines are kept, parsed, in `lines`. */
export function recordingLogger(): { logger: Logger; lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as LoggedLine);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

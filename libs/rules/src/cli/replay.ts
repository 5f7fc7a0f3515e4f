/**
 * `npm run --silent replay < cases.jsonl`: reads JSON Lines from stdin, one case per line, and writes
 * one JSON result per line to stdout (blank lines are skipped). A bad line gets an error line of its
 * own and never stops the lines after it. The logic is `replayLine` in ../replay/; this is only I/O.
 */
import { createInterface } from 'node:readline';
import { replayLine } from '../replay';

// A reader that stops early (`| head`) is not an error: stop quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

async function main(): Promise<void> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const out = `${JSON.stringify(replayLine(line))}\n`;
    if (!process.stdout.write(out)) {
      await new Promise<void>((resolve) => process.stdout.once('drain', () => resolve()));
    }
  }
}

main().catch((thrown: unknown) => {
  // replayLine never throws; this is only for a broken stdin or stdout. No stack trace.
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  process.stderr.write(`replay: ${message}\n`);
  process.exitCode = 1;
});

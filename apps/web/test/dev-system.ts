/**
 * Runs the whole system for trying the page by hand, on a database and ports of its own:
 *   npx tsx apps/web/test/dev-system.ts          (then open the printed URL)
 * TURN_MS / BREAK_MS from the environment shorten the clocks. Ctrl-C stops it.
 */
import { TestSystem } from '../../../e2e/src/system';

async function main() {
  const system = await TestSystem.start(`web-dev-${process.pid}`, {
    turnMs: Number(process.env.TURN_MS ?? 45_000),
    disconnectedTurnMs: Number(process.env.DISCONNECTED_TURN_MS ?? 5_000),
    breakMs: Number(process.env.BREAK_MS ?? 30_000),
  });
  console.log(`ready ${system.httpUrl}`);
  const stop = () => {
    void system.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

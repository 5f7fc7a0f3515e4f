/**
 * `npm run --silent bench:pipeline -- --tables 100 [--seconds 30] [--url http://host:port]`
 *
 * Plays N partnership tables at zero think time through the real services (started here as
 * processes, as `npm start` does, unless --url names a running gateway) with real WebSocket
 * clients, and prints ONE JSON line: stored, acknowledged actions per second, and the p50/p95/p99
 * of action-to-view latency (to the actor's own view, and to all four views). The same JSON goes
 * to bench-results/pipeline-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { createSeededRng, type Action } from '@dominoes/rules';
import { createTable, DominoesClient, requestIdentity, type TableView } from '@dominoes/protocol';
import { nodeSocket } from '../src/players';
import { ROOT, TestSystem } from '../src/system';

interface Args {
  tables: number;
  seconds: number;
  url: string | null;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { tables: 100, seconds: 30, url: null };
  for (let i = 0; i < argv.length; i++) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (key === '--tables') args.tables = Number(value);
    else if (key === '--seconds') args.seconds = Number(value);
    else if (key === '--url') args.url = value ?? null;
    else continue;
    i++;
  }
  if (!Number.isInteger(args.tables) || args.tables < 1)
    throw new Error('--tables must be a whole number >= 1');
  return args;
}

const percentile = (sorted: number[], p: number): number | null =>
  sorted.length === 0
    ? null
    : Number(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(2));

interface Sent {
  t0: number;
  actor: number;
  table: number;
  version: number | null;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const system = args.url ? null : await TestSystem.start('bench', { shards: 16 });
  const httpUrl = args.url ?? system!.httpUrl;
  const wsUrl = httpUrl.replace(/^http/, 'ws') + '/ws';
  const rng = createSeededRng(1);
  const tables: DominoesClient[][] = [];
  const arrivals: Map<number, number>[][] = [];
  const sent: Sent[] = [];
  const errors: Record<string, number> = {};
  let measuring = false;

  // Seat every table: the host opens it, three more join; the match starts with the 4th.
  for (let t = 0; t < args.tables; t++) {
    const identities = await Promise.all([0, 1, 2, 3].map((i) => requestIdentity(httpUrl, `B${t}-${i}`)));
    const { tableId } = await createTable(httpUrl, identities[0]!.token, {
      variant: 'partnership',
      target: 500,
    });
    const clients: DominoesClient[] = [];
    const seen: Map<number, number>[] = [];
    for (const identity of identities) {
      const client = new DominoesClient({ socketFactory: nodeSocket, replyTimeoutMs: 30_000 });
      const versions = new Map<number, number>();
      client.onView((_view, version) => {
        if (!versions.has(version)) versions.set(version, performance.now());
      });
      await client.connect(wsUrl, identity.token);
      await client.join(tableId);
      await client.waitForView((v) => v.tableId === tableId);
      clients.push(client);
      seen.push(versions);
    }
    tables.push(clients);
    arrivals.push(seen);
  }

  const act = (table: number, seat: number, client: DominoesClient, view: TableView) => {
    const game = view.game;
    if (view.status === 'finished' && view.hostSeat === seat)
      return void client.newMatch().catch(() => undefined);
    if (game?.phase === 'between-rounds' && view.hostSeat === seat)
      return void client.startRound().catch(() => undefined);
    if (game?.phase !== 'playing' || game.turn !== seat || game.legal.length === 0) return;
    const action = game.legal[rng.below(game.legal.length)] as Action;
    const record: Sent = { t0: performance.now(), actor: seat, table, version: null };
    const request =
      action.type === 'play'
        ? client.play(action.tile, action.end)
        : action.type === 'pass'
          ? client.pass()
          : client.draw();
    request.then(
      (ack) => {
        record.version = ack.version;
        if (measuring) sent.push(record);
      },
      (error: { code?: string }) => {
        if (measuring) errors[error.code ?? 'UNKNOWN'] = (errors[error.code ?? 'UNKNOWN'] ?? 0) + 1;
      },
    );
  };
  tables.forEach((clients, t) =>
    clients.forEach((client, i) => {
      const seat = client.view!.you.seat;
      let last = -1;
      client.onView((view, version) => {
        if (version <= last) return;
        last = version;
        act(t, seat, client, view);
      });
      if (client.view) act(t, seat, client, client.view);
      void i;
    }),
  );

  // Warm up, then measure.
  await new Promise((r) => setTimeout(r, 3000));
  measuring = true;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, args.seconds * 1000));
  measuring = false;
  const elapsed = (performance.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 1000));

  const own: number[] = [];
  const all: number[] = [];
  for (const s of sent) {
    if (s.version === null) continue;
    const firstAt = (versions: Map<number, number>) => {
      let best = Infinity;
      for (const [v, at] of versions) if (v >= s.version! && at < best) best = at;
      return best;
    };
    const times = arrivals[s.table]!.map(firstAt);
    const mine = tables[s.table]!.findIndex((c) => c.view?.you.seat === s.actor);
    if (Number.isFinite(times[mine]!)) own.push(times[mine]! - s.t0);
    const latest = Math.max(...times);
    if (Number.isFinite(latest)) all.push(latest - s.t0);
  }
  own.sort((a, b) => a - b);
  all.sort((a, b) => a - b);
  const result = {
    bench: 'pipeline',
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
    tables: args.tables,
    sockets: args.tables * 4,
    seconds: Number(elapsed.toFixed(1)),
    actions: sent.length,
    actionsPerSecond: Number((sent.length / elapsed).toFixed(1)),
    actionToOwnViewMs: { p50: percentile(own, 50), p95: percentile(own, 95), p99: percentile(own, 99) },
    actionToAllViewsMs: { p50: percentile(all, 50), p95: percentile(all, 95), p99: percentile(all, 99) },
    errors,
  };
  for (const clients of tables) for (const c of clients) c.close();
  await system?.stop();
  const line = JSON.stringify(result);
  const dir = join(ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `pipeline-${result.date.replace(/[:.]/g, '-')}.json`), line + '\n');
  process.stdout.write(line + '\n');
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:pipeline: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

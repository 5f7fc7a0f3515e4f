import { spawn, type ChildProcess } from 'node:child_process';
import WebSocket from 'ws';
import { requestIdentity, type TableView } from '@dominoes/protocol';
import { TestPlayer } from '../src/players';
import { ROOT, TestSystem } from '../src/system';

/**
 * Issue 10, the WebSocket edge through the real services: a frozen client is noticed by the
 * gateway's heartbeat (so P17's short clock applies to its seat), and a sync's view reaches only the
 * socket that asked.
 */
const PING_MS = 1000;
const PONG_TIMEOUT_MS = 1000;
const TURN_MS = 45_000;
const DISCONNECTED_MS = 5_000;
/** Processes and timers on a busy 2-core machine. */
const SLACK_MS = 1500;

const turnOf = (v: TableView | null) => (v?.game?.phase === 'playing' ? v.game.turn : null);

/** A player in a process of its own: hello, join, then it just sits there (ws answers pings). */
const CHILD = `
const WebSocket = require('ws');
const ws = new WebSocket(process.env.WS_URL);
ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', token: process.env.TOKEN })));
ws.on('message', (data) => {
  const m = JSON.parse(String(data));
  if (m.type === 'welcome') ws.send(JSON.stringify({ type: 'join', id: 'j1', table: process.env.TABLE }));
  if (m.type === 'ack' && m.id === 'j1') console.log('joined');
});
ws.on('close', () => process.exit(0));
`;

describe('the WebSocket edge, end to end', () => {
  let system: TestSystem;
  const children: ChildProcess[] = [];
  const players: TestPlayer[] = [];

  beforeAll(async () => {
    system = await TestSystem.start('ws-edge', {
      turnMs: TURN_MS,
      disconnectedTurnMs: DISCONNECTED_MS,
      env: { WS_PING_INTERVAL_MS: String(PING_MS), WS_PONG_TIMEOUT_MS: String(PONG_TIMEOUT_MS) },
    });
  });
  afterAll(async () => {
    for (const p of players) p.close();
    for (const child of children) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      try {
        process.kill(child.pid!, 'SIGCONT');
        child.kill('SIGKILL');
      } catch {
        // gone already
      }
    }
    await system?.stop();
  });

  async function player(name: string): Promise<TestPlayer> {
    const p = await TestPlayer.create(system, name);
    players.push(p);
    await p.connect();
    return p;
  }

  it('a client frozen with SIGSTOP shows as disconnected within ping interval + pong timeout, and its turn gets the disconnected clock (P17)', async () => {
    const host = await player('Hana');
    const { tableId } = await host.openTable({ variant: 'partnership' });
    await host.join(tableId);
    const frozen = await requestIdentity(system.httpUrl, 'Frozen');
    const child = spawn(process.execPath, ['-e', CHILD], {
      cwd: ROOT,
      env: { ...process.env, WS_URL: system.wsUrl, TOKEN: frozen.token, TABLE: tableId },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    await new Promise<void>((done, fail) => {
      child.stdout!.on('data', (data: Buffer) => {
        if (data.toString().includes('joined')) done();
      });
      child.once('exit', (code) => fail(new Error(`the child exited with ${code}`)));
    });
    const others = [await player('Ola'), await player('Per')];
    for (const p of others) await p.join(tableId);
    const inProcess = [host, ...others];
    const started = await host.client.waitForView(
      (v) => v.status === 'playing' && v.seats.every((s) => s?.connected),
    );
    const frozenSeat = started.seats.findIndex((s) => s?.name === 'Frozen');
    expect(frozenSeat).toBeGreaterThanOrEqual(0);
    // While connected, a turn has the full clock.
    expect(started.clock!.deadline - Date.now()).toBeGreaterThan(TURN_MS - 10_000);

    process.kill(child.pid!, 'SIGSTOP');
    const stoppedAt = Date.now();
    await host.client.waitForView(
      (v) => v.seats[frozenSeat]?.connected === false,
      PING_MS + PONG_TIMEOUT_MS + 10_000,
    );
    const noticedMs = Date.now() - stoppedAt;
    console.log(
      `a SIGSTOPped client was seen as disconnected after ${noticedMs} ms (ping ${PING_MS} + pong timeout ${PONG_TIMEOUT_MS} ms)`,
    );
    expect(noticedMs).toBeLessThan(PING_MS + PONG_TIMEOUT_MS + SLACK_MS);

    // The others play their turns until the frozen seat's comes: it gets the disconnected clock.
    const unsubscribe = inProcess.map((p) =>
      p.onView((v) => {
        if (turnOf(v) !== p.seat) return;
        const legal = v.game!.legal[0]!;
        void (legal.type === 'play' ? p.client.play(legal.tile, legal.end) : p.client.pass()).catch(
          () => undefined,
        );
      }),
    );
    for (const p of inProcess) {
      const v = p.view!;
      if (turnOf(v) === p.seat) {
        const legal = v.game!.legal[0]!;
        void (legal.type === 'play' ? p.client.play(legal.tile, legal.end) : p.client.pass()).catch(
          () => undefined,
        );
      }
    }
    const frozenTurn = await host.client.waitForView(
      (v) => turnOf(v) === frozenSeat && v.seats[frozenSeat]?.connected === false,
      15_000,
    );
    const seenAt = Date.now();
    for (const off of unsubscribe) off();
    expect(frozenTurn.clock).toMatchObject({ kind: 'turn', seat: frozenSeat });
    const left = frozenTurn.clock!.deadline - seenAt;
    console.log(
      `the frozen seat's turn clock: ${left} ms left when its view arrived (connected: ${TURN_MS} ms)`,
    );
    expect(left).toBeLessThanOrEqual(DISCONNECTED_MS + 100);

    process.kill(child.pid!, 'SIGCONT');
    child.kill('SIGKILL');
    await new Promise((done) => child.once('exit', done));
  });

  it('a sync from one of five sockets of a seat is answered on that socket only', async () => {
    const host = await player('Sami');
    const { tableId } = await host.openTable({ variant: 'partnership' });
    await host.join(tableId);
    const multi = await requestIdentity(system.httpUrl, 'Many');
    const sockets = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        const ws = new WebSocket(system.wsUrl);
        const frames: Record<string, unknown>[] = [];
        ws.on('message', (data) => frames.push(JSON.parse(String(data)) as Record<string, unknown>));
        await new Promise((done) => ws.once('open', done));
        ws.send(JSON.stringify({ type: 'hello', token: multi.token }));
        ws.send(JSON.stringify({ type: 'join', id: `j${i}`, table: tableId }));
        return { ws, frames };
      }),
    );
    const views = () => sockets.map((s) => s.frames.filter((f) => f['type'] === 'view').length);
    const until = async (probe: () => boolean) => {
      for (let i = 0; i < 300 && !probe(); i++) await new Promise((r) => setTimeout(r, 20));
    };
    await until(() => views().every((n) => n > 0));
    await new Promise((r) => setTimeout(r, 1000)); // every join's views and syncs have arrived
    const before = views();
    sockets[2]!.ws.send(JSON.stringify({ type: 'sync', id: 'sync-1' }));
    await until(() => sockets[2]!.frames.some((f) => f['type'] === 'ack' && f['id'] === 'sync-1'));
    await new Promise((r) => setTimeout(r, 1000));
    const after = views();
    console.log(`views per socket before the sync ${before.join(',')}, after ${after.join(',')}`);
    expect(after.map((n, i) => n - before[i]!)).toEqual([0, 0, 1, 0, 0]);
    const last = sockets[2]!.frames.filter((f) => f['type'] === 'view').at(-1)!;
    expect(last).toMatchObject({ type: 'view', view: { tableId, you: { playerId: multi.playerId } } });
    for (const s of sockets) s.ws.close();
  });
});

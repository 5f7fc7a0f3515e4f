import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { requestIdentity } from '@dominoes/protocol';
import { ARTIFACTS, TestSystem } from '../src/system';

/**
 * Issue 10: a ping flood from peers that never read grew the gateway from 157 to 657 MB in 12 s
 * (ws answered every ping at once, and the answers piled up unsent). Here the real gateway process
 * is flooded by raw TCP sockets speaking WebSocket by hand, which never read a byte after the
 * handshake: its RSS must stay within a small bound, and every flooding socket must be closed.
 */
const FLOOD_MS = 10_000;
const MAX_GROWTH_MB = 60;

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(/(\d+)/.exec(line)![1]) / 1024;
}

/** A client-to-server frame (clients must mask): FIN + opcode, the masked payload. */
function maskedFrame(opcode: number, payload: Buffer): Buffer {
  if (payload.length > 65_535) throw new Error('payload too long for this helper');
  const mask = randomBytes(4);
  const header =
    payload.length < 126
      ? Buffer.from([0x80 | opcode, 0x80 | payload.length])
      : Buffer.from([0x80 | opcode, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  const body = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
  return Buffer.concat([header, mask, body]);
}

interface Flooder {
  readonly socket: Socket;
  /** Resolves with the time (ms after the flood began) at which the socket was closed. */
  readonly closedAfter: Promise<number>;
  sentBytes: number;
}

/** Opens a WebSocket by hand, then never reads again: the socket stays paused. */
async function handshake(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((done, fail) => {
    socket.once('connect', () => done());
    socket.once('error', fail);
  });
  socket.write(
    [
      'GET /ws HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      '',
      '',
    ].join('\r\n'),
  );
  const response = await new Promise<string>((done) => socket.once('data', (data) => done(data.toString())));
  expect(response).toMatch(/^HTTP\/1\.1 101 /);
  // From here on nothing is read: what the gateway sends piles up in the kernel, then in its own buffers.
  socket.pause();
  return socket;
}

function flood(socket: Socket, first: Buffer | null, started: number): Flooder {
  const ping = maskedFrame(0x9, Buffer.alloc(125, 0x70));
  const chunk = Buffer.concat(Array.from({ length: 256 }, () => ping));
  const flooder: Flooder = {
    socket,
    sentBytes: 0,
    closedAfter: new Promise((done) => socket.once('close', () => done(Date.now() - started))),
  };
  socket.on('error', () => undefined);
  if (first) socket.write(first);
  const pump = () => {
    while (!socket.destroyed && Date.now() - started < FLOOD_MS) {
      flooder.sentBytes += chunk.length;
      if (!socket.write(chunk)) {
        socket.once('drain', pump);
        return;
      }
    }
  };
  // Writes go on from the event loop, so that close events and timers still run.
  setImmediate(pump);
  return flooder;
}

describe('a ping flood from sockets that never read', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start('ws-flood');
  });
  afterAll(async () => {
    await system?.stop();
  });

  it(`keeps the gateway's RSS within ${MAX_GROWTH_MB} MB and closes every flooding socket`, async () => {
    const pid = system.pidOf('gateway');
    const port = system.portOf('gateway');
    const { token } = await requestIdentity(system.httpUrl, 'Flood');
    await new Promise((r) => setTimeout(r, 1000));
    const before = rssMb(pid);
    const logFile = join(ARTIFACTS, 'logs', system.label, 'gateway.log');
    const logFrom = statSync(logFile).size;

    // 3 sockets that never say hello, and one that does, all pinging with 125-byte payloads.
    const sockets = await Promise.all([0, 1, 2, 3].map(() => handshake(port)));
    const started = Date.now();
    const hello = maskedFrame(0x1, Buffer.from(JSON.stringify({ type: 'hello', token })));
    const flooders = sockets.map((s, i) => flood(s, i === 3 ? hello : null, started));
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 200);
    await new Promise((r) => setTimeout(r, FLOOD_MS));
    clearInterval(sampler);
    const after = rssMb(pid);
    const closedAfter = await Promise.all(
      flooders.map((f) =>
        Promise.race([f.closedAfter, new Promise<number>((r) => setTimeout(() => r(-1), 5000).unref())]),
      ),
    );
    for (const s of sockets) s.destroy();

    const sentMb = flooders.reduce((sum, f) => sum + f.sentBytes, 0) / 2 ** 20;
    console.log(
      `gateway RSS under a ping flood of 4 sockets (3 without hello), ${FLOOD_MS / 1000} s: ` +
        `before ${before.toFixed(1)} MB, peak ${peak.toFixed(1)} MB, after ${after.toFixed(1)} MB ` +
        `(growth ${(after - before).toFixed(1)} MB); ${sentMb.toFixed(1)} MB of pings written; ` +
        `sockets closed after ${closedAfter.join(', ')} ms`,
    );
    expect(peak - before).toBeLessThan(MAX_GROWTH_MB);
    expect(after - before).toBeLessThan(MAX_GROWTH_MB);
    // Every flooder was closed by the gateway, well within the flood.
    for (const ms of closedAfter) {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(FLOOD_MS);
    }
    // Each was closed once, and said so once in the gateway's log.
    const log = readFileSync(logFile).subarray(logFrom).toString('utf8');
    const floodLines = log.split('\n').filter((line) => line.includes('socket closed: frame flood'));
    expect(floodLines).toHaveLength(4);
    expect(log.split('\n').filter((line) => line.includes('"msg":"socket closed"'))).toHaveLength(4);
    // And it still serves.
    const health = await fetch(`${system.httpUrl}/health/ready`);
    expect(health.ok).toBe(true);
  });
});

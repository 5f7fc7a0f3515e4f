import { once } from 'node:events';
import net from 'node:net';
import { TurnWrites, type Corkable } from '../src/ws/turn-writes';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

class CountingSocket implements Corkable {
  corks = 0;
  uncorks = 0;
  destroyed = false;
  throwOnUncork = false;
  cork(): void {
    this.corks++;
  }
  uncork(): void {
    this.uncorks++;
    if (this.throwOnUncork) throw new Error('gone');
  }
}

describe("TurnWrites: a socket's frames of one turn of the event loop leave together (issue 14)", () => {
  it('corks a socket once per turn however many frames it gets, and uncorks it after the turn', async () => {
    const turn = new TurnWrites();
    const a = new CountingSocket();
    const b = new CountingSocket();
    turn.hold(a);
    turn.hold(a);
    turn.hold(b);
    expect([a.corks, b.corks, turn.size]).toEqual([1, 1, 2]);
    expect(a.uncorks).toBe(0);
    await nextTurn();
    expect([a.uncorks, b.uncorks, turn.size]).toEqual([1, 1, 0]);
    turn.hold(a);
    expect(a.corks).toBe(2);
    await nextTurn();
    expect(a.uncorks).toBe(2);
  });

  it('leaves a destroyed socket alone, and a socket that throws on uncork does not stop the others', async () => {
    const turn = new TurnWrites();
    const gone = new CountingSocket();
    gone.destroyed = true;
    const throwing = new CountingSocket();
    throwing.throwOnUncork = true;
    const fine = new CountingSocket();
    turn.hold(gone);
    turn.hold(throwing);
    turn.hold(fine);
    await nextTurn();
    expect([gone.corks, throwing.uncorks, fine.uncorks]).toEqual([0, 1, 1]);
  });

  it('on a real TCP socket, the writes of one turn wait in its buffer and leave together once the turn is over', async () => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as net.AddressInfo).port;
    const client = net.connect(port, '127.0.0.1');
    const [accepted] = (await once(server, 'connection')) as [net.Socket];
    try {
      let received = '';
      client.on('data', (data: Buffer) => (received += data.toString()));
      const turn = new TurnWrites();
      const frames = ['{"type":"view"}', '{"type":"ack"}'];
      for (const frame of frames) {
        turn.hold(accepted);
        accepted.write(frame);
      }
      // Nothing written yet: both frames wait, corked once.
      expect(accepted.writableCorked).toBe(1);
      expect(accepted.writableLength).toBe(frames.join('').length);
      await nextTurn();
      expect(accepted.writableCorked).toBe(0);
      expect(accepted.writableLength).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(received).toBe(frames.join(''));
    } finally {
      client.destroy();
      accepted.destroy();
      server.close();
    }
  });
});

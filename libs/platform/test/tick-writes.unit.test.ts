import { writeTogether, type TickWritable } from '../src/tick-writes';

/** A socket that records what it was asked, in order. */
function recordingSocket() {
  const calls: string[] = [];
  const socket: TickWritable & { calls: string[] } = {
    calls,
    write: ((chunk: string) => {
      calls.push(`write ${chunk}`);
      return true;
    }) as TickWritable['write'],
    cork: () => void calls.push('cork'),
    uncork: () => void calls.push('uncork'),
  };
  return socket;
}

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

describe('writeTogether (decision 0033)', () => {
  it("a tick's writes are corked from the first and uncorked once after the tick, together with those of its promise jobs", async () => {
    const socket = recordingSocket();
    writeTogether(socket);
    const write = socket.write as unknown as (chunk: string) => boolean;
    expect(write('a')).toBe(true);
    write('b');
    await Promise.resolve().then(() => write('c'));
    expect(socket.calls).toEqual(['cork', 'write a', 'write b', 'write c']);
    await nextTick();
    expect(socket.calls).toEqual(['cork', 'write a', 'write b', 'write c', 'uncork']);
  });

  it('the next tick is corked again; a tick without writes corks nothing; making a socket write together twice changes nothing', async () => {
    const socket = recordingSocket();
    writeTogether(socket);
    writeTogether(socket);
    const write = socket.write as unknown as (chunk: string) => boolean;
    write('a');
    await nextTick();
    await nextTick();
    write('b');
    await nextTick();
    expect(socket.calls).toEqual(['cork', 'write a', 'uncork', 'cork', 'write b', 'uncork']);
  });

  it('`turn`: the writes of every callback until setImmediate (the end of this turn of the event loop) leave together', async () => {
    const socket = recordingSocket();
    writeTogether(socket, 'turn');
    const write = socket.write as unknown as (chunk: string) => boolean;
    write('a');
    await nextTick();
    write('b');
    expect(socket.calls).toEqual(['cork', 'write a', 'write b']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(socket.calls).toEqual(['cork', 'write a', 'write b', 'uncork']);
  });
});

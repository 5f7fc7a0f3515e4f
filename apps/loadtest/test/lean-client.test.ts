import { viewFrameText } from '@dominoes/protocol';
import { readViewHead } from '../src/lean-client';

describe('the lean client reads a view frame head without parsing the view (issue 14)', () => {
  it("reads version and server time of the gateway's own view frame (viewFrameText), and where the view's JSON is", () => {
    const view =
      '{"tableId":"ABC123","you":{"seat":2},"game":{"log":[{"by":"player"}]},"note":",\\"view\\":"}';
    const frame = Buffer.from(viewFrameText(41, 1_764_600_000_123, view));
    const head = readViewHead(frame);
    expect(head).toEqual({ version: 41, serverTime: 1_764_600_000_123, viewStart: expect.any(Number) });
    expect(frame.subarray(head!.viewStart, -1).toString()).toBe(view);
    expect(JSON.parse(frame.subarray(head!.viewStart, -1).toString())).toEqual(JSON.parse(view));
  });

  it('the view is cut at a byte offset, so names outside ASCII come through whole', () => {
    const view = '{"seats":[{"name":"José Ñúñez 🁣"}]}';
    const frame = Buffer.from(viewFrameText(7, 1, view));
    const head = readViewHead(frame)!;
    expect(JSON.parse(frame.subarray(head.viewStart, -1).toString())).toEqual(JSON.parse(view));
  });

  it('anything else is not a view head: the frame is then parsed whole', () => {
    for (const text of [
      '{"type":"ack","id":"l1","version":3}',
      '{"type":"view","version":"3","serverTime":1,"view":{}}',
      '{"type":"view","version":3.5,"serverTime":1,"view":{}}',
      '{"type":"view","version":3,"serverTime":"x","view":{}}',
      '{"type":"view","version":3,"serverTime":1,"view":{"a":1',
      '{"type":"view","version":,"serverTime":1,"view":{}}',
      '{"type":"view","version":3,"view":{}}',
      '{"version":3,"type":"view","serverTime":1,"view":{}}',
      '',
    ])
      expect(readViewHead(Buffer.from(text))).toBeNull();
  });
});

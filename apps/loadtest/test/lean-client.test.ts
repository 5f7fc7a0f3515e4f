import { viewChangeFrameText, viewFrameText } from '@dominoes/protocol';
import { readViewHead } from '../src/lean-client';

describe('the lean client reads a view frame head without parsing the view (issue 14)', () => {
  it("reads version and server time of the gateway's own view frame (viewFrameText), and where the view's JSON is", () => {
    const view =
      '{"tableId":"ABC123","you":{"seat":2},"game":{"log":[{"by":"player"}]},"note":",\\"view\\":"}';
    const frame = Buffer.from(viewFrameText(41, 1_764_600_000_123, view));
    const head = readViewHead(frame);
    expect(head).toEqual({
      version: 41,
      base: null,
      serverTime: 1_764_600_000_123,
      bodyStart: expect.any(Number),
    });
    expect(frame.subarray(head!.bodyStart, -1).toString()).toBe(view);
    expect(JSON.parse(frame.subarray(head!.bodyStart, -1).toString())).toEqual(JSON.parse(view));
  });

  it('the view is cut at a byte offset, so names outside ASCII come through whole', () => {
    const view = '{"seats":[{"name":"José Ñúñez 🁣"}]}';
    const frame = Buffer.from(viewFrameText(7, 1, view));
    const head = readViewHead(frame)!;
    expect(JSON.parse(frame.subarray(head.bodyStart, -1).toString())).toEqual(JSON.parse(view));
  });

  it("reads version, base and server time of the gateway's view-change frame (viewChangeFrameText), and where the change is (decision 0036)", () => {
    const change =
      '[{"set":["seats"],"to":[{"name":"Zoë, \\"base\\":"}]},{"push":["game","log"],"items":[1]}]';
    const frame = Buffer.from(viewChangeFrameText(42, 41, 1_764_600_000_124, change));
    const head = readViewHead(frame)!;
    expect(head).toEqual({
      version: 42,
      base: 41,
      serverTime: 1_764_600_000_124,
      bodyStart: expect.any(Number),
    });
    expect(frame.subarray(head.bodyStart, -1).toString()).toBe(change);
    expect(
      readViewHead(Buffer.from('{"type":"viewChange","version":42,"serverTime":1,"change":[]}')),
    ).toBeNull();
    expect(
      readViewHead(Buffer.from('{"type":"viewChange","version":42,"base":"x","serverTime":1,"change":[]}')),
    ).toBeNull();
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

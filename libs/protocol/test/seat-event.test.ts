import {
  decodeSeatEventHeader,
  encodeSeatEvent,
  parseSeatEvent,
  ServerMessageSchemas,
  viewFrameText,
  type SeatEvent,
  type TableView,
} from '@dominoes/protocol';

function view(seat: number, playerId: string): TableView {
  return {
    tableId: 'KQ7MZP',
    variant: 'partnership',
    seatCount: 4,
    target: 100,
    oneRound: false,
    status: 'waiting',
    hostSeat: 0,
    // Names with a newline, quotes and a backslash: the header/view split must not be fooled.
    seats: [
      { seat: 0, name: 'Ana\n{"x":1}', connected: true, side: 0 },
      { seat: 1, name: 'B\\"r', connected: false, side: 1 },
      null,
      null,
    ],
    you: { seat, playerId, autoPass: false },
    matchNumber: 0,
    clock: null,
    game: null,
  };
}

const event: SeatEvent = {
  tableId: 'KQ7MZP',
  seat: 1,
  version: 42,
  view: view(1, 'p-bruno'),
  cause: { intentId: 'p-bruno:7', sentAt: 1_700_000_000_000 },
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
};

describe('seat events between the table-service and the gateway (header line + view JSON)', () => {
  it('round-trips: what the table-service encodes, parseSeatEvent gives back unchanged', () => {
    expect(parseSeatEvent(encodeSeatEvent(event))).toEqual(event);
    const noTrace: SeatEvent = { ...event, cause: null };
    delete noTrace.traceparent;
    expect(parseSeatEvent(encodeSeatEvent(noTrace))).toEqual(noTrace);
  });

  it('the gateway reads the header (seat, version, the player the view is for) and keeps the view as text', () => {
    const decoded = decodeSeatEventHeader(encodeSeatEvent(event));
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decoded.header).toEqual({
      tableId: 'KQ7MZP',
      seat: 1,
      version: 42,
      playerId: 'p-bruno',
      cause: event.cause,
      traceparent: event.traceparent,
    });
    expect(JSON.parse(decoded.viewJson)).toEqual(event.view);
  });

  it('refuses to publish a view of one seat on another seat', () => {
    expect(() => encodeSeatEvent({ ...event, seat: 0 })).toThrow(/view of seat 1.*seat 0/);
  });

  it.each([
    ['no header line', '{"tableId":"KQ7MZP"}', /no header line/],
    ['a header that is not JSON', 'nope\n{}', /not JSON/],
    ['a header without the player and cause', '{"tableId":"T","seat":0,"version":1}\n{}', /./],
    ['a view that is not an object', `${encodeSeatEvent(event).split('\n')[0]}\n[1]`, /not a JSON object/],
  ])('drops %s with a reason', (_name, message, reason) => {
    const decoded = decodeSeatEventHeader(message);
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.reason).toMatch(reason);
  });

  it('viewFrameText writes exactly the frame JSON.stringify would, and it is a valid view frame', () => {
    const viewJson = JSON.stringify(event.view);
    const text = viewFrameText(42, 1_700_000_000_123, viewJson);
    const frame = { type: 'view', version: 42, serverTime: 1_700_000_000_123, view: event.view };
    expect(text).toBe(JSON.stringify(frame));
    expect(ServerMessageSchemas.view.parse(JSON.parse(text))).toEqual(frame);
  });
});

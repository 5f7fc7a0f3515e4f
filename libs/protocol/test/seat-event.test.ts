import {
  decodeTableViews,
  encodeTableViews,
  parseTableViews,
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

const cause = { intentId: 'p-bruno:7', sentAt: 1_700_000_000_000 };
const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const seatEvent = (seat: number, playerId: string): SeatEvent => ({
  tableId: 'KQ7MZP',
  seat,
  version: 42,
  view: view(seat, playerId),
  cause,
  traceparent,
});
const event = seatEvent(1, 'p-bruno');
const events = [seatEvent(0, 'p-ana'), event];

describe("a table's views between the table-service and the gateway (header line + one view JSON per seat)", () => {
  it('round-trips: what the table-service encodes, parseTableViews gives back unchanged, seat by seat', () => {
    expect(parseTableViews(encodeTableViews(events))).toEqual(events);
    const noTrace: SeatEvent = { ...event, cause: null };
    delete noTrace.traceparent;
    expect(parseTableViews(encodeTableViews([noTrace]))).toEqual([noTrace]);
  });

  it('the gateway reads the header (version, each seat and the player its view is for) and keeps each view as text, line i for seat i of the header', () => {
    const decoded = decodeTableViews(encodeTableViews(events));
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decoded.header).toEqual({
      tableId: 'KQ7MZP',
      version: 42,
      cause: event.cause,
      traceparent: event.traceparent,
      seats: [
        { seat: 0, playerId: 'p-ana' },
        { seat: 1, playerId: 'p-bruno' },
      ],
    });
    expect(decoded.viewJson.map((v) => JSON.parse(v) as unknown)).toEqual([events[0]!.view, event.view]);
  });

  it('refuses to publish a view of one seat for another seat', () => {
    expect(() => encodeTableViews([{ ...event, seat: 0 }])).toThrow(/view of seat 1.*seat 0/);
  });

  it('refuses to put views of two tables, or of two versions, in one message', () => {
    expect(() => encodeTableViews([seatEvent(0, 'a'), { ...event, tableId: 'OTHER1' }])).toThrow(/one table/);
    expect(() => encodeTableViews([seatEvent(0, 'a'), { ...event, version: 43 }])).toThrow(/one table/);
    expect(() => encodeTableViews([])).toThrow(/no views/);
  });

  const header = encodeTableViews(events).split('\n')[0]!;
  it.each([
    ['no header line', '{"tableId":"KQ7MZP"}', /no header line/],
    ['a header that is not JSON', 'nope\n{}', /not JSON/],
    ['a header without its seats and cause', '{"tableId":"T","version":1}\n{}', /./],
    ['a view that is not an object', `${header}\n{}\n[1]`, /not a JSON object/],
    ['fewer views than seats listed', `${header}\n{}`, /2 seats listed, 1 views/],
    ['more views than seats listed', `${header}\n{}\n{}\n{}`, /2 seats listed, 3 views/],
    ['a seat listed twice', `${header.replace('"seat":1', '"seat":0')}\n{}\n{}`, /a seat is listed twice/],
  ])('drops %s with a reason', (_name, message, reason) => {
    const decoded = decodeTableViews(message);
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

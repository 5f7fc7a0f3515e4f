import fc from 'fast-check';
import {
  decodeSeatEventHeader,
  encodeSeatEvent,
  encodeSeatMessages,
  parseSeatEvent,
  SeatEventReader,
  splitSeatMessages,
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

describe("a change's seat views as one message on the table's views channel (decision 0037)", () => {
  const seatMessage = (seat: number, name: string) => {
    const v = view(seat, `p-${seat}`);
    v.seats[0] = { seat: 0, name, connected: true, side: 0 };
    return { ...event, seat, view: v };
  };

  it("splits back into each seat's message, in order, whatever the names hold (newlines, quotes, backslashes)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.string()), { minLength: 1, maxLength: 4 }),
        (seats) => {
          const events = seats.map(([seat, name]) => seatMessage(seat, name));
          const texts = events.map(encodeSeatEvent);
          const parts = splitSeatMessages(texts.join('\n'));
          expect(parts).toEqual(texts);
          expect(parts!.map(parseSeatEvent)).toEqual(events);
        },
      ),
    );
  });

  it('encodeSeatMessages joins the messages as the table-service publishes them; readAll reads every seat, or the seats asked for', () => {
    const events = [0, 1, 2, 3].map((seat) => seatMessage(seat, `n${seat}`));
    const messages = events.map((e) => {
      const decoded = decodeSeatEventHeader(encodeSeatEvent(e));
      if (!decoded.ok) throw new Error(decoded.reason);
      return { header: decoded.header, viewJson: decoded.viewJson };
    });
    const text = encodeSeatMessages(messages);
    expect(text).toBe(events.map(encodeSeatEvent).join('\n'));
    expect(new SeatEventReader().readAll(text)).toEqual(events);
    expect(new SeatEventReader().readAll(text, [2]).map((e) => e.seat)).toEqual([2]);
  });

  it.each([
    ['an empty message', ''],
    ['a line without its pair', 'one line only'],
    ["a seat's message and half of another", `${encodeSeatEvent(event)}\n{"tableId":"KQ7MZP"}`],
  ])('finds the lines do not pair up in %s', (_name, text) => {
    expect(splitSeatMessages(text)).toBeNull();
    expect(() => new SeatEventReader().readAll(text)).toThrow(/do not pair up/);
  });
});

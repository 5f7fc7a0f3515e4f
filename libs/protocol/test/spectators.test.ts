import {
  createMatch,
  createSeededRng,
  publicView,
  seatView,
  startRound,
  type MatchState,
} from '@dominoes/rules';
import {
  decodeSpectatorEventHeader,
  encodeSpectatorEvent,
  parseClientFrame,
  parseSpectatorEvent,
  PublicViewSchema,
  ServerMessageSchemas,
  SpectatorViewSchema,
  TableViewSchema,
  watchViewFrameText,
  type SpectatorView,
} from '@dominoes/protocol';
import { tableAround } from './support/table-around';

function spectatorView(game: SpectatorView['game'] = null): SpectatorView {
  return {
    ...tableAround([{ seat: 0, name: 'Ana\n{"x":1}', connected: true, side: 0 }, null, null, null], {
      kind: 'turn',
      seat: 0,
      deadline: 1_700_000_000_000,
    }),
    watchers: 3,
    game,
  };
}

describe('spectator schemas (decision 0018, P10, P12)', () => {
  it('watch and unwatch frames: a table code, nothing more; bad ones are refused with a clear code', () => {
    expect(parseClientFrame('{"type":"watch","id":"w1","table":"KQ7MZPABCDEF"}')).toEqual({
      ok: true,
      value: { type: 'watch', id: 'w1', table: 'KQ7MZPABCDEF' },
    });
    expect(parseClientFrame('{"type":"unwatch","id":"w2"}')).toMatchObject({ ok: true });
    for (const bad of [
      '{"type":"watch","id":"w3"}',
      '{"type":"watch","id":"w4","table":"../../etc"}',
      '{"type":"watch","id":"w5","table":"KQ7MZPABCDEF","seat":0}',
      '{"type":"watch","id":"w6","table":["KQ7MZPABCDEF","ABCDEF"]}',
      '{"type":"unwatch","id":"w7","table":"KQ7MZPABCDEF"}',
    ])
      expect(parseClientFrame(bad)).toMatchObject({ ok: false, error: { code: 'INVALID_MESSAGE' } });
  });

  it("the public view schema is the rules' publicView: it takes one, and refuses a view that holds a hand or legal moves", () => {
    const created = createMatch({ variant: 'partnership' });
    if (!created.ok) throw new Error(created.error.message);
    const dealt = startRound(created.value, createSeededRng(7));
    if (!dealt.ok) throw new Error(dealt.error.message);
    const match: MatchState = dealt.value;
    const pub = publicView(match);
    expect(PublicViewSchema.safeParse(pub).success).toBe(true);
    expect(SpectatorViewSchema.safeParse(spectatorView(pub)).success).toBe(true);
    // A seat's view is not a spectator's: its hand and legal moves are refused, not stripped.
    expect(PublicViewSchema.safeParse(seatView(match, 0)).success).toBe(false);
    expect(SpectatorViewSchema.safeParse({ ...spectatorView(pub), you: { seat: 0 } }).success).toBe(false);
  });

  it('a spectator event is a header line and the view; the gateway reads the header only; the frame text is the schema’s', () => {
    const event = { tableId: 'KQ7MZPABCDEF', version: 9, view: spectatorView(), traceparent: '00-a-b-01' };
    const text = encodeSpectatorEvent(event);
    const decoded = decodeSpectatorEventHeader(text);
    expect(decoded).toMatchObject({ ok: true, header: { tableId: 'KQ7MZPABCDEF', version: 9 } });
    expect(parseSpectatorEvent(text)).toEqual(event);
    const frame = JSON.parse(watchViewFrameText(9, 5, (decoded as { viewJson: string }).viewJson)) as unknown;
    expect(ServerMessageSchemas.watchView.parse(frame)).toEqual({
      type: 'watchView',
      version: 9,
      serverTime: 5,
      view: spectatorView(),
    });
    expect(() => encodeSpectatorEvent({ ...event, tableId: 'OTHERTABLE12' })).toThrow();
    expect(decodeSpectatorEventHeader('{"tableId":"K","version":"x"}\n{}')).toMatchObject({ ok: false });
    expect(decodeSpectatorEventHeader('no header')).toMatchObject({ ok: false });
  });

  it('players’ views carry the number of watchers (optional for older table-services)', () => {
    const base = { ...spectatorView(), you: { seat: 0, playerId: 'p', autoPass: false }, game: null };
    const { watchers: _w, ...without } = base;
    expect(TableViewSchema.parse(base).watchers).toBe(3);
    expect(TableViewSchema.safeParse(without).success).toBe(true);
    expect(TableViewSchema.safeParse({ ...base, watchers: 'many' }).success).toBe(false);
  });
});

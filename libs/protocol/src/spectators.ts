import { z } from 'zod';
import type { PublicView } from '@dominoes/rules';
import type { InSync } from './actions';
import { decodeHeaderLine, type DecodedHeaderLine } from './header-line';
import { SeatViewObjectSchema, TableViewSchema } from './views';

/*
 * Watching a table (issue 12, decision 0018). A spectator's socket gets the table's public view:
 * the rules' `publicView`, no hand, every seat a count, the hands only in a round's reveal (P10, P12).
 */

const PublicViewObjectSchema = SeatViewObjectSchema.omit({ seat: true, hand: true, legal: true });

const _publicViewInSync: InSync<typeof PublicViewObjectSchema, PublicView> = true;
void _publicViewInSync;

/** The rules' `PublicView`: what every seat knows of the others. Checked against the type when this builds. */
export const PublicViewSchema: z.ZodType<PublicView> = PublicViewObjectSchema.strict();

/** Everything a spectator sees of a table: the seat view's table, without `you`, and the public game. */
export const SpectatorViewSchema = TableViewSchema.omit({ you: true, game: true, watchers: true })
  .extend({
    /** How many players watch the table (this one too). */
    watchers: z.number().int(),
    /** The public view of the match in play or just over; null before the first match. */
    game: PublicViewSchema.nullable(),
  })
  .strict();
export type SpectatorView = z.infer<typeof SpectatorViewSchema>;

/** At most this many players watch one table; one more is refused (TOO_MANY_WATCHERS). */
export const MAX_WATCHERS_PER_TABLE = 500;

/**
 * The header of a spectator event (channel `spectatorChannel`): as a seat event, this header as one
 * JSON line, a newline, then the SpectatorView as JSON, passed on by the gateway unparsed.
 */
export const SpectatorEventHeaderSchema = z.object({
  tableId: z.string(),
  version: z.number().int(),
  traceparent: z.string().optional(),
});
export type SpectatorEventHeader = z.infer<typeof SpectatorEventHeaderSchema>;

export interface SpectatorEvent {
  readonly tableId: string;
  readonly version: number;
  readonly view: SpectatorView;
  readonly traceparent?: string;
}

export function encodeSpectatorEvent(event: SpectatorEvent): string {
  if (event.view.tableId !== event.tableId)
    throw new Error(`a view of table ${event.view.tableId} cannot be published for ${event.tableId}`);
  const header: SpectatorEventHeader = {
    tableId: event.tableId,
    version: event.version,
    ...(event.traceparent ? { traceparent: event.traceparent } : {}),
  };
  return `${JSON.stringify(header)}\n${JSON.stringify(event.view)}`;
}

export type DecodedSpectatorEvent = DecodedHeaderLine<SpectatorEventHeader>;

/** The gateway's side: checks the header, the view stays text (as `decodeSeatEventHeader`). */
export const decodeSpectatorEventHeader = (message: string): DecodedSpectatorEvent =>
  decodeHeaderLine(message, SpectatorEventHeaderSchema);

/** The whole event, view checked too (tests, tools). Throws on anything malformed. */
export function parseSpectatorEvent(message: string): SpectatorEvent {
  const decoded = decodeSpectatorEventHeader(message);
  if (!decoded.ok) throw new Error(`not a spectator event: ${decoded.reason}`);
  return { ...decoded.header, view: SpectatorViewSchema.parse(JSON.parse(decoded.viewJson)) };
}

/** A `watchView` frame's text around a view that is already JSON (as `viewFrameText`). */
export function watchViewFrameText(version: number, serverTime: number, viewJson: string): string {
  return `{"type":"watchView","version":${version},"serverTime":${serverTime},"view":${viewJson}}`;
}

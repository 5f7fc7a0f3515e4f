import type { z } from 'zod';
import type { ErrorBody, ErrorCode } from './errors';
import { ClientMessageSchemas, type ClientMessage, type ClientMessageType } from './messages';
import { IntentIdSchema } from './primitives';

const utf8 = new TextEncoder();

/** Frames larger than this are refused unread (FRAME_TOO_LARGE). */
export const MAX_FRAME_BYTES = 4096;

/**
 * The socket's hard limit (ws `maxPayload`): a frame over it is not read at all, and the socket is
 * closed with 1009 (message too big) without an error frame.
 */
export const MAX_SOCKET_FRAME_BYTES = 64 * 1024;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: ErrorBody & { id: string | null } };

const refuse = <T>(code: ErrorCode, message: string, id: string | null = null): Parsed<T> => ({
  ok: false,
  error: { code, message, id },
});

/** A short, human reading of zod's issues: "tile: expected array; unknown field 'x'". */
export function describeIssues(error: z.ZodError, input: unknown): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      if (issue.code === 'unrecognized_keys')
        return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
      const path = issue.path.length > 0 ? issue.path.join('.') : 'message';
      // zod 4 leaves the input off its issues: a field is missing when the value at its path is.
      if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined)
        return `${path}: missing`;
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** The frame's id, echoed on its error only when it is a valid intent id (else the error frame would be invalid). */
function probableId(value: Record<string, unknown>): string | null {
  const id = IntentIdSchema.safeParse(value['id']);
  return id.success ? id.data : null;
}

/** Checks one text frame from a browser. Never throws; any bad input becomes a typed error. */
export function parseClientFrame(raw: string, maxBytes = MAX_FRAME_BYTES): Parsed<ClientMessage> {
  // UTF-8 takes at most 3 bytes per UTF-16 unit: count exactly only when it could matter.
  if (raw.length * 3 > maxBytes && utf8.encode(raw).length > maxBytes) {
    return refuse('FRAME_TOO_LARGE', `A frame may hold at most ${maxBytes} bytes.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return refuse('BAD_JSON', 'The frame is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return refuse('INVALID_MESSAGE', 'A frame is a JSON object with a "type".');
  }
  const record = value as Record<string, unknown>;
  const id = probableId(record);
  const type = record['type'];
  if (typeof type !== 'string') return refuse('INVALID_MESSAGE', 'type: missing', id);
  if (!Object.prototype.hasOwnProperty.call(ClientMessageSchemas, type)) {
    return refuse('UNKNOWN_TYPE', `Unknown message type "${type.slice(0, 32)}".`, id);
  }
  const schema = ClientMessageSchemas[type as ClientMessageType];
  const parsed = schema.safeParse(value);
  if (!parsed.success) return refuse('INVALID_MESSAGE', describeIssues(parsed.error, value), id);
  return { ok: true, value: parsed.data as ClientMessage };
}

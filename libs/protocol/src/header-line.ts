import type { z } from 'zod';

export type DecodedHeaderLine<H> = { ok: true; header: H; viewJson: string } | { ok: false; reason: string };

/**
 * A published view event: a header as one JSON line, a newline, then the view as JSON. Checks the
 * header against `schema`; the view stays text (the gateway passes it on without parsing it).
 * `isChange`: whether the header says the body is a change of a view (a JSON array), not a view.
 */
export function decodeHeaderLine<H>(
  message: string,
  schema: z.ZodType<H>,
  isChange: (header: H) => boolean = () => false,
): DecodedHeaderLine<H> {
  const newline = message.indexOf('\n');
  if (newline < 0) return { ok: false, reason: 'no header line' };
  let json: unknown;
  try {
    json = JSON.parse(message.slice(0, newline));
  } catch {
    return { ok: false, reason: 'the header is not JSON' };
  }
  const header = schema.safeParse(json);
  if (!header.success) return { ok: false, reason: header.error.issues[0]?.message ?? 'bad header' };
  const viewJson = message.slice(newline + 1);
  if (isChange(header.data)) {
    if (!viewJson.startsWith('[') || !viewJson.endsWith(']'))
      return { ok: false, reason: 'the change is not a JSON array' };
  } else if (!viewJson.startsWith('{') || !viewJson.endsWith('}'))
    return { ok: false, reason: 'the view is not a JSON object' };
  return { ok: true, header: header.data, viewJson };
}

import fc from 'fast-check';
import { PLAYER_NAME_MAX_BYTES, PLAYER_NAME_MAX_CHARACTERS, PlayerNameSchema } from '../src/primitives';

const parse = (raw: unknown) => PlayerNameSchema.safeParse(raw);
const accepted = (raw: string): string => {
  const result = parse(raw);
  if (!result.success) throw new Error(`refused ${JSON.stringify(raw)}: ${result.error.issues[0]?.message}`);
  return result.data;
};
const refusal = (raw: string): string => {
  const result = parse(raw);
  if (result.success) throw new Error(`accepted ${JSON.stringify(raw)} as ${JSON.stringify(result.data)}`);
  return result.error.issues[0]!.message;
};
const graphemeCount = (s: string) =>
  [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)].length;

/** Format characters (Cf) and bidi controls the review named, and a few more of the same kind. */
const FORMAT = [
  '\u200B', // zero-width space
  '\u200C', // zero-width non-joiner
  '\u200D', // zero-width joiner
  '\u2060', // word joiner
  '\uFEFF', // zero-width no-break space
  '\u00AD', // soft hyphen
  '\u202A',
  '\u202B',
  '\u202C',
  '\u202D',
  '\u202E', // embeddings and overrides
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069', // isolates
  '\u200E',
  '\u200F', // LRM, RLM
];
const FILLERS = ['\u3164', '\u2800', '\u115F', '\u1160', '\uFFA0'];
const CONTROLS = ['\u0000', '\u0007', '\u001B', '\u007F', '\u0085', '\t', '\n'];

describe('PlayerNameSchema: named cases', () => {
  it.each([
    ['Ana', 'Ana'],
    ['  Bruno  ', 'Bruno'],
    ['Ana\u00A0\u2003 Maria', 'Ana Maria'], // any run of spaces becomes one
    ['Jose\u0301', 'José'], // NFC: e + combining acute becomes é
    ['Ελένη', 'Ελένη'],
    ['Иван Петров', 'Иван Петров'],
    ['محمد', 'محمد'],
    ['佐藤', '佐藤'],
    ['Zoë 🎲', 'Zoë 🎲'],
    ['Hostess', 'Hostess'],
    ['Server-Room Sam', 'Server-Room Sam'],
    ['Ana (the 2nd)', 'Ana (the 2nd)'],
    ['x'.repeat(24), 'x'.repeat(24)],
  ])('accepts %p as %p', (raw, name) => {
    expect(accepted(raw)).toBe(name);
  });

  it('counts characters as people see them: 24 flags (48 code points) pass, 25 do not', () => {
    const flag = '\u{1F1E7}\u{1F1F7}'; // 🇧🇷: two regional indicators, one character
    expect(accepted(flag.repeat(12))).toBe(flag.repeat(12));
    expect(refusal('é'.normalize('NFD').repeat(25))).toBe('a name is 1 to 24 characters');
    expect(accepted('é'.normalize('NFD').repeat(24))).toBe('é'.repeat(24));
  });

  it(`caps the bytes too: ${PLAYER_NAME_MAX_BYTES} bytes of UTF-8`, () => {
    // 24 characters of 4 marks each: within the character count, over the byte cap.
    const heavy = 'a\u0301\u0302\u0303\u0304'.repeat(24);
    expect(graphemeCount(heavy.normalize('NFC'))).toBe(24);
    expect(refusal(heavy)).toMatch(/bytes of UTF-8/);
    expect(refusal('a'.repeat(10_000))).toMatch(/bytes of UTF-8/);
  });

  it('refuses a letter with a tower of marks (more than 4)', () => {
    expect(refusal('Za\u0301\u0302\u0303\u0304\u0305lgo')).toMatch(/at most 4 accents/);
  });

  it.each([
    ['empty', ''],
    ['only spaces', '   '],
    ['only ideographic spaces', '\u3000\u3000'],
    ['25 characters', 'x'.repeat(25)],
  ])('refuses %s with "1 to 24 characters"', (_label, raw) => {
    expect(refusal(raw)).toBe('a name is 1 to 24 characters');
  });

  it.each(CONTROLS.map((c) => [c.codePointAt(0)!.toString(16), c]))(
    'refuses the control character U+%s',
    (_hex, c) => {
      expect(refusal(`a${c}b`)).toBe('no control characters');
    },
  );

  it.each(FORMAT.map((c) => [c.codePointAt(0)!.toString(16), c]))(
    'refuses the format character U+%s anywhere in a name',
    (_hex, c) => {
      for (const raw of [`${c}Ana`, `An${c}a`, `Ana${c}`, `${c}`])
        expect(refusal(raw)).toMatch(/invisible formatting characters|1 to 24 characters/);
      expect(refusal(`An${c}a`)).toMatch(/invisible formatting characters/);
    },
  );

  it('refuses a right-to-left override that would flip what follows it on the page', () => {
    expect(refusal('\u202Enoyb')).toMatch(/direction overrides/);
    expect(refusal('Ana\u2067')).toMatch(/invisible formatting/);
  });

  it.each(FILLERS.map((c) => [c.codePointAt(0)!.toString(16), c]))(
    'refuses the blank filler U+%s, alone or in a name',
    (_hex, c) => {
      expect(refusal(c)).toMatch(/blank filler/);
      expect(refusal(`${c}${c}${c}`)).toMatch(/blank filler/);
      expect(refusal(`Ana${c}`)).toMatch(/blank filler/);
    },
  );

  it('refuses names of marks only, or starting with a mark', () => {
    expect(refusal('\u0301\u0302')).toMatch(/start with an accent/);
    expect(refusal('\u0301Ana')).toMatch(/start with an accent/);
  });

  it('refuses line separators, private-use and lone surrogates', () => {
    expect(refusal('Ana\u2028Bo')).toBe('no line breaks');
    expect(refusal('Ana\uE000')).toMatch(/private-use/);
    expect(refusal('Ana\uD800')).toMatch(/surrogate/);
  });

  it.each([
    'Host (you)',
    'Ana (you)',
    '(you)',
    '(host)',
    'Bo [Host]',
    'Bo {SYSTEM}',
    'Bo ( you )',
    'Ana （you）', // fullwidth brackets
    'Host',
    'HOST',
    'host!',
    'System',
    'Server',
    'You',
    'Ana, Host',
    'Ana ★',
    'Ana (ти)', // bg
    'Домакин',
    'Ana (εσύ)', // el, with and without the accent
    'Ana (εσυ)',
    'Οικοδεσπότης',
    'أنت (أنت)', // ar
    'المضيف',
    'Ana، المضيف',
  ])('refuses %p: it poses as the page\u2019s own label', (raw) => {
    expect(refusal(raw)).toMatch(/may not look like the page/);
  });
});

describe('PlayerNameSchema: properties', () => {
  const anyText = fc.string({ unit: 'binary', maxLength: 40 });
  const plainName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 .'-]{0,22}[A-Za-z0-9]$/);

  it('never throws: any string is either a name or refused with a message', () => {
    fc.assert(
      fc.property(anyText, (raw) => {
        const result = parse(raw);
        if (!result.success) expect(result.error.issues[0]!.message.length).toBeGreaterThan(5);
      }),
      { numRuns: 2000 },
    );
  });

  it('every accepted name is NFC, trimmed, 1-24 characters, at most 96 bytes, has no C or Z-line character, and parses back to itself', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, plainName), (raw) => {
        const result = parse(raw);
        if (!result.success) return;
        const name = result.data;
        expect(name).toBe(name.normalize('NFC'));
        expect(name).toBe(name.trim());
        expect(name).not.toMatch(/\s{2}/u);
        expect(name).not.toMatch(/[\p{C}\p{Zl}\p{Zp}]/u);
        expect(graphemeCount(name)).toBeGreaterThanOrEqual(1);
        expect(graphemeCount(name)).toBeLessThanOrEqual(PLAYER_NAME_MAX_CHARACTERS);
        expect(new TextEncoder().encode(name).length).toBeLessThanOrEqual(PLAYER_NAME_MAX_BYTES);
        expect(accepted(name)).toBe(name);
      }),
      { numRuns: 2000 },
    );
  });

  it('a plain Latin name is accepted as it was typed (unless it is a UI word)', () => {
    fc.assert(
      fc.property(plainName, (raw) => {
        const bare = raw.toLowerCase().replace(/[^a-z0-9]/g, '');
        fc.pre(!['you', 'host', 'system', 'server'].includes(bare));
        expect(accepted(raw)).toBe(raw.replace(/ +/g, ' '));
      }),
      { numRuns: 1000 },
    );
  });

  it('one format, control or filler character anywhere refuses the name', () => {
    fc.assert(
      fc.property(
        plainName,
        fc.constantFrom(...FORMAT, ...FILLERS, ...CONTROLS.filter((c) => c !== '\t' && c !== '\n')),
        fc.nat(),
        (name, bad, at) => {
          const i = at % (name.length + 1);
          expect(parse(name.slice(0, i) + bad + name.slice(i)).success).toBe(false);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a name made only of combining marks and spaces is refused', () => {
    const mark = fc.integer({ min: 0x300, max: 0x36f }).map((c) => String.fromCodePoint(c));
    fc.assert(
      fc.property(fc.array(fc.oneof(mark, fc.constant(' ')), { minLength: 1, maxLength: 30 }), (parts) => {
        expect(parse(parts.join('')).success).toBe(false);
      }),
    );
  });

  it('appending a bracketed UI marker to any accepted name refuses it', () => {
    const marker = fc.constantFrom('(you)', '(Host)', '[host]', '(ти)', '(εσύ)', '(أنت)', '(System)');
    fc.assert(
      fc.property(plainName, marker, (name, m) => {
        expect(parse(`${name.slice(0, 12)} ${m}`).success).toBe(false);
      }),
    );
  });
});

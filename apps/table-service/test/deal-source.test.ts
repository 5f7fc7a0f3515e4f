import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { createMatch, startRound, tileId, type MatchState } from '@dominoes/rules';

// Count the CSPRNG's calls while still using it.
const randomIntCalls: number[] = [];
jest.mock('node:crypto', () => {
  const actual = jest.requireActual<typeof import('node:crypto')>('node:crypto');
  return {
    ...actual,
    randomInt: (bound: number) => {
      randomIntCalls.push(bound);
      return actual.randomInt(bound);
    },
  };
});

// After the mock, so the module sees the counting randomInt.
import { dealSource } from '../src/table/deal-source';

const partnership = (): MatchState => {
  const created = createMatch({ variant: 'partnership' });
  if (!created.ok) throw new Error(created.error.message);
  return created.value;
};

describe('live deals come from the CSPRNG (issue 10)', () => {
  it('every Fisher–Yates step of a live deal is one crypto.randomInt', () => {
    randomIntCalls.length = 0;
    const dealt = startRound(partnership(), dealSource);
    expect(dealt.ok).toBe(true);
    // 28 tiles: 27 swaps, bounds 28 down to 2 (P4: a partnership deal is never thrown in).
    expect(randomIntCalls).toEqual(Array.from({ length: 27 }, (_, i) => 28 - i));
  });

  it('deals the whole set, and 2,000 live deals are all different', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const dealt = startRound(partnership(), dealSource);
      if (!dealt.ok || !dealt.value.round) throw new Error('no round');
      const hands = dealt.value.round.hands.map((hand) => hand.map(tileId));
      expect(new Set(hands.flat()).size).toBe(28);
      seen.add(JSON.stringify(hands));
    }
    expect(seen.size).toBe(2000);
  });

  it('lint refuses the seeded generator in the services, and allows it in tests and tools', () => {
    const root = resolve(__dirname, '../../..');
    const code =
      "import { createSeededRng } from '@dominoes/rules';\nexport const rng = createSeededRng('x');\n";
    // ESLint's flat config is ESM: run the real CLI on the text, as `npm run lint` does.
    const restricted = (filePath: string): boolean => {
      const run = spawnSync(
        resolve(root, 'node_modules/.bin/eslint'),
        ['--stdin', '--stdin-filename', filePath, '--format', 'json'],
        { cwd: root, input: code, encoding: 'utf8' },
      );
      const [result] = JSON.parse(run.stdout) as { messages: { ruleId: string | null }[] }[];
      return (result?.messages ?? []).some((m) => m.ruleId === 'no-restricted-imports');
    };
    for (const service of ['table-service', 'gateway', 'timer-service']) {
      expect(restricted(`apps/${service}/src/table/deal.ts`)).toBe(true);
    }
    for (const allowed of ['libs/rules/test/x.test.ts', 'apps/loadtest/src/x.ts']) {
      expect(restricted(allowed)).toBe(false);
    }
  }, 60_000);
});

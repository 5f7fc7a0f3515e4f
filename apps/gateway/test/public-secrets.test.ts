/**
 * Issue 10 B, secrets: a gateway in production refuses every token secret this repository
 * publishes, and one without TOKEN_SECRET (the public development secret) stays on loopback.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { ConfigError } from '@dominoes/platform';
import { DEV_TOKEN_SECRET, PUBLIC_TOKEN_SECRETS } from '../src/auth/public-secrets';
import { readGatewayConfig } from '../src/config';
import { startTestGateway, testConfig, uniquePrefix } from './support';

const ROOT = resolve(__dirname, '../../..');
const production = (env: Record<string, string>) => readGatewayConfig({ NODE_ENV: 'production', ...env });

/**
 * Secret-like literals in a text: any word of 32+ characters with "secret" in it, any 32+
 * character value given to a *SECRET / *Secret key (YAML, env, code), and a 32+ character default of
 * compose's `${X_SECRET:-default}`. (Shorter secrets are refused in production by their length.)
 */
export function secretLiterals(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/[A-Za-z0-9_~+-]*secret[A-Za-z0-9_~+-]*/gi)) {
    const word = match[0].replace(/^-+|-+$/g, '');
    if (word.length >= 32) found.add(word);
  }
  for (const match of text.matchAll(/(?:SECRET|[Ss]ecret)\s*[:=]\s*(['"`]?)([^\s'"`,;)}]{32,})\1/g)) {
    if (!match[2]!.startsWith('$')) found.add(match[2]!);
  }
  for (const match of text.matchAll(/\$\{[A-Z_]*SECRET[A-Z_]*:?-([^}]{32,})\}/g)) found.add(match[1]!);
  return [...found];
}

describe('known public token secrets', () => {
  it('every secret-like literal in the tracked files is in PUBLIC_TOKEN_SECRETS (so production refuses it)', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((file) => file !== '' && file !== 'package-lock.json');
    const unknown: string[] = [];
    let scanned = 0;
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(join(ROOT, file), 'utf8');
      } catch {
        continue; // deleted in the working tree, or not a file
      }
      if (text.includes('\0')) continue; // binary
      scanned++;
      for (const literal of secretLiterals(text)) {
        if (!PUBLIC_TOKEN_SECRETS.includes(literal)) unknown.push(`${file}: ${literal}`);
      }
    }
    expect(scanned).toBeGreaterThan(100);
    expect(unknown).toEqual([]);
  });

  it('the scan finds what a committed secret looks like (so a green scan means something)', () => {
    // Built at run time, so that the scan of this very file does not find them.
    const named = ['my-very-own-token', 'secret-0123456789'].join('-');
    const random = 'q7Rk2mVx9LpW4nTz8sYc3bHf6dJg1aEu';
    expect(secretLiterals(`const KEY = '${named}';`)).toEqual([named]);
    expect(secretLiterals(`  tokenSecret: ${random}\n`)).toEqual([random]);
    expect(secretLiterals(`TOKEN_SECRET=${random}`)).toEqual([random]);
    expect(secretLiterals(`TOKEN_SECRET: "${random}"`)).toEqual([random]);
    expect(secretLiterals(`TOKEN_SECRET: $\{TOKEN_SECRET:-${random}}`)).toContain(random);
    expect(secretLiterals('TOKEN_SECRET: ${TOKEN_SECRET:?set TOKEN_SECRET}')).toEqual([]);
    expect(secretLiterals('TOKEN_SECRET: tokenSecret,')).toEqual([]);
  });

  it('holds the development secret, compose’s old default and the test secrets', () => {
    expect(PUBLIC_TOKEN_SECRETS).toEqual(
      expect.arrayContaining([
        DEV_TOKEN_SECRET,
        'dev-only-token-secret-change-me-0123456789',
        'gateway-test-secret-0123456789abcdef',
      ]),
    );
  });

  it.each(PUBLIC_TOKEN_SECRETS.map((secret) => [secret]))(
    'NODE_ENV=production refuses TOKEN_SECRET=%s',
    (secret) => {
      expect(() => production({ TOKEN_SECRET: secret })).toThrow(ConfigError);
      expect(() => production({ TOKEN_SECRET: secret })).toThrow(
        /TOKEN_SECRET is a secret published in this repository|at least 32 characters/,
      );
      // With spaces around it too.
      expect(() => production({ TOKEN_SECRET: ` ${secret} ` })).toThrow(ConfigError);
    },
  );

  it('NODE_ENV=production takes a random secret of 32+ characters, and refuses none or a short one', () => {
    const secret = randomBytes(36).toString('base64url');
    expect(production({ TOKEN_SECRET: secret })).toMatchObject({
      tokenSecret: secret,
      devTokenSecret: false,
    });
    expect(() => production({})).toThrow(/TOKEN_SECRET must be set/);
    expect(() => production({ TOKEN_SECRET: 'short' })).toThrow(/at least 32 characters/);
  });
});

describe('without TOKEN_SECRET (the public development secret)', () => {
  it('HOST defaults to 127.0.0.1; with TOKEN_SECRET it defaults to every address', () => {
    expect(readGatewayConfig({})).toMatchObject({ host: '127.0.0.1', devTokenSecret: true });
    expect(readGatewayConfig({ TOKEN_SECRET: randomBytes(36).toString('base64url') }).host).toBe('0.0.0.0');
  });

  it('a HOST that is not loopback is refused; loopback ones are taken', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'dominoes.example']) {
      expect(() => readGatewayConfig({ HOST: host })).toThrow(/without TOKEN_SECRET.*loopback/);
    }
    for (const host of ['127.0.0.1', '127.0.1.1', 'localhost', '::1']) {
      expect(readGatewayConfig({ HOST: host }).host).toBe(host);
    }
  });

  it('the gateway started so listens on 127.0.0.1 only', async () => {
    const gateway = await startTestGateway(
      testConfig(uniquePrefix('devsecret'), { TOKEN_SECRET: '', HOST: '' }),
    );
    try {
      expect((gateway.app.getHttpServer().address() as AddressInfo).address).toBe('127.0.0.1');
    } finally {
      await gateway.shutdown();
    }
  });
});

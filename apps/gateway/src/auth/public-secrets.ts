/** Signs tokens when TOKEN_SECRET is not set (never in production; loopback only). */
export const DEV_TOKEN_SECRET = 'dominoes-dev-secret-not-for-production';

/**
 * Every token secret this repository has ever published (defaults, examples, tests). Anyone can read
 * them, so anyone could forge tokens with them: the gateway refuses each of them when
 * NODE_ENV=production. apps/gateway/test/public-secrets.test.ts reads the tracked files (git ls-files)
 * and fails when a secret-like literal there is missing from this list, so add new ones here.
 */
export const PUBLIC_TOKEN_SECRETS: readonly string[] = [
  DEV_TOKEN_SECRET,
  // docker-compose.yml's old default (before compose required TOKEN_SECRET).
  'dev-only-token-secret-change-me-0123456789',
  // Test secrets.
  'gateway-test-secret-0123456789abcdef',
  'unit-test-secret-0123456789abcdef',
  'another-secret-0123456789abcdef',
  'not-the-secret-xxxxxxxxxxxxxxxxxxx',
  'not-the-secret-0123456789abcdefgh',
  // The Helm chart's everything-on test fixture (deploy/test/fixtures).
  'a-token-secret-that-is-long-enough-0123456789',
];

const PUBLIC = new Set(PUBLIC_TOKEN_SECRETS);

export const isPublicSecret = (secret: string): boolean => PUBLIC.has(secret.trim());

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * @nestjs/platform-ws brought its own older `ws` (8.21), whose automatic pong had no bound: the
 * root package.json's `overrides` makes it use the root one. One `ws` in the tree, so the server
 * options the gateway relies on (autoPong: false) are the ones that run.
 */
it('package-lock.json holds exactly one version of ws', () => {
  const lock = JSON.parse(readFileSync(resolve(__dirname, '../../../package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const copies = Object.entries(lock.packages).filter(([path]) => /(^|\/)node_modules\/ws$/.test(path));
  expect(copies.map(([path]) => path)).toEqual(['node_modules/ws']);
  expect(new Set(copies.map(([, entry]) => entry.version)).size).toBe(1);
});

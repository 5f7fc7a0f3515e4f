/**
 * The jest projects of the table-service, gateway and timer-service as one flat configuration, for
 * the mutation run (`npm run test:mutation`, stryker.config.json): Stryker's jest runner measures
 * coverage per test by wrapping the test environment, which it does for one configuration, not for
 * the `projects` of the root jest.config.js. Same transform, module map and timeout as those projects.
 */
const root = require('../../jest.config.js');
const apps = ['table-service', 'gateway', 'timer-service'];
const { transform, testEnvironment } = root.projects.find((p) => p.displayName === 'table-service');

module.exports = {
  rootDir: '../..',
  transform,
  testEnvironment,
  moduleNameMapper: { '^@dominoes/(rules|protocol|platform)$': '<rootDir>/libs/$1/src/index.ts' },
  // MUTATION_TESTS=a.test.ts,b.test.ts (paths from the repository's root) runs only those suites: a
  // quicker, partial run (a lower bound on the score) when the whole one takes too long.
  testMatch: process.env.MUTATION_TESTS
    ? process.env.MUTATION_TESTS.split(',').map((path) => `<rootDir>/${path.trim()}`)
    : apps.map((app) => `<rootDir>/apps/${app}/test/**/*.test.ts`),
  // These two check the repository, not the services: one lists the files git tracks, the other runs
  // the ESLint CLI. Stryker's sandbox is a copy without .git, where neither runs.
  testPathIgnorePatterns: [
    '/node_modules/',
    'apps/gateway/test/public-secrets.test.ts',
    'apps/table-service/test/deal-source.test.ts',
  ],
  setupFilesAfterEnv: ['<rootDir>/tools/jest/timeout-60s.js'],
};

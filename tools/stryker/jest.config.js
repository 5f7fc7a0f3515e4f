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
  testMatch: apps.map((app) => `<rootDir>/apps/${app}/test/**/*.test.ts`),
  setupFilesAfterEnv: ['<rootDir>/tools/jest/timeout-60s.js'],
};

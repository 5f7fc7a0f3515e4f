/** One jest run covers every project; `npm test` is the command CI and the README use. */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

const shared = {
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^@dominoes/(rules|protocol|platform)$': '<rootDir>/../../libs/$1/src/index.ts' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testEnvironment: 'node',
};

const project = (dir, extra = {}) => ({
  ...shared,
  displayName: dir.split('/').pop(),
  rootDir: `<rootDir>/${dir}`,
  ...extra,
});

/** End-to-end suites start every service as a process: slow, so they get more time. */
const slow = { testTimeout: 300_000, slowTestThreshold: 60 };

module.exports = {
  projects: [
    project('libs/rules'),
    project('libs/protocol'),
    project('libs/platform', { testTimeout: 60_000 }),
    project('apps/migrate', { testTimeout: 60_000 }),
    project('apps/table-service', { testTimeout: 60_000 }),
    project('apps/gateway', { testTimeout: 60_000 }),
    project('apps/timer-service', { testTimeout: 60_000 }),
    project('deploy', { testTimeout: 120_000 }),
    {
      ...project('e2e', slow),
      moduleNameMapper: { '^@dominoes/(rules|protocol|platform)$': '<rootDir>/../libs/$1/src/index.ts' },
    },
  ],
};

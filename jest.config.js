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
  testEnvironment: 'node',
};

const project = (dir, extra = {}) => ({
  ...shared,
  displayName: dir.split('/').pop(),
  rootDir: `<rootDir>/${dir}`,
  ...extra,
});

module.exports = {
  projects: [project('libs/rules')],
};

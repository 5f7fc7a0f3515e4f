import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'coverage/**', '.nx/**', 'apps/web/public/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        {
          object: 'Math',
          property: 'random',
          message: 'Pass an RNG in; the rules have no randomness of their own.',
        },
      ],
    },
  },
  {
    // Plain Node scripts and tool configs: CommonJS with Node's (and jest's) globals.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node, ...globals.jest } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['libs/rules/src/**/*.ts'],
    ignores: ['libs/rules/src/cli/**'],
    rules: {
      'no-restricted-globals': ['error', 'Date', 'setTimeout', 'setInterval', 'process', 'fetch'],
      'no-restricted-imports': ['error', { patterns: ['node:*', 'fs', 'net', 'http', 'child_process'] }],
    },
  },
  {
    // A live deal comes from the CSPRNG (apps/table-service/src/table/deal-source.ts); the seeded
    // generator is predictable and stays in tests, benchmarks and tools (issue 10, docs/security.md).
    files: ['apps/gateway/src/**/*.ts', 'apps/table-service/src/**/*.ts', 'apps/timer-service/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@dominoes/rules',
              importNames: ['createSeededRng'],
              message: 'The seeded generator is predictable: live deals use dealSource (the CSPRNG).',
            },
          ],
        },
      ],
    },
  },
);

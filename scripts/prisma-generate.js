#!/usr/bin/env node
// `prisma generate` without Prisma's engine download (these machines cannot reach Prisma's host):
// Prisma 7 only checks that the schema engine file exists, so any existing file will do.
const { spawnSync } = require('node:child_process');
const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY = env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
const result = spawnSync(process.execPath, [require.resolve('prisma/build/index.js'), 'generate'], {
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
});
if (result.status !== 0) {
  process.stdout.write(result.stdout);
  process.exit(result.status ?? 1);
}

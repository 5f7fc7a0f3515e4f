import { defineConfig } from 'prisma/config';

// `env("DATABASE_URL")` throws when the variable is unset; `prisma generate` does not need it.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? '' },
});

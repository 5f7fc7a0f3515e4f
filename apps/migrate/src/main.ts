import {
  checkPostgres,
  createLogger,
  DEFAULT_MIGRATIONS_DIR,
  readBaseConfig,
  runMigrations,
} from '@dominoes/platform';

/** One-shot: apply every pending migration, then exit 0; exit 1 with a plain reason otherwise. */
async function main(): Promise<void> {
  const config = readBaseConfig();
  const logger = createLogger('migrate', config.logLevel);
  const unreachable = await checkPostgres(config.databaseUrl);
  if (unreachable) {
    console.error(unreachable);
    process.exit(1);
  }
  const dir = process.env.MIGRATIONS_DIR ?? DEFAULT_MIGRATIONS_DIR;
  const report = await runMigrations(config.databaseUrl, dir);
  logger.info(
    {
      applied: report.applied,
      alreadyApplied: report.alreadyApplied.length,
      createdDatabase: report.createdDatabase,
    },
    report.applied.length > 0 ? 'migrations applied' : 'database is up to date',
  );
}

main().catch((error: unknown) => {
  console.error(`migrate: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

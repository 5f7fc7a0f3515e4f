import {
  checkPostgres,
  createLogger,
  DEFAULT_MIGRATIONS_DIR,
  readBaseConfig,
  runMigrationsOnEvery,
  type DatabaseMigration,
} from '@dominoes/platform';

/**
 * One-shot: apply every pending migration to every database of DATABASE_URLS (DATABASE_URL when it
 * is unset; decision 0027), then exit 0; exit 1 with a plain reason, naming each database that
 * failed by its redacted URL, otherwise.
 */
async function main(): Promise<void> {
  const config = readBaseConfig();
  const logger = createLogger('migrate', config.logLevel);
  const urls = config.shardMap.databaseUrls;
  const unreachable = (await Promise.all(urls.map((url) => checkPostgres(url)))).filter(
    (problem): problem is string => problem !== null,
  );
  if (unreachable.length > 0) {
    console.error(unreachable.join('\n'));
    process.exit(1);
  }
  const dir = process.env.MIGRATIONS_DIR ?? DEFAULT_MIGRATIONS_DIR;
  const outcomes = await runMigrationsOnEvery(urls, dir);
  for (const outcome of outcomes) {
    if ('error' in outcome) continue;
    const { report } = outcome;
    logger.info(
      {
        database: outcome.database,
        index: outcome.index,
        applied: report.applied,
        alreadyApplied: report.alreadyApplied.length,
        createdDatabase: report.createdDatabase,
      },
      report.applied.length > 0 ? 'migrations applied' : 'database is up to date',
    );
  }
  const failed = outcomes.filter((o): o is Extract<DatabaseMigration, { error: string }> => 'error' in o);
  if (failed.length > 0) {
    for (const o of failed) console.error(`migrate: database ${o.index} (${o.database}): ${o.error}`);
    console.error(
      `migrate: ${failed.length} of ${outcomes.length} databases failed; the others are migrated. Fix it and run again.`,
    );
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  console.error(`migrate: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

// The e2e-pgsplit project (decision 0027): TestSystem starts two Postgres clusters of its own for
// each suite (TestPostgresServer on loopback ports) and gives every service both as DATABASE_URLS.
process.env.E2E_POSTGRES_DATABASES = '2';

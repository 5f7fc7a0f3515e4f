// Integration suites talk to real Postgres and Redis: a minute per test or hook.
jest.setTimeout(60_000);

import { Client } from 'pg';

/** The test Postgres server (DATABASE_URL's), on which each suite makes databases of its own. */
const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

/** The URL of database `name` on the test server, with `password` in it when given. */
export function databaseUrl(name: string, password?: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  if (password) url.password = password;
  return url.toString();
}

/** The rows of one statement on database `url`, on a connection of its own. */
export async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

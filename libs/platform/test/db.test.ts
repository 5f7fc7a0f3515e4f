import { createPrisma, directSql, statementNamer } from '../src/db';
import { createTestStores } from '../src/test-stores';

describe('prepared statements (statementNamer)', () => {
  it('gives one SQL text one name, always the same, and other texts other names', () => {
    const name = statementNamer();
    const a = name({ sql: 'SELECT 1' });
    expect(name({ sql: 'SELECT 1' })).toBe(a);
    expect(name({ sql: 'SELECT 2' })).not.toBe(a);
    expect(a).toMatch(/^d_[0-9a-f]{20}$/);
  });

  it('names at most `limit` texts; the rest run unnamed, as before', () => {
    const name = statementNamer(2);
    expect(name({ sql: 'SELECT 1' })).toBeDefined();
    expect(name({ sql: 'SELECT 2' })).toBeDefined();
    expect(name({ sql: 'SELECT 3' })).toBeUndefined();
    expect(name({ sql: 'SELECT 1' })).toBeDefined();
  });

  it('Postgres prepares a raw query once per connection and runs it again from there', async () => {
    const stores = await createTestStores('db-prepared');
    const prisma = createPrisma(stores.databaseUrl, 1);
    try {
      const sql = 'SELECT $1::int + 1 AS answer /* prepared-statement test */';
      for (const n of [1, 2, 3]) {
        const rows = await prisma.$queryRawUnsafe<{ answer: number }[]>(sql, n);
        expect(rows[0]?.answer).toBe(n + 1);
      }
      const prepared = await prisma.$queryRawUnsafe<{ statement: string }[]>(
        'SELECT statement FROM pg_prepared_statements',
      );
      expect(prepared.filter((p) => p.statement === sql)).toHaveLength(1);
    } finally {
      await prisma.$disconnect();
      await stores.dispose();
    }
  });

  it("a change's statement runs on the client's pool without Prisma, prepared once per connection under the name Prisma would give it; $disconnect ends that pool", async () => {
    const stores = await createTestStores('db-direct');
    const prisma = createPrisma(stores.databaseUrl, 1);
    expect(directSql({})).toBeUndefined();
    const direct = directSql(prisma)!;
    try {
      const sql = 'SELECT $1::int + 1 AS answer, $2::text[] AS ids /* direct-statement test */';
      for (const n of [1, 2, 3]) {
        const rows = await direct.query<{ answer: number; ids: string[] }>(sql, [n, ['a', null]]);
        expect(rows).toEqual([{ answer: n + 1, ids: ['a', null] }]);
      }
      // Prisma runs the same text on the same connection from the same prepared statement.
      await prisma.$queryRawUnsafe(sql, 4, ['b']);
      const prepared = await direct.query<{ name: string }>(
        'SELECT name FROM pg_prepared_statements WHERE statement = $1',
        [sql],
      );
      expect(prepared).toEqual([{ name: statementNamer()({ sql }) }]);
    } finally {
      await prisma.$disconnect();
      await stores.dispose();
    }
    await expect(direct.query('SELECT 1', [])).rejects.toThrow(/after calling end on the pool/);
  });
});

import fc from 'fast-check';
import { shardOf, TABLE_CODE_ALPHABET } from '@dominoes/protocol';
import { envelopes, startEngineHarness, type EngineHarness } from './support/engine-harness';

/**
 * Issue 11 §4: a shard takeover reads only that shard's tables. Postgres computes each table's
 * route_hash (set on insert, in the open tables' index) exactly as shardOf does in JavaScript.
 */
describe('shard reads on real Postgres', () => {
  let harness: EngineHarness;
  beforeAll(async () => {
    harness = await startEngineHarness('shard_reads');
  });
  afterAll(async () => {
    await harness?.dispose();
  });

  it("Postgres's route_hash gives every table id the shard shardOf gives it, for any shard count", async () => {
    const code = fc
      .array(fc.constantFrom(...TABLE_CODE_ALPHABET.split('')), { minLength: 1, maxLength: 16 })
      .map((chars) => chars.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.array(code, { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 1, max: 64 }),
        async (ids, n) => {
          const rows = await harness.prisma.$queryRawUnsafe<{ id: string; shard: number }[]>(
            'SELECT id, (route_hash(id) % $1)::int AS shard FROM unnest($2::text[]) AS id',
            n,
            ids,
          );
          for (const row of rows) expect(row.shard).toBe(shardOf(row.id, n));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('the open tables of the shards asked for, and only those, with an index-only scan', async () => {
    const ids = [
      'SHRDAAAAAAAA',
      'SHRDBBBBBBBB',
      'SHRDCCCCCCCC',
      'SHRDDDDDDDDD',
      'SHRDEEEEEEEE',
      'SHRDFFFFFFFF',
    ];
    const engine = harness.engine();
    // One host each (a host may keep only MAX_OPEN_TABLES_PER_HOST open).
    for (const [host, id] of ids.entries()) {
      const reply = await engine.handle(
        envelopes(id, `${id}-`)(host, { kind: 'create', config: { variant: 'partnership' } }),
      );
      expect(reply).toMatchObject({ ok: true });
    }
    const total = 4;
    const wanted = [shardOf(ids[0]!, total)];
    const found = (await harness.store().openTableDeadlines(wanted, total)).map((t) => t.id);
    expect(found.sort()).toEqual(ids.filter((id) => wanted.includes(shardOf(id, total))).sort());
    // Whatever the planner prefers for a table this small, the index answers the query by itself.
    const [, , plan] = await harness.prisma.$transaction([
      harness.prisma.$executeRawUnsafe('SET LOCAL enable_seqscan = off'),
      harness.prisma.$executeRawUnsafe('SET LOCAL enable_bitmapscan = off'),
      harness.prisma.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
        "EXPLAIN SELECT id FROM game_tables WHERE status IN ('waiting', 'playing') AND (route_hash % 4) = ANY(ARRAY[1])",
      ),
    ]);
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toMatch(
      /Index Only Scan using game_tables_open_route_idx/,
    );
  });
});

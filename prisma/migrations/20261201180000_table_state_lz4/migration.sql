-- Issue 14: the snapshot (game_tables.state, ~4-7 KB of JSON, rewritten on every stored change) is
-- compressed with lz4 instead of Postgres's default pglz: measured on 200 real snapshots, 4,000
-- updates, lz4 took about half of pglz's time and the stored size grew by ~15% (docs/performance.md).
-- Only values written from now on use it; older ones stay readable as they are. Needs Postgres 14+
-- built with lz4 (the official images and Debian's packages are).
ALTER TABLE "game_tables" ALTER COLUMN "state" SET COMPRESSION lz4;

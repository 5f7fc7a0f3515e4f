-- The table snapshot is written whole on every change and never queried inside: `json` (checked
-- text) instead of `jsonb` (parsed into a binary form on every write) halves the cost of that
-- write in Postgres (docs/performance.md).
ALTER TABLE "game_tables" ALTER COLUMN "state" TYPE JSON USING "state"::json;

-- A shard takeover reads only that shard's tables (issue 11): the table's routing hash, the same
-- FNV-1a as libs/protocol's shardOf (shard = route_hash % TABLE_SHARDS), is a stored column, and the
-- deadline index carries it, so "the tables with a deadline in shards S" is one index-only scan that
-- returns just those ids, whatever TABLE_SHARDS is.
CREATE FUNCTION "route_hash"(id TEXT) RETURNS BIGINT
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  h BIGINT := 2166136261;
  i INT;
BEGIN
  -- Table ids are ASCII (TABLE_CODE_ALPHABET): one code unit per character, as in JavaScript.
  FOR i IN 1..length(id) LOOP
    h := h # ascii(substr(id, i, 1));
    h := (h * 16777619) & 4294967295;
  END LOOP;
  RETURN h;
END;
$$;

ALTER TABLE "game_tables" ADD COLUMN "route_hash" BIGINT GENERATED ALWAYS AS (route_hash("id")) STORED;

DROP INDEX "game_tables_deadline_at_idx";
CREATE INDEX "game_tables_deadline_at_idx" ON "game_tables" ("deadline_at") INCLUDE ("route_hash", "id");

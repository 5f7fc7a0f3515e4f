-- A shard takeover reads only that shard's tables (issue 11): the table's routing hash, the same
-- FNV-1a as libs/protocol's shardOf (shard = route_hash % TABLE_SHARDS), is a stored column, and a
-- partial index of the open tables (the only ones with a clock: waiting ones expire, playing ones
-- have turns and breaks) carries it with the id, so "the open tables of shards S" is one index-only
-- scan that returns just those ids, whatever TABLE_SHARDS is. Neither indexed column changes when a
-- move is stored (deadline_at and updated_at do, and are not indexed), so those updates stay HOT.
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

-- Set once, when the row is inserted (a table's id never changes); not a generated column, which
-- Postgres would compute again on every update.
ALTER TABLE "game_tables" ADD COLUMN "route_hash" BIGINT;
UPDATE "game_tables" SET "route_hash" = route_hash("id");
ALTER TABLE "game_tables" ALTER COLUMN "route_hash" SET NOT NULL;

CREATE FUNCTION "game_tables_set_route_hash"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.route_hash := route_hash(NEW.id);
  RETURN NEW;
END;
$$;

CREATE TRIGGER "game_tables_route_hash"
  BEFORE INSERT ON "game_tables"
  FOR EACH ROW EXECUTE FUNCTION "game_tables_set_route_hash"();

CREATE INDEX "game_tables_open_route_idx" ON "game_tables" ("route_hash") INCLUDE ("id")
  WHERE "status" IN ('waiting', 'playing');

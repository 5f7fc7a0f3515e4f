-- Retention (issue 11): finished and closed tables move out of the hot tables into the `archive`
-- schema after ARCHIVE_AFTER_MS, with their seats, matches, rounds and whole log, so the hot tables
-- (and their indexes) hold only what is played now, and every archived match stays replayable.
CREATE SCHEMA IF NOT EXISTS "archive";

CREATE TABLE "archive"."game_tables" (LIKE "public"."game_tables" INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE "archive"."game_tables" ADD PRIMARY KEY ("id");
ALTER TABLE "archive"."game_tables" ADD COLUMN "archived_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE TABLE "archive"."table_seats" (LIKE "public"."table_seats" INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE "archive"."table_seats" ADD PRIMARY KEY ("table_id", "seat");
CREATE TABLE "archive"."matches" (LIKE "public"."matches" INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE "archive"."matches" ADD PRIMARY KEY ("table_id", "number");
CREATE TABLE "archive"."rounds" (LIKE "public"."rounds" INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE "archive"."rounds" ADD PRIMARY KEY ("table_id", "match_number", "number");
CREATE TABLE "archive"."table_actions" (LIKE "public"."table_actions" INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE "archive"."table_actions" ADD PRIMARY KEY ("table_id", "seq");
CREATE INDEX "archive_game_tables_host_idx" ON "archive"."game_tables" ("host_player_id");
CREATE INDEX "archive_table_seats_player_idx" ON "archive"."table_seats" ("player_id");

-- The archive is append-only too.
CREATE TRIGGER "archive_table_actions_no_update_or_delete"
  BEFORE UPDATE OR DELETE ON "archive"."table_actions"
  FOR EACH ROW EXECUTE FUNCTION "table_actions_append_only"();
CREATE TRIGGER "archive_table_actions_no_truncate"
  BEFORE TRUNCATE ON "archive"."table_actions"
  FOR EACH STATEMENT EXECUTE FUNCTION "table_actions_append_only"();

-- Finding what to archive reads game_tables_status_idx (finished and closed tables). No index on
-- updated_at: it changes on every action, and indexing it would end Postgres's HOT updates of the row.

-- The one explicit archive step. A row of the hot log may be deleted only inside it, and only once
-- the same row is in the archive: the log can move, never be lost.
CREATE OR REPLACE FUNCTION "table_actions_append_only"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND TG_TABLE_SCHEMA = 'public'
     AND current_setting('dominoes.archive_step', true) = 'on'
     AND EXISTS (SELECT 1 FROM "archive"."table_actions" a
                  WHERE a.table_id = OLD.table_id AND a.seq = OLD.seq AND a.kind = OLD.kind
                    AND a.payload = OLD.payload) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'table_actions is append-only: % refused', TG_OP
    USING ERRCODE = 'restrict_violation';
END;
$$;

-- Moves one finished or closed table, idle since before `idle_before`, into the archive; returns
-- false (and moves nothing) when the table is not there, still open, or was changed since.
CREATE FUNCTION "archive_table"(p_id TEXT, idle_before TIMESTAMPTZ) RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM "public"."game_tables"
   WHERE id = p_id AND status IN ('finished', 'closed') AND updated_at < idle_before
   FOR UPDATE;
  IF NOT FOUND THEN
    RETURN FALSE;
  END IF;
  -- Named columns: the hot table may gain columns the archive does not keep (generated ones).
  INSERT INTO "archive"."game_tables"
    (id, variant, seat_count, target, one_round, host_player_id, status, version, state, deadline_at,
     created_at, updated_at, archived_at)
  SELECT id, variant, seat_count, target, one_round, host_player_id, status, version, state, deadline_at,
         created_at, updated_at, now()
    FROM "public"."game_tables" WHERE id = p_id;
  INSERT INTO "archive"."table_seats" SELECT * FROM "public"."table_seats" WHERE table_id = p_id;
  INSERT INTO "archive"."matches" SELECT * FROM "public"."matches" WHERE table_id = p_id;
  INSERT INTO "archive"."rounds" SELECT * FROM "public"."rounds" WHERE table_id = p_id;
  INSERT INTO "archive"."table_actions" SELECT * FROM "public"."table_actions" WHERE table_id = p_id;
  PERFORM set_config('dominoes.archive_step', 'on', true);
  DELETE FROM "public"."table_actions" WHERE table_id = p_id;
  PERFORM set_config('dominoes.archive_step', 'off', true);
  -- Seats, matches and rounds go with the table (their foreign keys cascade).
  DELETE FROM "public"."game_tables" WHERE id = p_id;
  RETURN TRUE;
END;
$$;

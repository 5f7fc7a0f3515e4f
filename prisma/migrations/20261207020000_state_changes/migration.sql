-- Issue 14, decision 0040: a move no longer rewrites the whole snapshot. game_tables.state is the
-- snapshot at state_version; each change stored after it carries its state change (the JSON
-- operations from the state before it to the state after it) on its last log row, and load applies
-- them in order. The whole snapshot is written again every 32 versions, and on every change that is
-- not a move of a playing table (seats, status, a change without events), so what reads the
-- snapshot's seats (the chat's seat check) and the archive (finished and closed tables) see it whole.
ALTER TABLE "game_tables" ADD COLUMN "state_version" BIGINT NOT NULL DEFAULT 0;
UPDATE "game_tables" SET "state_version" = "version";
ALTER TABLE "table_actions" ADD COLUMN "state_change" JSON;
-- archive_table copies the log with SELECT *: the archive's log has the same columns, in the same order.
ALTER TABLE "archive"."table_actions" ADD COLUMN "state_change" JSON;
-- The snapshot leaves the row for the TOAST table as soon as the row passes 128 bytes (compressed
-- with lz4 first): an update that does not set it copies an 18-byte pointer, not ~2 KB, and the row
-- stays small enough for its updates to be HOT. Values written from now on.
ALTER TABLE "game_tables" SET (toast_tuple_target = 128);
-- The archive's tables keep named columns (archive_table) and only finished or closed tables, whose
-- snapshot is whole: archive.game_tables needs no state_version.

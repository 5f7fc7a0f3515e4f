-- Issue 12, finding a game: a table is public (listed in the lobby, found by quick play) or private
-- (link only, the default, as every table before). Decision 0019.
ALTER TABLE "game_tables" ADD COLUMN "is_public" BOOLEAN NOT NULL DEFAULT false;
-- The lobby's list and quick play's search read only open public tables, oldest first: a partial
-- index holds just those few rows, however many private or finished tables there are.
CREATE INDEX "game_tables_lobby_idx" ON "game_tables" ("created_at")
  WHERE "is_public" AND "status" IN ('waiting', 'playing');
-- The archive keeps named columns (archive_table) and only finished or closed tables, never listed:
-- it does not need the flag.
-- "Your tables": the open tables a player sits at, found by the player (the unique key leads with table_id).
CREATE INDEX IF NOT EXISTS "table_seats_player_id_idx" ON "table_seats" ("player_id");

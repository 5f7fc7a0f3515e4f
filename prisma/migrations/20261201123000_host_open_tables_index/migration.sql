-- Opening a table counts its host's open tables (MAX_OPEN_TABLES_PER_HOST, issue 10): by host and
-- status, so the count reads a few index entries, not every table the host ever had.
CREATE INDEX "game_tables_host_open_idx" ON "game_tables" ("host_player_id", "status");

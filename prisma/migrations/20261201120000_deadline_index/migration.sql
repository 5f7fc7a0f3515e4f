-- The overdue sweep asks Postgres for the tables whose deadline passed (a deadline that fired while
-- Postgres or Redis was down is found again this way), and the deadline rebuild reads the tables
-- with a clock: both by deadline_at, which had no index (a full scan of game_tables).
CREATE INDEX "game_tables_deadline_at_idx" ON "game_tables" ("deadline_at");

-- Issue 12, talking: the host may turn a table's text chat off when opening it (decision 0020); on by
-- default, as for every table before. The chat itself is never stored here (Redis, capped, with a TTL):
-- it is not the game log. The archive keeps named columns and only finished or closed tables: it does
-- not need the flag.
ALTER TABLE "game_tables" ADD COLUMN "chat" BOOLEAN NOT NULL DEFAULT true;

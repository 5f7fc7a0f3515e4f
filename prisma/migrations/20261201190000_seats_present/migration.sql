-- Issue 12, decision 0026: a waiting public table whose players all closed their tabs leaves the lobby
-- and quick play. The table-service stores, with every change, how many seats are present: seated and
-- either connected or taken without a socket that has not connected yet (a seat whose last socket
-- closed is away). The lobby and quick play read waiting tables with seats_present > 0. Not indexed,
-- so writing it on every change keeps the updates HOT (decision 0010).
ALTER TABLE "game_tables" ADD COLUMN "seats_present" SMALLINT NOT NULL DEFAULT 0;
-- Open tables stored before: their seats have no "away" mark yet, so every seated seat counts (as the
-- lobby listed them until now); the next change of each table stores its own count.
UPDATE "game_tables" t
   SET "seats_present" = (
     SELECT count(*) FROM json_array_elements(t.state -> 'seats') AS s(seat)
      WHERE json_typeof(s.seat) = 'object'
        AND (json_array_length(s.seat -> 'connections') > 0 OR (s.seat ->> 'away') IS NULL))
 WHERE t.status IN ('waiting', 'playing');
-- The archive keeps named columns (archive_table) and only finished or closed tables: it does not need it.

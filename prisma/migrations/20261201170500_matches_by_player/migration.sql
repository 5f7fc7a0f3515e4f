-- Issue 12, "Looking back": a player's matches are found by their player id in `matches.seats` (a JSON
-- array of player ids by seat), hot and archived. jsonb_path_ops serves `seats @> '["<id>"]'`.
CREATE INDEX "matches_seats_idx" ON "matches" USING gin ("seats" jsonb_path_ops);
CREATE INDEX "archive_matches_seats_idx" ON "archive"."matches" USING gin ("seats" jsonb_path_ops);

-- Issue 12: a match whose table had no seat connected for ABANDONED_TABLE_MS ends as abandoned
-- (decision 0017): no winner (winner_side stays null), finished_at stays null, abandoned_at says when.
-- The archive copies matches with SELECT *, so its table gets the same column in the same place.
ALTER TABLE "matches" ADD COLUMN "abandoned_at" TIMESTAMPTZ(3);
ALTER TABLE "archive"."matches" ADD COLUMN "abandoned_at" TIMESTAMPTZ(3);

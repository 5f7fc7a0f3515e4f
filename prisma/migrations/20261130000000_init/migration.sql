-- CreateTable
CREATE TABLE "players" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "players_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "game_tables" (
    "id" TEXT NOT NULL,
    "variant" TEXT NOT NULL,
    "seat_count" INTEGER NOT NULL,
    "target" INTEGER NOT NULL,
    "one_round" BOOLEAN NOT NULL,
    "host_player_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "version" BIGINT NOT NULL,
    "state" JSONB NOT NULL,
    "deadline_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "game_tables_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "table_seats" (
    "table_id" TEXT NOT NULL,
    "seat" INTEGER NOT NULL,
    "player_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "joined_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "table_seats_pkey" PRIMARY KEY ("table_id","seat")
);

-- CreateTable
CREATE TABLE "matches" (
    "table_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "variant" TEXT NOT NULL,
    "target" INTEGER NOT NULL,
    "one_round" BOOLEAN NOT NULL,
    "seats" JSONB NOT NULL,
    "scores" JSONB,
    "winner_side" INTEGER,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "matches_pkey" PRIMARY KEY ("table_id","number")
);

-- CreateTable
CREATE TABLE "rounds" (
    "table_id" TEXT NOT NULL,
    "match_number" INTEGER NOT NULL,
    "number" INTEGER NOT NULL,
    "opener" INTEGER NOT NULL,
    "deal" JSONB NOT NULL,
    "result" JSONB,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "rounds_pkey" PRIMARY KEY ("table_id","match_number","number")
);

-- CreateTable
CREATE TABLE "table_actions" (
    "table_id" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,
    "kind" TEXT NOT NULL,
    "seat" INTEGER,
    "match_number" INTEGER,
    "round_number" INTEGER,
    "payload" JSONB NOT NULL,
    "intent_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "table_actions_pkey" PRIMARY KEY ("table_id","seq")
);

-- CreateIndex
CREATE INDEX "game_tables_status_idx" ON "game_tables"("status");

-- CreateIndex
CREATE UNIQUE INDEX "table_seats_table_id_player_id_key" ON "table_seats"("table_id", "player_id");

-- CreateIndex
CREATE UNIQUE INDEX "table_actions_table_id_intent_id_key" ON "table_actions"("table_id", "intent_id");

-- AddForeignKey
ALTER TABLE "table_seats" ADD CONSTRAINT "table_seats_table_id_fkey" FOREIGN KEY ("table_id") REFERENCES "game_tables"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "matches" ADD CONSTRAINT "matches_table_id_fkey" FOREIGN KEY ("table_id") REFERENCES "game_tables"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rounds" ADD CONSTRAINT "rounds_table_id_match_number_fkey" FOREIGN KEY ("table_id", "match_number") REFERENCES "matches"("table_id", "number") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "table_actions" ADD CONSTRAINT "table_actions_table_id_fkey" FOREIGN KEY ("table_id") REFERENCES "game_tables"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The action log is append-only by enforcement, not by convention (issue 11): Postgres refuses
-- every UPDATE, DELETE and TRUNCATE of table_actions, whoever sends it, and deleting a table no
-- longer cascades into its log (the foreign key restricts). A future archive step has to move a
-- finished table's log out explicitly, as the table's owner, with these triggers in view.
CREATE FUNCTION "table_actions_append_only"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'table_actions is append-only: % refused', TG_OP
    USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER "table_actions_no_update_or_delete"
  BEFORE UPDATE OR DELETE ON "table_actions"
  FOR EACH ROW EXECUTE FUNCTION "table_actions_append_only"();

CREATE TRIGGER "table_actions_no_truncate"
  BEFORE TRUNCATE ON "table_actions"
  FOR EACH STATEMENT EXECUTE FUNCTION "table_actions_append_only"();

ALTER TABLE "table_actions" DROP CONSTRAINT "table_actions_table_id_fkey";
ALTER TABLE "table_actions" ADD CONSTRAINT "table_actions_table_id_fkey"
  FOREIGN KEY ("table_id") REFERENCES "game_tables"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

import { sql, type Kysely } from "kysely";

/**
 * A message's version (messages.version): 0 when stored, one more on every change of its row
 * (an edit, a pin, a poll closed, an invoice paid, a deletion), by a trigger, so no write path
 * needs code for it and a change made by another process or node counts too. A message's
 * serialized shape can then be kept by (id, version): the chat list reads the two numbers
 * instead of the message's columns.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("messages")
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  // WHEN: the trigger's own UPDATE changes the version, so it does not run again for it
  await sql`CREATE TRIGGER messages_version AFTER UPDATE ON messages WHEN new.version = old.version BEGIN
    UPDATE messages SET version = old.version + 1 WHERE id = new.id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS messages_version`.execute(db);
  await db.schema.alterTable("messages").dropColumn("version").execute();
}

import { sql, type Kysely } from "kysely";

/**
 * Each chat's newest message not deleted for everyone as a column (conversations.last_message_id),
 * so the chat list reads it instead of searching each chat's messages on every page. Triggers
 * keep it in the statement that stores, deletes (for everyone: deleted_at; or the row) or
 * restores a message, whoever runs it. Hiding a message for one member (message_hidden) leaves
 * it: the list checks the kept message against the viewer's hidden ones and searches only
 * when it is hidden for them.
 */

/** The newest message of chat CHAT (an expression) that is not deleted for everyone. */
const newestOf = (chat: string) =>
  sql.raw(`(SELECT x.id FROM messages x
  WHERE x.conversation_id = ${chat} AND x.deleted_at IS NULL ORDER BY x.seq DESC LIMIT 1)`);

const TRIGGERS = ["messages_last_insert", "messages_last_change", "messages_last_remove"];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("conversations").addColumn("last_message_id", "integer").execute();
  await sql`UPDATE conversations SET last_message_id = ${newestOf("conversations.id")}`.execute(db);

  // a send stores the chat's next seq: the newest; the seq check keeps an older message
  // inserted afterwards (an import, an operator's SQL) from taking the place
  await sql`CREATE TRIGGER messages_last_insert AFTER INSERT ON messages WHEN new.deleted_at IS NULL BEGIN
    UPDATE conversations SET last_message_id = new.id
    WHERE id = new.conversation_id
      AND (last_message_id IS NULL
           OR new.seq > (SELECT m.seq FROM messages m WHERE m.id = conversations.last_message_id)); END`.execute(db);
  await sql`CREATE TRIGGER messages_last_change AFTER UPDATE OF deleted_at, seq ON messages
    WHEN (old.deleted_at IS NULL) <> (new.deleted_at IS NULL) OR old.seq <> new.seq BEGIN
    UPDATE conversations SET last_message_id = ${newestOf("new.conversation_id")} WHERE id = new.conversation_id; END`.execute(
    db,
  );
  await sql`CREATE TRIGGER messages_last_remove AFTER DELETE ON messages BEGIN
    UPDATE conversations SET last_message_id = ${newestOf("old.conversation_id")}
    WHERE id = old.conversation_id AND last_message_id = old.id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of TRIGGERS) await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await db.schema.alterTable("conversations").dropColumn("last_message_id").execute();
}

import { sql, type Kysely } from "kysely";
import { createMessagesStored } from "./20261125040000_send_one_trigger";

/**
 * conversations.history_version: one more when a message is stored below the chat's newest (an
 * import of older messages), which moves neither last_seq nor last_message_version. With those
 * two (a new newest message; any message's change or removal) and the chat's version (its
 * members' profiles: the senders), it names every page of the chat's history, so a page can be
 * kept as text (src/clientapi/chats/history-answers.ts). Raised in the UPDATE of the chat that
 * messages_stored makes anyway: a send pays nothing more. A page is kept only for a reader whose
 * has_hidden is 0: a hide changed afterwards (its message or its account) sets it too, as a
 * new hide does (20261125002100_chat_list_last_message_version).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("conversations")
    .addColumn("history_version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`DROP TRIGGER IF EXISTS messages_stored`.execute(db);
  await createMessagesStored(db, { historyVersion: true });
  await sql`CREATE TRIGGER message_hidden_member_flag_update AFTER UPDATE ON message_hidden BEGIN
    UPDATE conversation_members SET has_hidden = 1
    WHERE user_id = new.user_id AND has_hidden = 0
      AND conversation_id = (SELECT x.conversation_id FROM messages x WHERE x.id = new.message_id); END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS message_hidden_member_flag_update`.execute(db);
  await sql`DROP TRIGGER IF EXISTS messages_stored`.execute(db);
  await createMessagesStored(db, { historyVersion: false });
  await db.schema.alterTable("conversations").dropColumn("history_version").execute();
}

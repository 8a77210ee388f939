import { sql, type Kysely } from "kysely";

/**
 * A send writes each member row of its chat once. It used to write it twice: the chat's new
 * activity copied to every membership (conversations_members_activity, on the chat's UPDATE
 * that takes the seq) and the message counted unread for the others (messages_unread_insert,
 * on the message's INSERT), each rewriting the row and its entry in the chat list's index,
 * which holds both columns, so a send to a large group cost twice what it needs. Now the
 * message's INSERT does both in one UPDATE, and the chat's activity trigger leaves out the
 * UPDATE that takes a seq (a message is inserted right after it, in the same transaction); any
 * other move of a chat's activity is still copied by it.
 */

const ACTIVITY_OF_CHAT = sql.raw(`(SELECT c.activity_at FROM conversations c WHERE c.id = new.conversation_id)`);

export async function up(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS conversations_members_activity`.execute(db);
  await sql`DROP TRIGGER IF EXISTS messages_unread_insert`.execute(db);
  await sql`CREATE TRIGGER conversations_members_activity AFTER UPDATE OF activity_at ON conversations
    WHEN new.activity_at <> old.activity_at AND new.last_seq = old.last_seq BEGIN
    UPDATE conversation_members SET activity_at = new.activity_at WHERE conversation_id = new.id; END`.execute(db);
  await sql`CREATE TRIGGER messages_unread_insert AFTER INSERT ON messages BEGIN
    UPDATE conversation_members SET activity_at = ${ACTIVITY_OF_CHAT},
      unread_count = unread_count + CASE
        WHEN new.deleted_at IS NULL AND user_id <> new.sender_id AND last_read_seq < new.seq THEN 1 ELSE 0 END
    WHERE conversation_id = new.conversation_id; END`.execute(db);
}

/** The two triggers as 20261124100100_unread_counter and 20261125002000_chat_member_activity made them. */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS conversations_members_activity`.execute(db);
  await sql`DROP TRIGGER IF EXISTS messages_unread_insert`.execute(db);
  await sql`CREATE TRIGGER conversations_members_activity AFTER UPDATE OF activity_at ON conversations
    WHEN new.activity_at <> old.activity_at BEGIN
    UPDATE conversation_members SET activity_at = new.activity_at WHERE conversation_id = new.id; END`.execute(db);
  await sql`CREATE TRIGGER messages_unread_insert AFTER INSERT ON messages WHEN new.deleted_at IS NULL BEGIN
    UPDATE conversation_members SET unread_count = unread_count + 1
    WHERE conversation_id = new.conversation_id AND user_id <> new.sender_id AND last_read_seq < new.seq; END`.execute(
    db,
  );
}

import { sql, type Kysely, type RawBuilder } from "kysely";

/**
 * Each chat member's unread count as a column (conversation_members.unread_count) instead of a
 * count per chat-list row: messages of the chat after the member's read marker, not their own,
 * not deleted, not hidden for them. Triggers keep it in the statement that changes any of that
 * (a message stored, deleted for everyone or removed, hidden for one member, a read marker
 * moved, a member added), so the send path's code needs nothing new. The read marker and a new
 * member count again (bounded by what is unread); everything else is ±1.
 */

/** The unread count of the member row M (a table alias or `new`), counted from the rows. */
const unreadOf = (m: string): RawBuilder<unknown> => sql`(
  SELECT count(*) FROM messages x
  WHERE x.conversation_id = ${sql.raw(m)}.conversation_id AND x.seq > ${sql.raw(m)}.last_read_seq
    AND x.sender_id <> ${sql.raw(m)}.user_id AND x.deleted_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.message_id = x.id AND h.user_id = ${sql.raw(m)}.user_id))`;

/** Members (other than the sender) who counted message M as unread: one fewer each. */
const uncount = (m: string): RawBuilder<unknown> => sql`
  UPDATE conversation_members SET unread_count = unread_count - 1
  WHERE conversation_id = ${sql.raw(m)}.conversation_id AND user_id <> ${sql.raw(m)}.sender_id
    AND last_read_seq < ${sql.raw(m)}.seq
    AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.message_id = ${sql.raw(m)}.id
                    AND h.user_id = conversation_members.user_id);`;

const TRIGGERS = [
  "messages_unread_insert",
  "messages_unread_delete",
  "messages_unread_remove",
  "message_hidden_unread",
  "members_unread_read",
  "members_unread_join",
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("conversation_members")
    .addColumn("unread_count", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE conversation_members SET unread_count = ${unreadOf("conversation_members")}`.execute(db);

  await sql`CREATE TRIGGER messages_unread_insert AFTER INSERT ON messages WHEN new.deleted_at IS NULL BEGIN
    UPDATE conversation_members SET unread_count = unread_count + 1
    WHERE conversation_id = new.conversation_id AND user_id <> new.sender_id AND last_read_seq < new.seq; END`.execute(
    db,
  );
  await sql`CREATE TRIGGER messages_unread_delete AFTER UPDATE OF deleted_at ON messages
    WHEN old.deleted_at IS NULL AND new.deleted_at IS NOT NULL BEGIN ${uncount("new")} END`.execute(db);
  // BEFORE: the message's hidden marks are still there (they go with it by cascade)
  await sql`CREATE TRIGGER messages_unread_remove BEFORE DELETE ON messages WHEN old.deleted_at IS NULL BEGIN
    ${uncount("old")} END`.execute(db);
  await sql`CREATE TRIGGER message_hidden_unread AFTER INSERT ON message_hidden BEGIN
    UPDATE conversation_members SET unread_count = unread_count - 1
    WHERE user_id = new.user_id
      AND conversation_id = (SELECT conversation_id FROM messages WHERE id = new.message_id)
      AND last_read_seq < (SELECT seq FROM messages WHERE id = new.message_id
                           AND deleted_at IS NULL AND sender_id <> new.user_id); END`.execute(db);
  await sql`CREATE TRIGGER members_unread_read AFTER UPDATE OF last_read_seq ON conversation_members
    WHEN new.last_read_seq <> old.last_read_seq BEGIN
    UPDATE conversation_members SET unread_count = ${unreadOf("new")} WHERE id = new.id; END`.execute(db);
  await sql`CREATE TRIGGER members_unread_join AFTER INSERT ON conversation_members BEGIN
    UPDATE conversation_members SET unread_count = ${unreadOf("new")} WHERE id = new.id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of TRIGGERS) await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await db.schema.alterTable("conversation_members").dropColumn("unread_count").execute();
}

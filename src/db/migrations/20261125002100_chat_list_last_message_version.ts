import { sql, type Kysely } from "kysely";

/**
 * What a chat list page reads of each chat's last message, without reading the message:
 * - conversations.last_message_version: one more on every change of any message of the chat
 *   (messages.version: an edit, a pin, a reaction, a vote, a deletion) and on a message's
 *   removal. With the last message's id (a new one is a new id: ids are never reused) and the
 *   chat's version (its members' profiles: the senders), it names the last message's JSON,
 *   including the message it replies to, so a page joins no message (two lookups a chat
 *   before). A send stores a message and changes none: it pays nothing here.
 * - conversation_members.has_hidden: 1 once the member hid a message of the chat (delete for
 *   me): only their list reads that chat's newest message they see (the last one may be hidden
 *   for them). A hint that stays once set: at worst a chat is searched when it need not be.
 * Triggers keep both in the statement that makes the change, whoever runs it. The member index
 * of the chat list (20261125002000) carries has_hidden too, so a page still reads no membership row.
 */

const TRIGGERS = [
  "messages_last_message_version",
  "messages_last_message_version_remove",
  "message_hidden_member_flag",
  "members_hidden_join",
];

/** Whether member M (a table alias or `new`) hid any message of their chat. */
const hidesOf = (m: string) =>
  sql.raw(`EXISTS (SELECT 1 FROM message_hidden h JOIN messages x ON x.id = h.message_id
    WHERE h.user_id = ${m}.user_id AND x.conversation_id = ${m}.conversation_id)`);

const MEMBER_INDEX = "conversation_members_user_activity";
const MEMBER_INDEX_COLUMNS = ["user_id", "activity_at", "conversation_id", "role", "last_read_seq", "unread_count"];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("conversations")
    .addColumn("last_message_version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("conversation_members")
    .addColumn("has_hidden", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE conversation_members SET has_hidden = 1 WHERE ${hidesOf("conversation_members")}`.execute(db);
  await db.schema.dropIndex(MEMBER_INDEX).execute();
  await db.schema
    .createIndex(MEMBER_INDEX)
    .on("conversation_members")
    .columns([...MEMBER_INDEX_COLUMNS, "has_hidden", "rights"])
    .execute();

  // messages.version rises on every change of a message's row, reactions and votes
  await sql`CREATE TRIGGER messages_last_message_version AFTER UPDATE OF version ON messages
    WHEN new.version <> old.version BEGIN
    UPDATE conversations SET last_message_version = last_message_version + 1 WHERE id = new.conversation_id; END`.execute(
    db,
  );
  await sql`CREATE TRIGGER messages_last_message_version_remove AFTER DELETE ON messages BEGIN
    UPDATE conversations SET last_message_version = last_message_version + 1 WHERE id = old.conversation_id; END`.execute(
    db,
  );
  await sql`CREATE TRIGGER message_hidden_member_flag AFTER INSERT ON message_hidden BEGIN
    UPDATE conversation_members SET has_hidden = 1
    WHERE user_id = new.user_id AND has_hidden = 0
      AND conversation_id = (SELECT x.conversation_id FROM messages x WHERE x.id = new.message_id); END`.execute(db);
  // a membership made again (or by an import) over hides that stayed
  await sql`CREATE TRIGGER members_hidden_join AFTER INSERT ON conversation_members BEGIN
    UPDATE conversation_members SET has_hidden = 1 WHERE id = new.id AND ${hidesOf("new")}; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of TRIGGERS) await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await db.schema.dropIndex(MEMBER_INDEX).execute();
  await db.schema
    .createIndex(MEMBER_INDEX)
    .on("conversation_members")
    .columns([...MEMBER_INDEX_COLUMNS, "rights"])
    .execute();
  await db.schema.alterTable("conversation_members").dropColumn("has_hidden").execute();
  await db.schema.alterTable("conversations").dropColumn("last_message_version").execute();
}

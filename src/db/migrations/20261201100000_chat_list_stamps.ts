import { sql, type Kysely } from "kysely";

/**
 * chat_list_stamps: a number per account, raised by triggers on every write that may change what
 * that account's chat list shows, whoever makes it (this process, the CLI, another node, an
 * operator's SQL), so a chat-list answer kept under an older stamp is not used
 * (src/clientapi/chats/list-answers.ts) and no writer has to tell anyone. A row is made with the
 * account's first membership and never removed, so an account without one has had no chat (its
 * stamp reads as 0, which no row holds).
 *
 * Raised for:
 * - the member of a membership written (made, removed, or one of MEMBER_COLUMNS set): a send
 *   writes every member's row of its chat (activity, unread count, the sender's read mark), so
 *   a send raises each member's stamp once;
 * - every member of a chat whose CHAT_COLUMNS are set, what the list shows of the chat (its
 *   version also counts its members, their roles and anyone's profile in it), or its
 *   LAST_MESSAGE_COLUMNS (last_message_version counts every change and removal of a message,
 *   its reactions and votes); and its SEND_COLUMNS, the last message's time and id, when set by a
 *   write that takes no seq: a send takes one, and its message's insert writes every member's
 *   row anyway, so a send raises each stamp once;
 * - the member of a hide (message_hidden): the newest message they see in that chat may change.
 *
 * A vote changed in place now raises its message's version too, as a reaction changed in place
 * does (a vote given or taken back already did: the chat_list_versions migration).
 */
const MEMBER_COLUMNS = "id conversation_id user_id role rights last_read_seq unread_count activity_at has_hidden";
const CHAT_COLUMNS = "id cuid type title photo_url private_key created_at description member_count version";
const LAST_MESSAGE_COLUMNS = "last_message_version";
const SEND_COLUMNS = "last_message_at last_message_id";
/** COLUMNS (names apart by spaces) as an UPDATE OF's list */
const listOf = (...columns: string[]) => columns.join(" ").split(" ").join(", ");

const raise = (user: string) => `UPDATE chat_list_stamps SET stamp = stamp + 1 WHERE user_id = ${user};`;

const TRIGGERS: Record<string, string> = {
  chat_list_stamps_member_insert: `AFTER INSERT ON conversation_members BEGIN
    INSERT INTO chat_list_stamps (user_id, stamp) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET stamp = chat_list_stamps.stamp + 1; END`,
  chat_list_stamps_member_update: `AFTER UPDATE OF ${listOf(MEMBER_COLUMNS)} ON conversation_members BEGIN
    ${raise("new.user_id")} END`,
  chat_list_stamps_member_moved: `AFTER UPDATE OF user_id ON conversation_members
    WHEN old.user_id <> new.user_id BEGIN ${raise("old.user_id")} END`,
  chat_list_stamps_member_delete: `AFTER DELETE ON conversation_members BEGIN ${raise("old.user_id")} END`,
  chat_list_stamps_chat_update: `AFTER UPDATE OF ${listOf(CHAT_COLUMNS, LAST_MESSAGE_COLUMNS)} ON conversations BEGIN
    UPDATE chat_list_stamps SET stamp = stamp + 1
    WHERE user_id IN (SELECT m.user_id FROM conversation_members m WHERE m.conversation_id = new.id); END`,
  chat_list_stamps_chat_last_message: `AFTER UPDATE OF ${listOf(SEND_COLUMNS)} ON conversations
    WHEN new.last_seq = old.last_seq BEGIN
    UPDATE chat_list_stamps SET stamp = stamp + 1
    WHERE user_id IN (SELECT m.user_id FROM conversation_members m WHERE m.conversation_id = new.id); END`,
  chat_list_stamps_chat_delete: `AFTER DELETE ON conversations BEGIN
    UPDATE chat_list_stamps SET stamp = stamp + 1
    WHERE user_id IN (SELECT m.user_id FROM conversation_members m WHERE m.conversation_id = old.id); END`,
  chat_list_stamps_hidden_insert: `AFTER INSERT ON message_hidden BEGIN ${raise("new.user_id")} END`,
  chat_list_stamps_hidden_update: `AFTER UPDATE ON message_hidden BEGIN ${raise("new.user_id")} ${raise("old.user_id")} END`,
  chat_list_stamps_hidden_delete: `AFTER DELETE ON message_hidden BEGIN ${raise("old.user_id")} END`,
  message_poll_votes_version_update: `AFTER UPDATE ON message_poll_votes BEGIN
    UPDATE messages SET version = version + 1 WHERE id = new.message_id; END`,
};

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("chat_list_stamps")
    .addColumn("user_id", "integer", (c) => c.primaryKey())
    .addColumn("stamp", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`INSERT INTO chat_list_stamps (user_id, stamp) SELECT DISTINCT user_id, 1 FROM conversation_members`.execute(
    db,
  );
  for (const [name, body] of Object.entries(TRIGGERS)) await sql.raw(`CREATE TRIGGER ${name} ${body}`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of Object.keys(TRIGGERS)) await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db);
  await db.schema.dropTable("chat_list_stamps").execute();
}

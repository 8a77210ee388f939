import { sql, type Kysely } from "kysely";

/**
 * What the chat list keeps of a chat and of its last message, named by versions that triggers
 * raise, so a change made by any process or node (the CLI, another node, an operator's SQL)
 * misses without anyone telling the kept copies:
 * - conversations.version: one more on every change of what the list shows of the chat itself
 *   (cuid, type, title, description, picture, creation time), of its members (one joins or is
 *   removed: a private chat's other party) and of the profile of anyone who is or was in it
 *   (users.profile_version: the other party, any last message's sender); a send's update of
 *   the chat (last_seq, last_message_at, activity_at) leaves it. A profile change raises the
 *   version of each of that account's chats (rare, one indexed UPDATE), so a list reads no
 *   account per chat.
 * - messages.version (20261124194100_message_version) now also counts the message's reactions
 *   and, for a poll, its votes: a reaction set, changed or taken back and a vote given or taken
 *   back raise it, so a kept last message carries its reactions and its poll's counts.
 */

const TRIGGERS = [
  "conversations_version",
  "users_chats_version",
  "members_chats_version_insert",
  "members_chats_version_delete",
  "message_reactions_version_insert",
  "message_reactions_version_update",
  "message_reactions_version_delete",
  "message_poll_votes_version_insert",
  "message_poll_votes_version_delete",
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("conversations")
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  // WHEN: the trigger's own UPDATE changes the version, so it does not run again for it
  await sql`CREATE TRIGGER conversations_version AFTER UPDATE OF cuid, type, title, description, photo_url, created_at ON conversations
    WHEN new.version = old.version BEGIN
    UPDATE conversations SET version = old.version + 1 WHERE id = new.id; END`.execute(db);
  // users_profile_version (20261124194200) raises profile_version on every change of what lists show of an account
  await sql`CREATE TRIGGER users_chats_version AFTER UPDATE OF profile_version ON users
    WHEN new.profile_version <> old.profile_version BEGIN
    UPDATE conversations SET version = version + 1
    WHERE id IN (SELECT conversation_id FROM conversation_members WHERE user_id = new.id); END`.execute(db);
  await sql`CREATE TRIGGER members_chats_version_insert AFTER INSERT ON conversation_members BEGIN
    UPDATE conversations SET version = version + 1 WHERE id = new.conversation_id; END`.execute(db);
  await sql`CREATE TRIGGER members_chats_version_delete AFTER DELETE ON conversation_members BEGIN
    UPDATE conversations SET version = version + 1 WHERE id = old.conversation_id; END`.execute(db);
  await sql`CREATE TRIGGER message_reactions_version_insert AFTER INSERT ON message_reactions BEGIN
    UPDATE messages SET version = version + 1 WHERE id = new.message_id; END`.execute(db);
  await sql`CREATE TRIGGER message_reactions_version_update AFTER UPDATE ON message_reactions BEGIN
    UPDATE messages SET version = version + 1 WHERE id = new.message_id; END`.execute(db);
  // a message's own removal takes its reactions and votes with it: then there is no row left to raise
  await sql`CREATE TRIGGER message_reactions_version_delete AFTER DELETE ON message_reactions BEGIN
    UPDATE messages SET version = version + 1 WHERE id = old.message_id; END`.execute(db);
  await sql`CREATE TRIGGER message_poll_votes_version_insert AFTER INSERT ON message_poll_votes BEGIN
    UPDATE messages SET version = version + 1 WHERE id = new.message_id; END`.execute(db);
  await sql`CREATE TRIGGER message_poll_votes_version_delete AFTER DELETE ON message_poll_votes BEGIN
    UPDATE messages SET version = version + 1 WHERE id = old.message_id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of TRIGGERS) await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await db.schema.alterTable("conversations").dropColumn("version").execute();
}

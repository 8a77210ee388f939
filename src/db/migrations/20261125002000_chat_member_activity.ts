import { sql, type Kysely } from "kysely";

/**
 * The chat list's order per member: each membership carries its chat's newest activity
 * (conversation_members.activity_at, a copy of conversations.activity_at) and an index on
 * (user_id, activity_at, conversation_id) holds every person's chats in the list's order, so a
 * page is one range read of its rows (a page of 20 of 500 chats reads 21, not 500 sorted).
 * The index also carries the member's own columns the list shows (role, read mark, unread
 * count, rights): a page reads no membership row. It replaces the
 * (user_id, role) index, whose queries it serves as well; with both, SQLite's planner could
 * take that one for the list and sort every chat of the person again.
 * Triggers keep the copy in the statement that moves the chat's activity (a send) or adds a
 * member, whoever runs it (this process, the CLI, another node, an operator's SQL).
 */

const TRIGGERS = ["conversations_members_activity", "members_activity_join"];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("conversation_members")
    .addColumn("activity_at", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE conversation_members SET activity_at =
    (SELECT c.activity_at FROM conversations c WHERE c.id = conversation_members.conversation_id)`.execute(db);
  await db.schema
    .createIndex("conversation_members_user_activity")
    .on("conversation_members")
    .columns(["user_id", "activity_at", "conversation_id", "role", "last_read_seq", "unread_count", "rights"])
    .execute();
  await db.schema.dropIndex("conversation_members_user").execute();

  await sql`CREATE TRIGGER conversations_members_activity AFTER UPDATE OF activity_at ON conversations
    WHEN new.activity_at <> old.activity_at BEGIN
    UPDATE conversation_members SET activity_at = new.activity_at WHERE conversation_id = new.id; END`.execute(db);
  await sql`CREATE TRIGGER members_activity_join AFTER INSERT ON conversation_members BEGIN
    UPDATE conversation_members SET activity_at = (SELECT c.activity_at FROM conversations c WHERE c.id = new.conversation_id)
    WHERE id = new.id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of TRIGGERS) await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await db.schema
    .createIndex("conversation_members_user")
    .on("conversation_members")
    .columns(["user_id", "role"])
    .execute();
  await db.schema.dropIndex("conversation_members_user_activity").execute();
  await db.schema.alterTable("conversation_members").dropColumn("activity_at").execute();
}

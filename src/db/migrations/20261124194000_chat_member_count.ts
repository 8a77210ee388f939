import { sql, type Kysely } from "kysely";

/**
 * Each chat's count of people in it now as a column (conversations.member_count) instead of a
 * count per chat-list row (a group's list row counted all its members on every read). Triggers
 * on conversation_members keep it in the statement that adds, removes or changes a member
 * (joins, leaves, kicks, account removals, cascades), so no write path needs code for it.
 */

/** Roles of people in the chat now (chats/table.ts ACTIVE_ROLES). */
const ACTIVE = "('creator', 'administrator', 'member')";

const TRIGGERS = ["members_count_insert", "members_count_delete", "members_count_role"];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("conversations")
    .addColumn("member_count", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE conversations SET member_count = (
    SELECT count(*) FROM conversation_members m
    WHERE m.conversation_id = conversations.id AND m.role IN ${sql.raw(ACTIVE)})`.execute(db);

  await sql`CREATE TRIGGER members_count_insert AFTER INSERT ON conversation_members
    WHEN new.role IN ${sql.raw(ACTIVE)} BEGIN
    UPDATE conversations SET member_count = member_count + 1 WHERE id = new.conversation_id; END`.execute(db);
  await sql`CREATE TRIGGER members_count_delete AFTER DELETE ON conversation_members
    WHEN old.role IN ${sql.raw(ACTIVE)} BEGIN
    UPDATE conversations SET member_count = member_count - 1 WHERE id = old.conversation_id; END`.execute(db);
  await sql`CREATE TRIGGER members_count_role AFTER UPDATE OF role ON conversation_members
    WHEN (old.role IN ${sql.raw(ACTIVE)}) <> (new.role IN ${sql.raw(ACTIVE)}) BEGIN
    UPDATE conversations SET member_count = member_count + (CASE WHEN new.role IN ${sql.raw(ACTIVE)} THEN 1 ELSE -1 END)
    WHERE id = new.conversation_id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of TRIGGERS) await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await db.schema.alterTable("conversations").dropColumn("member_count").execute();
}

import { sql, type Kysely } from "kysely";

/**
 * A member's role and rights named by their chat's version (conversations.version), as the
 * chat's members, shown columns and people's profiles already are: a trigger raises it when a
 * member's role or rights change (a promotion, a demotion, leaving, a removal), whoever makes
 * the change. The chat list then keeps what it shows of the viewer's role and rights with the
 * chat's view (per membership, by that version) and its page reads neither: two text values a
 * chat it made on every page. Such changes are rare; each pays one indexed UPDATE.
 */

const TRIGGER = "members_role_chat_version";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TRIGGER members_role_chat_version AFTER UPDATE OF role, rights ON conversation_members
    WHEN new.role <> old.role OR new.rights IS DISTINCT FROM old.rights BEGIN
    UPDATE conversations SET version = version + 1 WHERE id = new.conversation_id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS ${sql.raw(TRIGGER)}`.execute(db);
}

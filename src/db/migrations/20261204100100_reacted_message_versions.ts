import { sql, type Kysely } from "kysely";

/**
 * Every message with a reaction has a version above 0, so a page whose messages are all at 0
 * skips reading reactions (clientapi/chats/serialize.ts). Reactions raise their message's
 * version since 20261124214000_chat_list_versions; one given before it, to a message never
 * changed since, left it at 0.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`UPDATE messages SET version = version + 1
    WHERE version = 0 AND EXISTS (SELECT 1 FROM message_reactions r WHERE r.message_id = messages.id)`.execute(db);
}

/** Nothing to undo: a version only ever grows. */
export async function down(): Promise<void> {}

import { sql, type Kysely } from "kysely";
import { createMessagesStored } from "./20261125040000_send_one_trigger";

/**
 * messages_stored writes a chat's memberships with one UPDATE where it took two (the other
 * members', then the sender's), and reads the chat once for it, joined, where each member's
 * row read it again by a subquery per column: each statement a trigger runs, and each
 * subquery, has a cost of its own, on PostgreSQL most of all. Each row is written as before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS messages_stored`.execute(db);
  await createMessagesStored(db, { historyVersion: true, oneMemberUpdate: true });
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS messages_stored`.execute(db);
  await createMessagesStored(db, { historyVersion: true });
}

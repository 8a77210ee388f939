import type { Kysely } from "kysely";

/** Votes in polls sent into chats: one row per chosen option, one vote set per person per poll (message). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("message_poll_votes")
    .addColumn("message_id", "integer", (c) => c.notNull().references("messages.id").onDelete("cascade"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("option_index", "integer", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("message_poll_votes_pk", ["message_id", "user_id", "option_index"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("message_poll_votes").execute();
}

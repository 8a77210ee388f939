import type { Kysely } from "kysely";

// button presses outlive a restart: a queued callback_query can still be answered
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("bot_presses")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("bot_id", "integer", (c) => c.notNull().references("bots.id").onDelete("cascade"))
    .addColumn("expires_at", "integer", (c) => c.notNull())
    .addColumn("answered_at", "integer")
    .execute();
  await db.schema.createIndex("bot_presses_expiry").on("bot_presses").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("bot_presses").execute();
}

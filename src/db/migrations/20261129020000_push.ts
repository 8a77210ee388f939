import type { Kysely } from "kysely";

/**
 * Web Push: each browser's subscription (owned by the session that made it, gone with it),
 * which kinds of push each account wants, and which chat each session has on screen (no
 * push about a chat its reader is looking at).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("push_subscriptions")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("session_id", "integer", (c) => c.notNull().references("sessions.id").onDelete("cascade"))
    .addColumn("endpoint", "text", (c) => c.notNull().unique())
    .addColumn("p256dh", "text", (c) => c.notNull())
    .addColumn("auth", "text", (c) => c.notNull())
    .addColumn("user_agent", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("last_used_at", "integer")
    .execute();
  await db.schema.createIndex("push_subscriptions_user").on("push_subscriptions").column("user_id").execute();
  await db.schema.createIndex("push_subscriptions_session").on("push_subscriptions").column("session_id").execute();
  await db.schema
    .createTable("notification_settings")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("push_messages", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("push_mentions", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("push_replies", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("push_follows", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("push_reactions", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("push_payments", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("chat_viewing")
    .addColumn("session_id", "integer", (c) => c.primaryKey().references("sessions.id").onDelete("cascade"))
    .addColumn("user_id", "integer", (c) => c.notNull())
    .addColumn("conversation_id", "integer", (c) => c.notNull())
    .addColumn("until", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("chat_viewing_chat").on("chat_viewing").columns(["conversation_id", "until"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("chat_viewing").ifExists().execute();
  await db.schema.dropTable("notification_settings").ifExists().execute();
  await db.schema.dropTable("push_subscriptions").ifExists().execute();
}

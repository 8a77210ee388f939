import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("bots")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.notNull().unique().references("users.id").onDelete("cascade"))
    .addColumn("owner_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("token_secret_hash", "text", (c) => c.notNull())
    .addColumn("disabled_at", "integer")
    .addColumn("blocked_at", "integer")
    .addColumn("privacy", "text", (c) => c.notNull().defaultTo("commands"))
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("short_description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("commands", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("allowed_updates", "text")
    .addColumn("webhook_url", "text")
    .addColumn("webhook_secret", "text")
    .addColumn("webhook_last_error_date", "integer")
    .addColumn("webhook_last_error_message", "text")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("bots_owner").on("bots").column("owner_id").execute();

  // update_id is the row id: AUTOINCREMENT never reuses ids, so it only grows per bot
  await db.schema
    .createTable("bot_updates")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("bot_id", "integer", (c) => c.notNull().references("bots.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("delivered_at", "integer")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex("bot_updates_queue")
    .on("bot_updates")
    .columns(["bot_id", "delivered_at", "id"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("bot_updates").execute();
  await db.schema.dropTable("bots").execute();
}

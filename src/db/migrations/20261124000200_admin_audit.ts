import type { Kysely } from "kysely";

/**
 * The admin audit log: one row per action an administrator took through the admin API
 * (who, what, on what, when), written before the action runs. The actor's and target's names
 * are copied in, so the log still reads after an account is renamed or deleted.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("admin_audit")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("actor_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("actor_username", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    // account, post, comment, story, bot or setting
    .addColumn("target_type", "text", (c) => c.notNull())
    // the target's public id (cuid, username or config key)
    .addColumn("target_id", "text", (c) => c.notNull())
    .addColumn("target_label", "text", (c) => c.notNull())
    // JSON object: the action's parameters and outcome (minutes, devices banned, old and new values)
    .addColumn("details", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("admin_audit_created").on("admin_audit").columns(["created_at", "id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("admin_audit").ifExists().execute();
}

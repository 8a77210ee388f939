import { sql, type Kysely } from "kysely";

/**
 * Reports of posts, comments, stories, messages, accounts and bots, and the moderation queue
 * over them. A report copies what was reported (text, media references, where it was) at the
 * moment it was made, so an administrator judges what the reporter saw, even after an edit,
 * a deletion or without being in the chat. Notifications gain the report they are about.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("reports")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("reporter_id", "integer", (c) => c.notNull().references("users.id"))
    // post, comment, story, message, user or bot
    .addColumn("target_type", "text", (c) => c.notNull())
    // the target's public id (a cuid; the account's cuid for a user or a bot)
    .addColumn("target_id", "text", (c) => c.notNull())
    // the target's row (posts.id, comments.id, stories.id, messages.id, users.id): the grouping key
    .addColumn("target_row_id", "integer", (c) => c.notNull())
    // the account answerable for the target: its author, sender, the account itself, the bot's account
    .addColumn("subject_id", "integer", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("comment", "text")
    .addColumn("snapshot_text", "text")
    // JSON array of the target's media references when reported
    .addColumn("snapshot_media", "text")
    // JSON object: where the target was (the post of a comment, the chat of a message)
    .addColumn("context", "text")
    .addColumn("status", "text", (c) => c.notNull().defaultTo("open"))
    .addColumn("resolution_action", "text")
    .addColumn("resolution_note", "text")
    .addColumn("resolver_id", "integer")
    .addColumn("resolved_at", "integer")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  // one open report per person and target: a repeat report answers with the first
  await sql`create unique index reports_open_once on reports (reporter_id, target_type, target_row_id) where status = 'open'`.execute(
    db,
  );
  await db.schema
    .createIndex("reports_queue")
    .on("reports")
    .columns(["status", "target_type", "target_row_id"])
    .execute();
  await db.schema
    .createIndex("reports_by_reporter")
    .on("reports")
    .columns(["reporter_id", "created_at", "id"])
    .execute();
  await db.schema.alterTable("notifications").addColumn("report_id", "integer").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("notifications").dropColumn("report_id").execute();
  await db.schema.dropTable("reports").ifExists().execute();
}

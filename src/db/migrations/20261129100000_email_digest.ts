import type { Kysely } from "kysely";

/**
 * notification_settings.email_digest: whether the person wants a mail of what they missed when
 * they have been away (off unless they switch it on); email_digest_sent_at: when the last one
 * went, so one absence gets one digest however many nodes look.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("notification_settings")
    .addColumn("email_digest", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("notification_settings").addColumn("email_digest_sent_at", "integer").execute();
  // the scan reads only those who opted in
  await db.schema
    .createIndex("notification_settings_email_digest")
    .on("notification_settings")
    .columns(["email_digest", "user_id"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("notification_settings_email_digest").ifExists().execute();
  await db.schema.alterTable("notification_settings").dropColumn("email_digest_sent_at").execute();
  await db.schema.alterTable("notification_settings").dropColumn("email_digest").execute();
}

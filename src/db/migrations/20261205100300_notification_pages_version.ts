import { sql, type Kysely } from "kysely";

/**
 * notification_counts.version: one more on every change of what a page of the recipient's
 * notifications shows, by triggers, whoever writes (this process, the CLI, another node): a group
 * of theirs added, changed (a new event, a read, an actor gone) or removed, an event of a group
 * changed, a change of the profile (users.profile_version) of anyone who notified them, and a
 * change of the public id of a post, comment or report a group is about, or that report's
 * deletion (a post's or comment's takes its groups). A page can then be kept as text by
 * (recipient, version, counts) and read with one primary-key statement. notifications_actor_id
 * finds an account's recipients for the profile trigger; notification_groups_report a report's
 * groups.
 */

/** Raises the version of the recipients of the groups that CONDITION (on `g`) picks. */
const raiseGroupsRecipients = (condition: string) =>
  `UPDATE notification_counts SET version = version + 1
    WHERE recipient_id IN (SELECT g.recipient_id FROM notification_groups g WHERE ${condition});`;

const TRIGGERS: Record<string, string> = {
  notification_pages_group_insert: `AFTER INSERT ON notification_groups BEGIN
    INSERT INTO notification_counts (recipient_id, version) VALUES (new.recipient_id, 1)
    ON CONFLICT (recipient_id) DO UPDATE SET version = notification_counts.version + 1; END`,
  notification_pages_group_update: `AFTER UPDATE ON notification_groups BEGIN
    UPDATE notification_counts SET version = version + 1 WHERE recipient_id IN (new.recipient_id, old.recipient_id); END`,
  notification_pages_group_delete: `AFTER DELETE ON notification_groups BEGIN
    UPDATE notification_counts SET version = version + 1 WHERE recipient_id = old.recipient_id; END`,
  notification_pages_event_update: `AFTER UPDATE ON notifications BEGIN
    ${raiseGroupsRecipients("g.id IN (new.group_id, old.group_id)")} END`,
  notification_pages_actor: `AFTER UPDATE OF profile_version ON users WHEN new.profile_version <> old.profile_version BEGIN
    UPDATE notification_counts SET version = version + 1
    WHERE recipient_id IN (SELECT n.recipient_id FROM notifications n WHERE n.actor_id = new.id); END`,
  notification_pages_post: `AFTER UPDATE OF cuid ON posts BEGIN ${raiseGroupsRecipients("g.post_id = new.id")} END`,
  notification_pages_comment: `AFTER UPDATE OF cuid ON comments BEGIN ${raiseGroupsRecipients("g.comment_id = new.id")} END`,
  notification_pages_report: `AFTER UPDATE OF cuid ON reports BEGIN ${raiseGroupsRecipients("g.report_id = new.id")} END`,
  notification_pages_report_delete: `AFTER DELETE ON reports BEGIN ${raiseGroupsRecipients("g.report_id = old.id")} END`,
};

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("notification_counts")
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("notifications_actor_id").on("notifications").column("actor_id").execute();
  await sql`CREATE INDEX notification_groups_report ON notification_groups (report_id) WHERE report_id IS NOT NULL`.execute(
    db,
  );
  for (const [name, body] of Object.entries(TRIGGERS)) await sql.raw(`CREATE TRIGGER ${name} ${body}`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of Object.keys(TRIGGERS)) await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db);
  await sql`DROP INDEX IF EXISTS notification_groups_report`.execute(db);
  await sql`DROP INDEX IF EXISTS notifications_actor_id`.execute(db);
  await db.schema.alterTable("notification_counts").dropColumn("version").execute();
}

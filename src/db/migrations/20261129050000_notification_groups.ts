import { sql, type Kysely } from "kysely";

/**
 * Notifications grouped as people read them ("12 people liked your post"), kept on write:
 *
 * - notification_groups: one row per group a person sees, with its actor count, its read
 *   state and the time of its latest event. A like, repost, poll vote or follow joins the
 *   recipient's unread group of the same key (type and post); once read, the next one starts a
 *   new group. Other kinds are a group of one.
 * - notifications: each event, naming its group (group_id), so a group's latest actors are an
 *   index range and an unlike or unfollow takes its actor out of the count.
 * - notification_counts: a person's unread groups, kept by triggers in the statement that
 *   changes a group, so the unread badge is one primary-key read however much is unread.
 *
 * Triggers keep the counts (actor_count on notifications insert and delete, the group gone at
 * zero; unread counts on group insert, read and delete) and drop the groups of a deleted post
 * or comment, however it goes. The read state lives on the group; notifications.read_at stays,
 * unread by this code, so an older binary still serving during an upgrade keeps working (what it
 * writes there is not shown in groups).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("notification_groups")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("recipient_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull())
    // what events join: the type and post of a groupable kind, else unique to the group
    .addColumn("group_key", "text", (c) => c.notNull())
    .addColumn("post_id", "integer")
    .addColumn("comment_id", "integer")
    .addColumn("report_id", "integer")
    .addColumn("actor_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("read_at", "integer")
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  // a page: the recipient's groups newest event first; the unread filter walks only unread ones
  await db.schema
    .createIndex("notification_groups_page")
    .on("notification_groups")
    .columns(["recipient_id", "updated_at", "id"])
    .execute();
  await sql`CREATE INDEX notification_groups_unread ON notification_groups (recipient_id, updated_at, id) WHERE read_at IS NULL`.execute(
    db,
  );
  // one unread group per key: the one a new event joins
  await sql`CREATE UNIQUE INDEX notification_groups_open ON notification_groups (recipient_id, group_key) WHERE read_at IS NULL`.execute(
    db,
  );
  await sql`CREATE INDEX notification_groups_post ON notification_groups (post_id) WHERE post_id IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX notification_groups_comment ON notification_groups (comment_id) WHERE comment_id IS NOT NULL`.execute(
    db,
  );

  await db.schema
    .createTable("notification_counts")
    .addColumn("recipient_id", "integer", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("unread", "integer", (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .alterTable("notifications")
    .addColumn("group_id", "integer", (c) => c.references("notification_groups.id").onDelete("cascade"))
    .execute();
  // a group's latest actors, newest first (the actor in the index: the walk reads no row)
  await db.schema
    .createIndex("notifications_group_time")
    .on("notifications")
    .columns(["group_id", "created_at", "id", "actor_id"])
    .execute();
  // the repeat check and an unlike's removal: one actor's notifications to one recipient
  await db.schema
    .createIndex("notifications_actor")
    .on("notifications")
    .columns(["recipient_id", "actor_id", "type", "created_at"])
    .execute();

  // blocking now removes the notifications between the two accounts (as it removes follows)
  await sql`DELETE FROM notifications WHERE EXISTS (SELECT 1 FROM blocks b WHERE
    (b.blocker_id = notifications.recipient_id AND b.blocked_id = notifications.actor_id) OR
    (b.blocker_id = notifications.actor_id AND b.blocked_id = notifications.recipient_id))`.execute(db);
  await sql`DELETE FROM notifications WHERE post_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM posts p WHERE p.id = notifications.post_id)`.execute(
    db,
  );
  await sql`DELETE FROM notifications WHERE comment_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM comments c WHERE c.id = notifications.comment_id)`.execute(
    db,
  );
  // each earlier notification becomes a group of its own, under the same public id
  await sql`INSERT INTO notification_groups
      (cuid, recipient_id, type, group_key, post_id, comment_id, report_id, actor_count, read_at, updated_at, created_at)
    SELECT cuid, recipient_id, type, 'n:' || cuid, post_id, comment_id, report_id, 1, read_at, created_at, created_at
    FROM notifications`.execute(db);
  await sql`UPDATE notifications SET group_id = (SELECT g.id FROM notification_groups g WHERE g.cuid = notifications.cuid)`.execute(
    db,
  );
  await sql`INSERT INTO notification_counts (recipient_id, unread)
    SELECT recipient_id, count(*) FROM notification_groups WHERE read_at IS NULL GROUP BY recipient_id`.execute(db);

  await sql`DROP INDEX notifications_unread`.execute(db);

  await sql`CREATE TRIGGER notifications_group_join AFTER INSERT ON notifications WHEN new.group_id IS NOT NULL BEGIN
    UPDATE notification_groups SET actor_count = actor_count + 1 WHERE id = new.group_id; END`.execute(db);
  await sql`CREATE TRIGGER notifications_group_leave AFTER DELETE ON notifications WHEN old.group_id IS NOT NULL BEGIN
    UPDATE notification_groups SET actor_count = actor_count - 1 WHERE id = old.group_id;
    DELETE FROM notification_groups WHERE id = old.group_id AND actor_count <= 0; END`.execute(db);
  await sql`CREATE TRIGGER notification_groups_unread_insert AFTER INSERT ON notification_groups WHEN new.read_at IS NULL BEGIN
    INSERT INTO notification_counts (recipient_id, unread) VALUES (new.recipient_id, 1)
    ON CONFLICT (recipient_id) DO UPDATE SET unread = notification_counts.unread + 1; END`.execute(db);
  await sql`CREATE TRIGGER notification_groups_unread_read AFTER UPDATE OF read_at ON notification_groups WHEN old.read_at IS NULL AND new.read_at IS NOT NULL BEGIN
    UPDATE notification_counts SET unread = unread - 1 WHERE recipient_id = new.recipient_id; END`.execute(db);
  await sql`CREATE TRIGGER notification_groups_unread_delete AFTER DELETE ON notification_groups WHEN old.read_at IS NULL BEGIN
    UPDATE notification_counts SET unread = unread - 1 WHERE recipient_id = old.recipient_id; END`.execute(db);
  await sql`CREATE TRIGGER posts_notification_groups_delete AFTER DELETE ON posts BEGIN
    DELETE FROM notification_groups WHERE post_id = old.id; END`.execute(db);
  await sql`CREATE TRIGGER comments_notification_groups_delete AFTER DELETE ON comments BEGIN
    DELETE FROM notification_groups WHERE comment_id = old.id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    "comments_notification_groups_delete",
    "posts_notification_groups_delete",
    "notification_groups_unread_delete",
    "notification_groups_unread_read",
    "notification_groups_unread_insert",
    "notifications_group_leave",
    "notifications_group_join",
  ])
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await sql`UPDATE notifications SET read_at = (SELECT g.read_at FROM notification_groups g WHERE g.id = notifications.group_id)`.execute(
    db,
  );
  await sql`CREATE INDEX notifications_unread ON notifications (recipient_id) WHERE read_at IS NULL`.execute(db);
  await sql`DROP INDEX notifications_actor`.execute(db);
  await sql`DROP INDEX notifications_group_time`.execute(db);
  // SQLite cannot drop a column a foreign key uses: group_id stays, emptied, so dropping the
  // groups deletes no notification
  await sql`UPDATE notifications SET group_id = NULL`.execute(db);
  await db.schema.dropTable("notification_counts").execute();
  await db.schema.dropTable("notification_groups").execute();
}

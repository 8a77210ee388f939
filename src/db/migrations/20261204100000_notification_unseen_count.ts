import { sql, type Kysely } from "kysely";

/**
 * notification_counts.unseen: the recipient's unread groups with an event after their seen mark,
 * kept by triggers as `unread` is, so the badge and every page of the list read one row instead of
 * walking the unread groups after the mark. A group counts while it is unread and its last event
 * (updated_at) is after the mark; moving the mark counts the groups after it again (a range of
 * notification_groups_unread, empty right after the list was opened).
 */
const INSERT_TRIGGER = "notification_groups_unread_insert";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("notification_counts")
    .addColumn("unseen", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE notification_counts SET unseen = (SELECT count(*) FROM notification_groups g
    WHERE g.recipient_id = notification_counts.recipient_id AND g.read_at IS NULL
      AND g.updated_at > notification_counts.seen_at)`.execute(db);
  await sql`DROP TRIGGER IF EXISTS ${sql.raw(INSERT_TRIGGER)}`.execute(db);
  await sql`CREATE TRIGGER ${sql.raw(INSERT_TRIGGER)} AFTER INSERT ON notification_groups WHEN new.read_at IS NULL BEGIN
    INSERT INTO notification_counts (recipient_id, unread, unseen) VALUES (new.recipient_id, 1, 1)
    ON CONFLICT (recipient_id) DO UPDATE SET unread = notification_counts.unread + 1,
      unseen = notification_counts.unseen + CASE WHEN new.updated_at > notification_counts.seen_at THEN 1 ELSE 0 END; END`.execute(
    db,
  );
  await sql`CREATE TRIGGER notification_groups_unseen_update AFTER UPDATE OF read_at, updated_at ON notification_groups
    WHEN (old.read_at IS NULL) <> (new.read_at IS NULL) OR old.updated_at <> new.updated_at BEGIN
    UPDATE notification_counts SET unseen = unseen
      + CASE WHEN new.read_at IS NULL AND new.updated_at > seen_at THEN 1 ELSE 0 END
      - CASE WHEN old.read_at IS NULL AND old.updated_at > seen_at THEN 1 ELSE 0 END
    WHERE recipient_id = new.recipient_id; END`.execute(db);
  await sql`CREATE TRIGGER notification_groups_unseen_delete AFTER DELETE ON notification_groups WHEN old.read_at IS NULL BEGIN
    UPDATE notification_counts SET unseen = unseen - 1 WHERE recipient_id = old.recipient_id AND old.updated_at > seen_at; END`.execute(
    db,
  );
  await sql`CREATE TRIGGER notification_counts_seen AFTER UPDATE OF seen_at ON notification_counts
    WHEN new.seen_at <> old.seen_at BEGIN
    UPDATE notification_counts SET unseen = (SELECT count(*) FROM notification_groups g
      WHERE g.recipient_id = new.recipient_id AND g.read_at IS NULL AND g.updated_at > new.seen_at)
    WHERE recipient_id = new.recipient_id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    "notification_counts_seen",
    "notification_groups_unseen_delete",
    "notification_groups_unseen_update",
  ])
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await sql`DROP TRIGGER IF EXISTS ${sql.raw(INSERT_TRIGGER)}`.execute(db);
  await sql`CREATE TRIGGER ${sql.raw(INSERT_TRIGGER)} AFTER INSERT ON notification_groups WHEN new.read_at IS NULL BEGIN
    INSERT INTO notification_counts (recipient_id, unread) VALUES (new.recipient_id, 1)
    ON CONFLICT (recipient_id) DO UPDATE SET unread = notification_counts.unread + 1; END`.execute(db);
  await db.schema.alterTable("notification_counts").dropColumn("unseen").execute();
}

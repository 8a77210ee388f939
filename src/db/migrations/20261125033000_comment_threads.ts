import { sql, type Kysely } from "kysely";

/**
 * A version per comment thread (comment_threads: a post's top-level comments, parent_id 0, or
 * one comment's direct replies, parent_id that comment's id), one more on every change of what
 * a page of it shows to a reader who hides nobody, by triggers, whoever writes (this process,
 * the CLI, another node): a comment added, changed (its row's version: text, media, like and
 * reply counters) or removed, and a change of the profile (users.profile_version) or the
 * deletion of anyone who commented on the post. A page of the thread's comments can then be
 * kept as text by (thread, version) and read with one statement. A thread's row is made by its
 * first comment (no row: the thread never had one), and goes with its post or its comment.
 * comments_author_post finds an account's threads for the profile trigger; comment_likes
 * (user_id, comment_id) answers whether a reader liked any comment in a range of ids with one
 * probe.
 */

const TRIGGERS = [
  "comment_threads_insert",
  "comment_threads_update",
  "comment_threads_delete",
  "comment_threads_post_delete",
  "comment_threads_author",
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("comment_threads")
    .addColumn("post_id", "integer", (c) => c.notNull())
    // 0: the post's top-level comments; else the id of the comment whose replies these are
    .addColumn("parent_id", "integer", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("comment_threads_pk", ["post_id", "parent_id"])
    .execute();
  await db.schema.createIndex("comments_author_post").on("comments").columns(["author_id", "post_id"]).execute();
  await db.schema
    .createIndex("comment_likes_user_comment")
    .on("comment_likes")
    .columns(["user_id", "comment_id"])
    .execute();
  await sql`INSERT INTO comment_threads (post_id, parent_id, version)
    SELECT DISTINCT post_id, coalesce(reply_to_id, 0), 1 FROM comments`.execute(db);

  await sql`CREATE TRIGGER comment_threads_insert AFTER INSERT ON comments BEGIN
    INSERT INTO comment_threads (post_id, parent_id, version) VALUES (new.post_id, coalesce(new.reply_to_id, 0), 1)
    ON CONFLICT (post_id, parent_id) DO UPDATE SET version = comment_threads.version + 1; END`.execute(db);
  // comments_version raises a comment's version on every change of its row, counters included
  await sql`CREATE TRIGGER comment_threads_update AFTER UPDATE OF version ON comments
    WHEN new.version <> old.version BEGIN
    UPDATE comment_threads SET version = version + 1
    WHERE post_id = new.post_id AND parent_id = coalesce(new.reply_to_id, 0); END`.execute(db);
  // the removed comment's own replies thread goes with it (its replies go by cascade)
  await sql`CREATE TRIGGER comment_threads_delete AFTER DELETE ON comments BEGIN
    UPDATE comment_threads SET version = version + 1
    WHERE post_id = old.post_id AND parent_id = coalesce(old.reply_to_id, 0);
    DELETE FROM comment_threads WHERE post_id = old.post_id AND parent_id = old.id; END`.execute(db);
  await sql`CREATE TRIGGER comment_threads_post_delete AFTER DELETE ON posts BEGIN
    DELETE FROM comment_threads WHERE post_id = old.id; END`.execute(db);
  // a page shows its authors' profiles and leaves deleted authors out: every thread of each post
  // they commented on (rare: a profile change or a deletion)
  await sql`CREATE TRIGGER comment_threads_author AFTER UPDATE OF profile_version, deleted_at ON users
    WHEN new.profile_version <> old.profile_version OR new.deleted_at IS DISTINCT FROM old.deleted_at BEGIN
    UPDATE comment_threads SET version = version + 1
    WHERE post_id IN (SELECT post_id FROM comments WHERE author_id = new.id); END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of TRIGGERS) await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await db.schema.dropIndex("comment_likes_user_comment").ifExists().execute();
  await db.schema.dropIndex("comments_author_post").ifExists().execute();
  await db.schema.dropTable("comment_threads").ifExists().execute();
}

import { sql, type Kysely } from "kysely";

/**
 * A post's version (posts.version): 0 when stored, one more on every change of its row, by a
 * trigger, whoever makes it (this process, the CLI, another node): an edit, and every change of
 * its counters, which are columns their triggers keep (likes, comments, and now reposts:
 * posts.repost_count, filled here and kept by triggers on the reposts' inserts and deletions,
 * cascades included). A poll attached or removed raises it too. The part of a post's view that
 * is the same for every reader (text, images, counters, the poll's presence) can then be kept by
 * (id, version): a page reads two numbers per post instead of its columns.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ["version", "repost_count"])
    await db.schema
      .alterTable("posts")
      .addColumn(column, "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  await sql`UPDATE posts SET repost_count = (SELECT count(*) FROM posts r WHERE r.repost_of_id = posts.id)
    WHERE EXISTS (SELECT 1 FROM posts r WHERE r.repost_of_id = posts.id)`.execute(db);

  await sql`CREATE TRIGGER posts_repost_count_insert AFTER INSERT ON posts WHEN new.repost_of_id IS NOT NULL BEGIN
    UPDATE posts SET repost_count = repost_count + 1 WHERE id = new.repost_of_id; END`.execute(db);
  await sql`CREATE TRIGGER posts_repost_count_delete AFTER DELETE ON posts WHEN old.repost_of_id IS NOT NULL BEGIN
    UPDATE posts SET repost_count = repost_count - 1 WHERE id = old.repost_of_id; END`.execute(db);
  // WHEN: the trigger's own UPDATE changes the version, so it does not run again for it
  await sql`CREATE TRIGGER posts_version AFTER UPDATE ON posts WHEN new.version = old.version BEGIN
    UPDATE posts SET version = old.version + 1 WHERE id = new.id; END`.execute(db);
  await sql`CREATE TRIGGER polls_post_version_insert AFTER INSERT ON polls BEGIN
    UPDATE posts SET version = version + 1 WHERE id = new.post_id; END`.execute(db);
  await sql`CREATE TRIGGER polls_post_version_delete AFTER DELETE ON polls BEGIN
    UPDATE posts SET version = version + 1 WHERE id = old.post_id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    "polls_post_version_delete",
    "polls_post_version_insert",
    "posts_version",
    "posts_repost_count_delete",
    "posts_repost_count_insert",
  ])
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  for (const column of ["repost_count", "version"]) await db.schema.alterTable("posts").dropColumn(column).execute();
}

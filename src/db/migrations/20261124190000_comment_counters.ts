import { sql, type Kysely } from "kysely";

/**
 * A comment's likes and direct replies kept as columns, as a post's are (20261124100000_counters):
 * a comment page read them with two counting subqueries a row. Triggers keep them in the
 * statement that changes the rows, so a like, a reply and every deletion (a comment's replies
 * removed by cascade, a post's comments, an account removal's likes and comments) updates them
 * in its own transaction.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ["like_count", "reply_count"])
    await db.schema
      .alterTable("comments")
      .addColumn(column, "integer", (c) => c.notNull().defaultTo(0))
      .execute();

  await sql`UPDATE comments SET
    like_count = (SELECT count(*) FROM comment_likes l WHERE l.comment_id = comments.id),
    reply_count = (SELECT count(*) FROM comments r WHERE r.reply_to_id = comments.id)`.execute(db);

  await sql`CREATE TRIGGER comment_likes_count_insert AFTER INSERT ON comment_likes BEGIN
    UPDATE comments SET like_count = like_count + 1 WHERE id = new.comment_id; END`.execute(db);
  await sql`CREATE TRIGGER comment_likes_count_delete AFTER DELETE ON comment_likes BEGIN
    UPDATE comments SET like_count = like_count - 1 WHERE id = old.comment_id; END`.execute(db);
  await sql`CREATE TRIGGER comments_reply_count_insert AFTER INSERT ON comments WHEN new.reply_to_id IS NOT NULL BEGIN
    UPDATE comments SET reply_count = reply_count + 1 WHERE id = new.reply_to_id; END`.execute(db);
  await sql`CREATE TRIGGER comments_reply_count_delete AFTER DELETE ON comments WHEN old.reply_to_id IS NOT NULL BEGIN
    UPDATE comments SET reply_count = reply_count - 1 WHERE id = old.reply_to_id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    "comments_reply_count_delete",
    "comments_reply_count_insert",
    "comment_likes_count_delete",
    "comment_likes_count_insert",
  ])
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  for (const column of ["reply_count", "like_count"])
    await db.schema.alterTable("comments").dropColumn(column).execute();
}

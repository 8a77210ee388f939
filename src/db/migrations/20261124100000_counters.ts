import { sql, type Kysely } from "kysely";

/**
 * Counters kept as columns instead of counted on every read: likes and comments of a post,
 * followers and following of an account. Triggers keep them in the statement that changes the
 * rows, so every write path (a like, a comment and its replies deleted by cascade, a block
 * that removes follows, an account removal) updates them inside its own transaction, and no
 * path can forget one. Follows of a deleted account are removed with it, so counting rows
 * equals counting live accounts, as the reads did.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ["like_count", "comment_count"])
    await db.schema
      .alterTable("posts")
      .addColumn(column, "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  for (const column of ["followers_count", "following_count"])
    await db.schema
      .alterTable("users")
      .addColumn(column, "integer", (c) => c.notNull().defaultTo(0))
      .execute();

  await sql`UPDATE posts SET
    like_count = (SELECT count(*) FROM post_likes l WHERE l.post_id = posts.id),
    comment_count = (SELECT count(*) FROM comments c WHERE c.post_id = posts.id)`.execute(db);
  await sql`UPDATE users SET
    followers_count = (SELECT count(*) FROM follows f JOIN users u ON u.id = f.follower_id
                       WHERE f.followee_id = users.id AND u.deleted_at IS NULL),
    following_count = (SELECT count(*) FROM follows f JOIN users u ON u.id = f.followee_id
                       WHERE f.follower_id = users.id AND u.deleted_at IS NULL)`.execute(db);

  await sql`CREATE TRIGGER post_likes_count_insert AFTER INSERT ON post_likes BEGIN
    UPDATE posts SET like_count = like_count + 1 WHERE id = new.post_id; END`.execute(db);
  await sql`CREATE TRIGGER post_likes_count_delete AFTER DELETE ON post_likes BEGIN
    UPDATE posts SET like_count = like_count - 1 WHERE id = old.post_id; END`.execute(db);
  await sql`CREATE TRIGGER comments_count_insert AFTER INSERT ON comments BEGIN
    UPDATE posts SET comment_count = comment_count + 1 WHERE id = new.post_id; END`.execute(db);
  await sql`CREATE TRIGGER comments_count_delete AFTER DELETE ON comments BEGIN
    UPDATE posts SET comment_count = comment_count - 1 WHERE id = old.post_id; END`.execute(db);
  await sql`CREATE TRIGGER follows_count_insert AFTER INSERT ON follows BEGIN
    UPDATE users SET followers_count = followers_count + 1 WHERE id = new.followee_id;
    UPDATE users SET following_count = following_count + 1 WHERE id = new.follower_id; END`.execute(db);
  await sql`CREATE TRIGGER follows_count_delete AFTER DELETE ON follows BEGIN
    UPDATE users SET followers_count = followers_count - 1 WHERE id = old.followee_id;
    UPDATE users SET following_count = following_count - 1 WHERE id = old.follower_id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    "follows_count_delete",
    "follows_count_insert",
    "comments_count_delete",
    "comments_count_insert",
    "post_likes_count_delete",
    "post_likes_count_insert",
  ])
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  for (const column of ["following_count", "followers_count"])
    await db.schema.alterTable("users").dropColumn(column).execute();
  for (const column of ["comment_count", "like_count"])
    await db.schema.alterTable("posts").dropColumn(column).execute();
}

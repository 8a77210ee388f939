import { sql, type Kysely } from "kysely";

/**
 * Indexes that let a page of a list be a walk from its cursor that stops after the page, in
 * the list's order, instead of every row of the list read and sorted:
 *
 * - a hashtag's posts: post_hashtags gains its post's time (post_created_at, kept by a trigger
 *   if a post's time changes), indexed with the tag (hashtag_id, post_created_at, post_id);
 * - a post's top-level comments: (post_id, created_at, id) of comments that reply to nothing
 *   (the post's index also holds every reply, which a page would step over);
 * - a comment's likers: (comment_id, created_at, id).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("post_hashtags")
    .addColumn("post_created_at", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE post_hashtags SET post_created_at = (SELECT p.created_at FROM posts p WHERE p.id = post_hashtags.post_id)`.execute(
    db,
  );
  await db.schema
    .createIndex("post_hashtags_tag_time")
    .on("post_hashtags")
    .columns(["hashtag_id", "post_created_at", "post_id"])
    .execute();
  await sql`CREATE TRIGGER posts_hashtags_time AFTER UPDATE OF created_at ON posts BEGIN
    UPDATE post_hashtags SET post_created_at = new.created_at WHERE post_id = new.id; END`.execute(db);
  await sql`CREATE INDEX comments_post_top_time ON comments (post_id, created_at, id) WHERE reply_to_id IS NULL`.execute(
    db,
  );
  await db.schema
    .createIndex("comment_likes_comment_time")
    .on("comment_likes")
    .columns(["comment_id", "created_at", "id"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX comment_likes_comment_time`.execute(db);
  await sql`DROP INDEX comments_post_top_time`.execute(db);
  await sql`DROP TRIGGER IF EXISTS posts_hashtags_time`.execute(db);
  await sql`DROP INDEX post_hashtags_tag_time`.execute(db);
  await db.schema.alterTable("post_hashtags").dropColumn("post_created_at").execute();
}

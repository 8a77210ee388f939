import type { Kysely } from "kysely";

/**
 * Each account's likes and bookmarks by post: a post view asks whether its reader marked the
 * post only when the post lies between the lowest and the highest post the reader marked
 * (src/domain/posts/view.ts viewerMark), and these indexes answer both ends in one seek each.
 * Reposts need none: posts_one_repost is (author_id, repost_of_id) already. The cost is one
 * more index entry per like and per bookmark.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("post_likes_user_post").on("post_likes").columns(["user_id", "post_id"]).execute();
  await db.schema
    .createIndex("post_bookmarks_user_post")
    .on("post_bookmarks")
    .columns(["user_id", "post_id"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ["post_bookmarks_user_post", "post_likes_user_post"])
    await db.schema.dropIndex(name).ifExists().execute();
}

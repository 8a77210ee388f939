import type { App } from "../../app";

/**
 * A deleted account's social content goes with it: its posts (with their reposts, comments,
 * likes, polls, hashtags and search entries, by cascade), its comments (with replies), and
 * its likes, bookmarks and poll votes, so no count keeps a trace of it.
 */
export async function dropSocialContentOf(app: App, userId: number): Promise<void> {
  await app.db.transaction().execute(async (tx) => {
    await tx.deleteFrom("posts").where("author_id", "=", userId).execute();
    await tx.deleteFrom("comments").where("author_id", "=", userId).execute();
    await tx.deleteFrom("post_likes").where("user_id", "=", userId).execute();
    await tx.deleteFrom("comment_likes").where("user_id", "=", userId).execute();
    await tx.deleteFrom("post_bookmarks").where("user_id", "=", userId).execute();
    await tx.deleteFrom("poll_votes").where("user_id", "=", userId).execute();
  });
}

import type { App } from "../../app";
import { releaseFilesIn } from "../../media/references";
import { inTransaction } from "../../db/transaction";

/**
 * A deleted account's social content goes with it: its posts (with their reposts, comments,
 * likes, polls, hashtags and search entries, by cascade), its comments (with replies), and
 * its likes, bookmarks and poll votes, so no count keeps a trace of it; their files go with
 * the released-uploads cleanup unless used elsewhere.
 */
export async function dropSocialContentOf(app: App, userId: number): Promise<void> {
  await inTransaction(app.storage, async ({ db: tx }) => {
    // the files of what goes are let go in the same transaction: the posts' images, the
    // comments under those posts and under posts the account commented on (its comments'
    // replies go by cascade; letting go of a file still in use costs only a check)
    const posts = await tx.selectFrom("posts").select("images").where("author_id", "=", userId).execute();
    const comments = await tx
      .selectFrom("comments")
      .select("media")
      .where("media", "<>", "[]")
      .where((eb) =>
        eb.or([
          eb("post_id", "in", eb.selectFrom("posts").select("id").where("author_id", "=", userId)),
          eb(
            "post_id",
            "in",
            eb.selectFrom("comments as mine").select("mine.post_id").where("mine.author_id", "=", userId),
          ),
        ]),
      )
      .execute();
    await releaseFilesIn(tx, [...posts.map((p) => p.images), ...comments.map((c) => c.media)], app.clock.now());
    await tx.deleteFrom("posts").where("author_id", "=", userId).execute();
    await tx.deleteFrom("comments").where("author_id", "=", userId).execute();
    await tx.deleteFrom("post_likes").where("user_id", "=", userId).execute();
    await tx.deleteFrom("comment_likes").where("user_id", "=", userId).execute();
    await tx.deleteFrom("post_bookmarks").where("user_id", "=", userId).execute();
    await tx.deleteFrom("poll_votes").where("user_id", "=", userId).execute();
  });
}

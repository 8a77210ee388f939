import type { App } from "../../app";
import type { Db } from "../../db";
import { toIso } from "../../lib/clock";
import { registerExportSection } from "../account/export";
import { dropSocialContentOf } from "./account-removal";
import type { PostImage } from "./table";

/**
 * The person's own social data in GET /api/account/export: their posts (with polls they
 * made), comments, bookmarks, likes and poll votes. Others' content appears only by id.
 * A deleted account's social content is removed.
 */
export function installPostsHooks(app: App): void {
  app.hooks.on("user:deleted", ({ userId }) => dropSocialContentOf(app, userId));
  registerExportSection(app, "posts", async (db, user) => {
    const rows = await db
      .selectFrom("posts")
      .leftJoin("posts as o", "o.id", "posts.repost_of_id")
      .leftJoin("polls", "polls.post_id", "posts.id")
      .select([
        "posts.id",
        "posts.cuid",
        "posts.content",
        "posts.images",
        "posts.created_at",
        "posts.edited_at",
        "o.cuid as repost_of",
        "polls.id as poll_id",
        "polls.question",
        "polls.multiple",
      ])
      .where("posts.author_id", "=", user.id)
      .orderBy("posts.created_at", "asc")
      .execute();
    const pollIds = rows.map((r) => r.poll_id).filter((id): id is number => id !== null);
    const options = pollIds.length
      ? await db
          .selectFrom("poll_options")
          .select(["poll_id", "text"])
          .where("poll_id", "in", pollIds)
          .orderBy("position")
          .execute()
      : [];
    return rows.map((r) => ({
      id: r.cuid,
      content: r.content,
      images: (JSON.parse(r.images) as PostImage[]).map((i) => i.url),
      repostOf: r.repost_of,
      poll:
        r.poll_id === null
          ? null
          : {
              question: r.question,
              multiple: r.multiple === 1,
              options: options.filter((o) => o.poll_id === r.poll_id).map((o) => o.text),
            },
      createdAt: toIso(r.created_at),
      editedAt: r.edited_at === null ? null : toIso(r.edited_at),
    }));
  });
  registerExportSection(app, "comments", async (db, user) => {
    const rows = await db
      .selectFrom("comments")
      .innerJoin("posts", "posts.id", "comments.post_id")
      .select(["comments.cuid", "comments.content", "comments.media", "comments.created_at", "posts.cuid as post_id"])
      .where("comments.author_id", "=", user.id)
      .orderBy("comments.created_at", "asc")
      .execute();
    return rows.map((r) => ({
      id: r.cuid,
      postId: r.post_id,
      content: r.content,
      media: JSON.parse(r.media),
      createdAt: toIso(r.created_at),
    }));
  });
  const marked = (table: "post_bookmarks" | "post_likes") => async (db: Db, user: { id: number }) => {
    const rows = await db
      .selectFrom(table)
      .innerJoin("posts", "posts.id", `${table}.post_id`)
      .select(["posts.cuid", `${table}.created_at as at`])
      .where(`${table}.user_id`, "=", user.id)
      .orderBy(`${table}.created_at`, "asc")
      .execute();
    return rows.map((r) => ({ postId: r.cuid, at: toIso(r.at) }));
  };
  registerExportSection(app, "bookmarks", marked("post_bookmarks"));
  registerExportSection(app, "likes", marked("post_likes"));
  registerExportSection(app, "pollVotes", async (db, user) => {
    const rows = await db
      .selectFrom("poll_votes")
      .innerJoin("polls", "polls.id", "poll_votes.poll_id")
      .innerJoin("posts", "posts.id", "polls.post_id")
      .innerJoin("poll_options", "poll_options.id", "poll_votes.option_id")
      .select(["posts.cuid", "poll_options.text", "poll_votes.created_at"])
      .where("poll_votes.user_id", "=", user.id)
      .orderBy("poll_votes.created_at", "asc")
      .execute();
    return rows.map((r) => ({ postId: r.cuid, option: r.text, at: toIso(r.created_at) }));
  });
}

import type { Db } from "../../db";

/** Per-account marks on a post or comment (like, bookmark), each table keyed by its target column. */
const TARGET_COLUMN = { post_likes: "post_id", post_bookmarks: "post_id", comment_likes: "comment_id" } as const;
export type MarkTable = keyof typeof TARGET_COLUMN;

/**
 * Sets USER's mark on TARGET if absent, removes it if present (a toggle that stays right
 * under double clicks: the unique pair index absorbs a concurrent second insert).
 * Returns the new state and, for likes, the target's like count (a counter column its triggers
 * keep); bookmarks are private and counted nowhere.
 */
export async function toggleMark(
  db: Db,
  table: MarkTable,
  targetId: number,
  userId: number,
  now: number,
): Promise<{ on: boolean; count: number | null }> {
  // the three tables share their shape; one of them stands in for the typing
  const t = table as "post_likes";
  const column = TARGET_COLUMN[table] as "post_id";
  const removed = await db.deleteFrom(t).where(column, "=", targetId).where("user_id", "=", userId).executeTakeFirst();
  const on = Number(removed.numDeletedRows) === 0;
  if (on) {
    await db
      .insertInto(t)
      .values({ [column]: targetId, user_id: userId, created_at: now } as {
        post_id: number;
        user_id: number;
        created_at: number;
      })
      .onConflict((oc) => oc.columns([column, "user_id"]).doNothing())
      .execute();
  }
  if (table === "post_bookmarks") return { on, count: null };
  const liked = (table === "post_likes" ? "posts" : "comments") as "posts";
  const n = await db.selectFrom(liked).select("like_count").where("id", "=", targetId).executeTakeFirstOrThrow();
  return { on, count: Number(n.like_count) };
}

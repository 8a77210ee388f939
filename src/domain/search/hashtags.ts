import type { Db } from "../../db";
import { normalizeHashtag } from "../posts/text";
import { decodeCursor, pageOf } from "../../lib/paging";
import { startsWith } from "./people";

export interface HashtagHit {
  tag: string;
  postCount: number;
}

/** Hashtags in use that start with Q (with or without #), alphabetical, with their post counts (an index range, no counting). */
export async function searchHashtags(
  db: Db,
  q: string,
  opts: { cursor: string | null; limit: number },
): Promise<{ hashtags: HashtagHit[]; nextCursor: string | null }> {
  const after = decodeCursor(opts.cursor, "cursor", "name");
  const prefix = normalizeHashtag(q.trim());
  if (!prefix) return { hashtags: [], nextCursor: null };
  let query = db
    .selectFrom("hashtags")
    .select(["id", "tag", "post_count"])
    .where(startsWith(db, "tag", prefix))
    .where("post_count", ">", 0);
  // tags are unique: the tag alone places the cursor
  if (after !== null) query = query.where("tag", ">", after.t);
  const rows = await query
    .orderBy("tag")
    .limit(opts.limit + 1)
    .execute();
  const { items, nextCursor } = pageOf(rows, opts.limit, (r) => ({ t: r.tag, id: r.id }));
  return { hashtags: items.map((r) => ({ tag: r.tag, postCount: Number(r.post_count) })), nextCursor };
}
